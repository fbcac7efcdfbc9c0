import { describe, expect, it } from 'vitest';
import { retry, sleep } from '../../src/retry/retry.js';

/** A failure that says whether it is worth another try. */
class Fault extends Error {
  constructor(
    readonly transient: boolean,
    readonly retryAfterMs = 0,
  ) {
    super(transient ? 'transient' : 'final');
  }
}

/** Runs `retry` over a script of outcomes; returns the result (or error), calls and waits. */
async function run(script: (Fault | 'ok')[], options: Parameters<typeof retry>[1] = {}) {
  const waits: number[] = [];
  let calls = 0;
  const outcome = await retry(
    async (attempt) => {
      calls++;
      expect(attempt).toBe(calls);
      const next = script[attempt - 1];
      if (next === undefined) throw new Error(`attempt ${attempt} beyond the script`);
      if (next instanceof Fault) throw next;
      return `ok on ${attempt}`;
    },
    { random: () => 1, sleep: async (ms) => void waits.push(ms), ...options },
  ).catch((err: unknown) => err);
  return { outcome, calls, waits };
}

describe('retry', () => {
  it.each([
    // name, script, attempts, result, calls, waits (ms; default backoff 500 doubling, no jitter)
    ['success at once', ['ok'], 4, 'ok on 1', 1, []],
    ['two failures, then success', [new Fault(true), new Fault(true), 'ok'], 4, 'ok on 3', 3, [500, 1000]],
    ['success on the last attempt', [new Fault(true), new Fault(true), 'ok'], 3, 'ok on 3', 3, [500, 1000]],
    ['one attempt short: the last error', [new Fault(true), new Fault(true), 'ok'], 2, 'transient', 2, [500]],
    ['attempts 0 still tries once', [new Fault(true)], 0, 'transient', 1, []],
  ] as const)('%s', async (_name, script, attempts, result, calls, waits) => {
    const r = await run([...script], { attempts, retryable: (e) => e instanceof Fault && e.transient });
    expect(r.outcome instanceof Error ? r.outcome.message : r.outcome).toBe(result);
    expect(r.calls).toBe(calls);
    expect(r.waits).toEqual(waits);
  });

  it('a final error ends at once, unchanged', async () => {
    const final = new Fault(false);
    const r = await run([new Fault(true), final, 'ok'], {
      retryable: (e) => e instanceof Fault && e.transient,
    });
    expect(r.outcome).toBe(final);
    expect(r.calls).toBe(2);
    expect(r.waits).toEqual([500]);
  });

  it('waitMs replaces the backoff (a server’s Retry-After; 0 retries without sleeping)', async () => {
    const r = await run([new Fault(true, 3000), new Fault(true, 0), new Fault(true, 200), 'ok'], {
      backoff: { baseMs: 100, maxMs: 2000 },
      waitMs: (e, _attempt, backoffMs) =>
        (e as Fault).retryAfterMs === 0 ? 0 : Math.max(backoffMs, (e as Fault).retryAfterMs),
    });
    expect(r.outcome).toBe('ok on 4');
    expect(r.waits).toEqual([3000, 400]); // attempt 1: Retry-After 3 s; 2: none; 3: backoff 400 > 200
  });
});

describe('sleep', () => {
  it('ends at once, resolving, when its signal is already aborted or aborts while it waits', async () => {
    const aborted = AbortSignal.abort();
    await expect(sleep(3_600_000, aborted)).resolves.toBeUndefined();
    const ctl = new AbortController();
    const waiting = sleep(3_600_000, ctl.signal);
    ctl.abort();
    await expect(waiting).resolves.toBeUndefined();
  });

  it('treats a negative wait as none', async () => {
    await expect(sleep(-5)).resolves.toBeUndefined();
  });
});
