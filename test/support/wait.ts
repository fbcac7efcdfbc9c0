/** Waiting helpers for tests that drive real processes and servers. */

import { sleep } from '../../src/retry/retry.js';

export { sleep };

/**
 * Polls `fn` every `everyMs` until it returns something other than `undefined` or `false`.
 * @throws Error naming `what` when `timeoutMs` passes first
 */
export async function until<T>(
  what: string,
  fn: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 20_000,
  everyMs = 25,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}
