/**
 * The one translator of Kubernetes API errors (pure): every adapter of `cluster/` that calls the
 * API server (`kube-client.ts`, `jobs.ts`, `patch.ts`) classifies a failure here, by one rule, and
 * raises the one {@link KubeApiError}.
 *
 * The rule (the API server's status codes, https://kubernetes.io/docs/reference/using-api/api-concepts/,
 * and client-go's `IsTooManyRequests` / `IsInternalError` / `IsServerTimeout` / `IsConflict`):
 * - `transient` (worth another try with backoff): HTTP 429 (throttled; `Retry-After` honoured),
 *   5xx except 501 (Not Implemented never gets better), and network resets, refusals and timeouts
 *   (no HTTP status at all);
 * - `conflict`: HTTP 409 — someone else wrote the object (an optimistic-concurrency miss): re-read
 *   and re-apply at once, no backoff; on create, the object already exists;
 * - `not-found`: HTTP 404 — the object (or its namespace) is not there;
 * - `gone`: HTTP 410 — an expired `continue` token or watch `resourceVersion`: list again from the
 *   start;
 * - `permanent`: everything else (400, 401, 403, 422, 501, an error with no status that is not a
 *   network failure): retrying cannot help; report it.
 */
import { ApiException } from '@kubernetes/client-node';

/** How a failed Kubernetes API call is to be treated (see the module's rule). */
export type KubeErrorKind = 'transient' | 'conflict' | 'not-found' | 'gone' | 'permanent';

/** What {@link classifyKubeError} reads from an error. */
export interface KubeErrorInfo {
  /** HTTP status, or null when the call got no answer (a network failure). */
  status: number | null;
  kind: KubeErrorKind;
  /** The API server's `Status.message` (or the network error with its code), without the status. */
  detail: string;
  /** `Retry-After` of a 429 or 503 (milliseconds), else null. */
  retryAfterMs: number | null;
}

/** Network error codes that mean "try again": connection reset, refused, timed out, DNS hiccup. */
const TRANSIENT_NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'ETIMEDOUT',
  'ESOCKETTIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'ENOTFOUND',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/** Messages of network failures that carry no code (node-fetch, undici). */
const TRANSIENT_NETWORK_MESSAGE = /socket hang up|fetch failed|network timeout/i;

/** The kind an HTTP status gives (429 and 5xx but 501 transient; 409, 404, 410 their own). */
export function kindOfStatus(status: number): KubeErrorKind {
  if (status === 429 || (status >= 500 && status <= 599 && status !== 501)) return 'transient';
  if (status === 409) return 'conflict';
  if (status === 404) return 'not-found';
  if (status === 410) return 'gone';
  return 'permanent';
}

/** The HTTP status of an error from the client (`code` or `statusCode`), else null. */
export function statusOf(err: unknown): number | null {
  if (err instanceof KubeApiError) return err.status;
  const e = err as { code?: unknown; statusCode?: unknown } | null;
  if (typeof e?.code === 'number') return e.code;
  if (typeof e?.statusCode === 'number') return e.statusCode;
  return null;
}

/**
 * Classifies any error a Kubernetes call may throw: a {@link KubeApiError} (as it was), the
 * client's `ApiException` (status, body `Status.message`, `Retry-After`), or a network error (a
 * `code` such as `ECONNRESET` on the error or its `cause`). Never throws.
 */
export function classifyKubeError(err: unknown): KubeErrorInfo {
  if (err instanceof KubeApiError) {
    return { status: err.status, kind: err.kind, detail: err.detail, retryAfterMs: err.retryAfterMs };
  }
  if (err instanceof ApiException) {
    const status = err.code;
    const retryAfter = Number(err.headers?.['retry-after']);
    return {
      status,
      kind: kindOfStatus(status),
      detail: bodyMessage(err.body) ?? '',
      retryAfterMs: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : null,
    };
  }
  const status = statusOf(err);
  const e = err as { code?: unknown; message?: unknown; cause?: { code?: unknown } } | null;
  const message = e?.message !== undefined ? String(e.message) : String(err);
  if (status !== null) return { status, kind: kindOfStatus(status), detail: message, retryAfterMs: null };
  const code = typeof e?.code === 'string' ? e.code : typeof e?.cause?.code === 'string' ? e.cause.code : '';
  const network = TRANSIENT_NETWORK_CODES.has(code) || TRANSIENT_NETWORK_MESSAGE.test(message);
  return {
    status: null,
    kind: network ? 'transient' : 'permanent',
    detail: code && !message.includes(code) ? `${code}: ${message}` : message,
    retryAfterMs: null,
  };
}

/** `HTTP <status>: <detail>` (each part only when known): an error's text without its operation. */
export function kubeErrorText(info: Pick<KubeErrorInfo, 'status' | 'detail'>): string {
  return [
    ...(info.status === null ? [] : [`HTTP ${info.status}`]),
    ...(info.detail ? [info.detail] : []),
  ].join(': ');
}

/**
 * A Kubernetes API call that failed: `operation` names it (e.g. `list nodes`, `read Job ns/name`),
 * `status` is the HTTP status (null: no answer), `attempts` how many tries were made. The message
 * reads `<operation>: HTTP <status>: <detail> (after <n> attempts)`, each part only when known.
 */
export class KubeApiError extends Error {
  readonly kind: KubeErrorKind;

  constructor(
    readonly operation: string,
    readonly status: number | null,
    readonly detail: string,
    readonly attempts = 1,
    readonly retryAfterMs: number | null = null,
    kind?: KubeErrorKind,
  ) {
    const text = kubeErrorText({ status, detail });
    super(
      `${text ? `${operation}: ${text}` : operation}${attempts > 1 ? ` (after ${attempts} attempts)` : ''}`,
    );
    this.name = 'KubeApiError';
    this.kind = kind ?? (status === null ? 'transient' : kindOfStatus(status));
  }

  /** Worth another try with backoff (429, 5xx but 501, network). */
  get transient(): boolean {
    return this.kind === 'transient';
  }
}

/**
 * The {@link KubeApiError} for `err` raised by `operation` after `attempts` tries; a KubeApiError
 * is returned as it is when no attempt count is given.
 */
export function toKubeApiError(operation: string, err: unknown, attempts?: number): KubeApiError {
  if (err instanceof KubeApiError && attempts === undefined) return err;
  const info = classifyKubeError(err);
  return new KubeApiError(operation, info.status, info.detail, attempts ?? 1, info.retryAfterMs, info.kind);
}

/** `Status.message` of an API server answer (a JSON string or an object), else null. */
function bodyMessage(body: unknown): string | null {
  let parsed = body;
  if (typeof body === 'string') {
    try {
      parsed = JSON.parse(body);
    } catch {
      return body.trim() === '' ? null : body.slice(0, 200);
    }
  }
  const m = (parsed as { message?: unknown } | null)?.message;
  return typeof m === 'string' && m !== '' ? m : null;
}
