/**
 * One retry helper and one `sleep` for the adapters (git, GitHub, the cluster): exponential backoff
 * with jitter, bounded attempts, and a predicate that says which errors are worth another try.
 * Every duration is in milliseconds.
 */
import { setTimeout as delay } from 'node:timers/promises';

/**
 * Waits `ms` milliseconds (node:timers/promises); negative waits count as 0. With `signal`, the
 * wait ends early (resolving, not rejecting) when the signal aborts, or at once when it already has.
 */
export async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return;
  try {
    await delay(Math.max(0, ms), undefined, signal ? { signal } : undefined);
  } catch (err) {
    if (!signal?.aborted) throw err;
  }
}

/** Exponential backoff between attempts, in milliseconds. */
export interface Backoff {
  /** Wait after the first failure (before jitter); default 500. */
  baseMs: number;
  /** Upper bound of one wait (before jitter); default 8000. */
  maxMs: number;
}

/** The default backoff: 500 ms, doubling, at most 8 s. */
export const DEFAULT_BACKOFF: Backoff = { baseMs: 500, maxMs: 8000 };

/**
 * The wait after failed attempt `attempt` (1-based): `min(maxMs, baseMs · 2^(attempt−1))` scaled by
 * a jitter factor in [0.5, 1] ("equal jitter", so two writers that failed together drift apart).
 * `random` returns 0..1. Pure.
 */
export function backoffDelay(
  attempt: number,
  backoff: Backoff = DEFAULT_BACKOFF,
  random = Math.random,
): number {
  const capped = Math.min(backoff.maxMs, backoff.baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(capped * (0.5 + 0.5 * random()));
}

/** Options of {@link retry}. */
export interface RetryOptions {
  /** Attempts in all, at least 1; default 4. */
  attempts?: number;
  backoff?: Backoff;
  /** Whether an error is worth another attempt; default: every error. */
  retryable?: (err: unknown) => boolean;
  /**
   * The wait after failed attempt `attempt`, given the backoff's `backoffMs` (e.g. honour a
   * server's `Retry-After`, or retry a conflict at once with 0); default `backoffMs`.
   */
  waitMs?: (err: unknown, attempt: number, backoffMs: number) => number;
  /** Called before each wait (after a retryable failure that is not the last). */
  onRetry?: (err: unknown, attempt: number, waitMs: number) => void | Promise<void>;
  /** Injected for tests; default {@link sleep}. */
  sleep?: (ms: number) => Promise<void>;
  /** Jitter source, 0..1 (see {@link backoffDelay}); `() => 1` waits the full backoff. Injected for tests. */
  random?: () => number;
}

/**
 * Runs `fn(attempt)` (1-based) until it resolves, an error is not retryable, or `attempts` are used.
 * @throws the last error (unchanged) when it is not retryable or no attempt is left
 */
export async function retry<T>(fn: (attempt: number) => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const attempts = Math.max(1, options.attempts ?? 4);
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (err) {
      if (attempt >= attempts || !(options.retryable ?? (() => true))(err)) throw err;
      const backoffMs = backoffDelay(attempt, options.backoff, options.random);
      const ms = options.waitMs ? options.waitMs(err, attempt, backoffMs) : backoffMs;
      await options.onRetry?.(err, attempt, ms);
      if (ms > 0) await (options.sleep ?? sleep)(ms);
    }
  }
}
