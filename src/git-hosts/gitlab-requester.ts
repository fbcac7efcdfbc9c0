/**
 * The request handler gpuops gives gitbeaker (`requesterFn`, the one part of gitbeaker meant to be
 * replaced). gitbeaker's own handler retries 429 and 502 only, ten times at 0.25·2^i milliseconds,
 * and never reads `Retry-After` or `RateLimit-Reset`; this one sends every request through
 * {@link retryingFetch} (GitLab's documented waits, bounded) and keeps gitbeaker's client-side
 * per-endpoint limiter. A failed answer is thrown as {@link GitLabAnswerError} for the host to map.
 */
import { createRequesterFn, getMatchingRateLimiter, type RequesterType } from '@gitbeaker/requester-utils';

/** A failed answer: its status, headers and parsed body (JSON, else text). */
export class GitLabAnswerError extends Error {
  readonly status: number;
  readonly headers: Headers;
  readonly body: unknown;
  constructor(status: number, headers: Headers, body: unknown) {
    super(`GitLab answered ${status}`);
    this.name = 'GitLabAnswerError';
    this.status = status;
    this.headers = headers;
    this.body = body;
  }
}

async function parseBody(response: Response): Promise<unknown> {
  if (response.status === 204) return null;
  const type = (response.headers.get('content-type') ?? '').split(';')[0]!.trim();
  const text = await response.text();
  if (type === 'application/json') {
    try {
      return text === '' ? {} : JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

interface HandlerOptions {
  rateLimiters?: Parameters<typeof getMatchingRateLimiter>[1];
  prefixUrl?: string;
  searchParams?: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
}

/**
 * gitbeaker's `requesterFn` over `send` (a retrying fetch): builds the URL from gitbeaker's prefix,
 * endpoint and query, waits for gitbeaker's limiter, sends, and returns `{ body, headers, status }`
 * as gitbeaker expects. @throws GitLabAnswerError on a non-2xx answer; what `send` throws otherwise
 */
export function gitlabRequester(send: (request: Request) => Promise<Response>) {
  const handler = async (endpoint: string, options?: Record<string, unknown>) => {
    const {
      rateLimiters,
      prefixUrl = '',
      searchParams,
      method = 'GET',
      headers,
      body,
      signal,
    } = (options ?? {}) as HandlerOptions;
    const url = new URL(endpoint, prefixUrl.endsWith('/') ? prefixUrl : `${prefixUrl}/`);
    url.search = searchParams ?? '';
    await getMatchingRateLimiter(endpoint, rateLimiters, method)();
    const response = await send(
      new Request(url, {
        method,
        headers,
        ...(body !== undefined ? { body } : {}),
        ...(signal ? { signal } : {}),
      }),
    );
    const parsed = await parseBody(response);
    if (!response.ok) throw new GitLabAnswerError(response.status, response.headers, parsed);
    return { body: parsed, headers: Object.fromEntries(response.headers.entries()), status: response.status };
  };
  return createRequesterFn(
    (_, requestOptions) => Promise.resolve(requestOptions),
    handler as unknown as Parameters<typeof createRequesterFn>[1],
  ) as (serviceOptions: unknown) => RequesterType;
}
