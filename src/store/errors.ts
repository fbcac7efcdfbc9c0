import { redactUrls } from '../util/index.js';

/**
 * A failed database operation. `operation` names the Store method (`saveSnapshot`, `migrate`,
 * `open`, …); the message never contains credentials (see {@link redactUrl}).
 */
export class StoreError extends Error {
  override readonly name = 'StoreError';
  constructor(
    readonly operation: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`store ${operation}: ${redactSecrets(message)}`, options);
  }
}

/**
 * A database URL fit for errors and logs: the password of `scheme://user:password@host/…` is
 * replaced by `***`, and so is a `password=` query parameter (libpq style).
 */
export function redactUrl(url: string): string {
  return redactSecrets(url);
}

/**
 * Replaces every `://userinfo@` (up to the URL's last `@`, as pg reads it) and `password=…` in free
 * text by `***` ({@link redactUrls}).
 */
export function redactSecrets(text: string): string {
  return redactUrls(text);
}

/** Wraps any thrown value into a {@link StoreError} for `operation` (kept as `cause`). */
export function storeError(operation: string, err: unknown): StoreError {
  if (err instanceof StoreError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new StoreError(operation, message, { cause: err });
}
