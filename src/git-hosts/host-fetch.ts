/**
 * The HTTP of the GitLab and Gitea/Forgejo hosts: `fetch` with the retries `host-retry.ts` decides
 * (429 and 5xx, `Retry-After`, `RateLimit-Reset`, backoff), each retry bounded in count and in
 * wait, and the mapping of a final failure to a `PrHostError` that names the call and never holds
 * the token. A wait longer than the bound is never taken: the call fails at once as `rate-limited`
 * with the time the limit ends (`RateLimited until HH:MM:SS UTC`), so a pass never hangs and the
 * next pass tries again — the GitHub host's rule.
 */
import { sleep } from '../retry/index.js';
import { redact } from '../working-copy/index.js';
import { rateLimitEndsAt, retryWait, type WaitSource } from './host-retry.js';
import { PrHostError } from './pr-host.js';

/** A wait the host asked for (or our backoff), reported before it happens or is declined. */
export interface HostWait {
  status: number;
  source: WaitSource;
  seconds: number;
  /** 0-based retry count of the request. */
  retryCount: number;
  /** Whether it is taken (within the retry and wait bounds). */
  retry: boolean;
  method: string;
  /** The path of the request (no query, no host). */
  path: string;
}

/** Options of {@link retryingFetch}. */
export interface HostFetchOptions {
  /** Retries of one request; default 3. */
  maxRetries?: number;
  /** Longest single wait, seconds; default 60 (a wait of exactly this long is taken). */
  maxWaitSeconds?: number;
  /** Milliseconds waited per second asked; default 1000 (tests use 1). */
  msPerSecond?: number;
  now?: () => Date;
  onWait?: (wait: HostWait) => void;
  /** Default the global `fetch`. */
  fetch?: typeof fetch;
}

/**
 * A `fetch` that retries what `retryWait` says is worth it, within the bounds, and otherwise
 * returns the last answer (the caller turns a failure into a `PrHostError`). A network error
 * (no answer) is retried with backoff too, then thrown. The request body is sent again on each
 * try (the `Request` is cloned).
 */
export function retryingFetch(o: HostFetchOptions = {}): (request: Request) => Promise<Response> {
  const max = o.maxRetries ?? 3;
  const maxWait = o.maxWaitSeconds ?? 60;
  const ms = o.msPerSecond ?? 1000;
  const now = o.now ?? (() => new Date());
  const send = o.fetch ?? fetch;
  return async (request) => {
    const path = new URL(request.url).pathname;
    for (let retryCount = 0; ; retryCount++) {
      let response: Response;
      try {
        response = await send(request.clone());
      } catch (err) {
        if (retryCount >= max || request.signal?.aborted) throw err;
        await sleep(2 ** retryCount * ms);
        continue;
      }
      const wait = retryWait(response.status, (n) => response.headers.get(n), retryCount, now());
      if (wait === null) return response;
      const retry = retryCount < max && wait.seconds <= maxWait;
      o.onWait?.({ ...wait, status: response.status, retryCount, retry, method: request.method, path });
      if (!retry) return response;
      await response.body?.cancel();
      await sleep(wait.seconds * ms);
    }
  };
}

/** The message of an error answer: GitLab's `message` / `error` (string, list or field map), Gitea's `message`, else the text. */
export function answerMessage(body: unknown): string {
  if (typeof body === 'string') return body.trim().slice(0, 500);
  if (body && typeof body === 'object') {
    const b = body as { message?: unknown; error?: unknown };
    const m = b.message ?? b.error;
    if (typeof m === 'string') return m;
    if (m !== undefined) return JSON.stringify(m);
  }
  return '';
}

/**
 * A `PrHostError` for a failed answer of call `what`: 429 → `rate-limited` until the limit ends,
 * 401/403 → `permission`, 404 → `not-found`, 400/409/422 → `validation`, else `other`. `secrets`
 * (the token) are replaced wherever they appear.
 */
export function answerError(
  what: string,
  status: number,
  get: (name: string) => string | null,
  body: unknown,
  secrets: readonly string[],
  now: Date,
): PrHostError {
  const detail = redact(`${what}: ${status} ${answerMessage(body)}`.replace(/\s+/g, ' ').trim(), [
    ...secrets,
  ]);
  if (status === 429) {
    const until = rateLimitEndsAt(get, now);
    const clock = until.toISOString().slice(11, 19);
    return new PrHostError('rate-limited', status, `RateLimited until ${clock} UTC (${detail})`, until);
  }
  if (status === 401 || status === 403) return new PrHostError('permission', status, detail);
  if (status === 404) return new PrHostError('not-found', status, detail);
  if (status === 400 || status === 409 || status === 422)
    return new PrHostError('validation', status, detail);
  return new PrHostError('other', status, detail);
}

/** A `PrHostError` for a call that got no answer (network, timeout); the token never appears. */
export function networkError(what: string, err: unknown, secrets: readonly string[]): PrHostError {
  const message =
    err instanceof Error
      ? `${err.message}${err.cause instanceof Error ? `: ${err.cause.message}` : ''}`
      : String(err);
  return new PrHostError('other', null, redact(`${what}: ${message}`, [...secrets]));
}
