/**
 * The running controller's one close order (`src/compose/closers.ts`, used by
 * `src/compose/controller.ts`): every part started closes once, last started first, and a part
 * whose closer throws never keeps the parts started before it open.
 */
import { describe, expect, it } from 'vitest';
import { createClosers } from '../../src/compose/closers.js';

/** Starts `parts` in order on fresh closers; `failing` parts throw (or reject) when closed. */
function started(parts: string[], failing: Record<string, 'throw' | 'reject'> = {}) {
  const closed: string[] = [];
  const reported: { part: string; message: string }[] = [];
  const closers = createClosers((part, err) => reported.push({ part, message: (err as Error).message }));
  for (const part of parts)
    closers.add(part, () => {
      closed.push(part);
      if (failing[part] === 'throw') throw new Error(`${part} would not close`);
      if (failing[part] === 'reject') return Promise.reject(new Error(`${part} would not close`));
      return Promise.resolve();
    });
  return { closers, closed, reported };
}

const PARTS = ['watch cache', 'reconciler', 'status store'];

describe('the close order of the running controller', () => {
  it('closes every part once, in the reverse order of start', async () => {
    const { closers, closed, reported } = started(PARTS);
    await closers.close();
    await closers.close();
    expect(closed).toEqual(['status store', 'reconciler', 'watch cache']);
    expect(reported).toEqual([]);
  });

  it.each([
    ['throws', 'throw' as const],
    ['rejects', 'reject' as const],
  ])('a closer that %s is reported and the parts started before it still close', async (_, how) => {
    const { closers, closed, reported } = started(PARTS, { reconciler: how });
    await expect(closers.close()).resolves.toBeUndefined();
    expect(closed).toEqual(['status store', 'reconciler', 'watch cache']);
    expect(reported).toEqual([{ part: 'reconciler', message: 'reconciler would not close' }]);
  });

  it('every closer that fails is reported, in close order', async () => {
    const { closers, closed, reported } = started(PARTS, {
      'status store': 'reject',
      'watch cache': 'throw',
    });
    await closers.close();
    expect(closed).toEqual(['status store', 'reconciler', 'watch cache']);
    expect(reported.map((r) => r.part)).toEqual(['status store', 'watch cache']);
  });

  it('closes only what started: a part added after a close closes on the next one', async () => {
    const { closers, closed } = started(['watch cache']);
    await closers.close();
    closers.add('reconciler', () => void closed.push('reconciler'));
    await closers.close();
    expect(closed).toEqual(['watch cache', 'reconciler']);
  });
});
