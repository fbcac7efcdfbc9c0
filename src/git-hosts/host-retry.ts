/**
 * When a failed request to a merge-request host (GitLab, Gitea, Forgejo) is worth another try, and
 * how long to wait first (pure). The hosts document these answers:
 * - `429 Too Many Requests`: GitLab sends `Retry-After` (seconds) and `RateLimit-Reset` (epoch
 *   seconds) with it (docs.gitlab.com, "Rate limits": `RateLimit-Limit`, `-Observed`,
 *   `-Remaining`, `-Reset`, `-ResetTime`); older GitLab and some endpoints send only the reset, some
 *   neither. Gitea and Forgejo have no API rate limit of their own; a proxy in front of them answers
 *   429, with or without `Retry-After` (RFC 9110 §10.2.3: seconds, or an HTTP date).
 * - `500`, `502`, `503`, `504`: the server or its proxy failed; GitLab's own clients
 *   (gitlab-runner, python-gitlab) retry them with exponential backoff.
 * Every other status is the answer, never retried: 401/403 (the token may not), 404, 409, 422.
 */

/** Statuses worth another try: a rate limit, and a failing server or gateway. */
export const RETRY_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504]);

/** Where a wait came from: the host's `Retry-After`, its rate-limit reset, or our own backoff. */
export type WaitSource = 'retry-after' | 'ratelimit-reset' | 'backoff';

/** A header reader (`Headers.get` of a fetch `Response`); names are case-insensitive. */
export type HeaderGet = (name: string) => string | null;

/**
 * Seconds of a `Retry-After` value, from `now`: a whole number of seconds, or an HTTP date (a past
 * date is 0); null when absent or neither.
 */
export function retryAfterSeconds(value: string | null, now: Date): number | null {
  if (value === null || value.trim() === '') return null;
  if (/^\s*\d+\s*$/.test(value)) return Number(value);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now.getTime()) / 1000));
}

/**
 * Seconds until a rate limit's reset (`RateLimit-Reset`, GitLab's; else `X-RateLimit-Reset`), both
 * epoch seconds; a reset already past is 0; null without one.
 */
export function resetSeconds(get: HeaderGet, now: Date): number | null {
  const raw = get('ratelimit-reset') ?? get('x-ratelimit-reset');
  const reset = Number(raw);
  if (raw === null || !Number.isFinite(reset) || reset <= 0) return null;
  return Math.max(0, Math.ceil(reset - now.getTime() / 1000));
}

/**
 * How long to wait before retry number `retry` (0-based) of an answer with `status`, or null when
 * the status is never retried. The host's word first (`Retry-After`, then the reset of a 429), else
 * exponential backoff: 1 s, 2 s, 4 s, … (`2^retry`).
 */
export function retryWait(
  status: number,
  get: HeaderGet,
  retry: number,
  now: Date,
): { seconds: number; source: WaitSource } | null {
  if (!RETRY_STATUSES.has(status)) return null;
  const after = retryAfterSeconds(get('retry-after'), now);
  if (after !== null) return { seconds: after, source: 'retry-after' };
  const reset = status === 429 ? resetSeconds(get, now) : null;
  if (reset !== null) return { seconds: reset, source: 'ratelimit-reset' };
  return { seconds: 2 ** retry, source: 'backoff' };
}

/**
 * When a rate limit ends, for the `RateLimited until …` of a 429 that was not waited out:
 * `Retry-After`, else the reset, else a minute from `now` (GitLab's limits count per minute).
 */
export function rateLimitEndsAt(get: HeaderGet, now: Date): Date {
  const seconds = retryAfterSeconds(get('retry-after'), now) ?? resetSeconds(get, now) ?? 60;
  return new Date(now.getTime() + seconds * 1000);
}
