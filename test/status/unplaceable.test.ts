/** Table test of `unplaceable`: since when an algorithm's replica cannot be placed, from stored decisions. */
import { describe, expect, it } from 'vitest';
import type { DecisionRecord } from '../../src/store/types.js';
import { unplaceable } from '../../src/status/unplaceable.js';

const T0 = Date.parse('2026-12-01T10:00:00Z') / 1000;
const d = (minute: number, reason: string, kind: DecisionRecord['kind'] = 'scaling'): DecisionRecord => ({
  kind,
  subject: 'llm',
  action: 'hold',
  reason,
  message: '',
  replicasFrom: 1,
  replicasTo: 1,
  utilization: 90,
  at: new Date((T0 + minute * 60) * 1000).toISOString(),
});
const held = [{ name: 'llm', scalingReason: 'NoCapacity', scalingMessage: 'no unused node of H100 fits' }];

describe('unplaceable', () => {
  it.each([
    [
      'held since the first of an unbroken run',
      [d(0, 'AboveMax'), d(1, 'NoCapacity'), d(2, 'NoCapacity')],
      T0 + 60,
    ],
    ['a break starts the run again', [d(1, 'NoCapacity'), d(2, 'WithinBand'), d(3, 'NoCapacity')], T0 + 180],
    ['no stored decision: the pass itself', [], T0 + 600],
    ['decisions of other kinds do not count', [d(1, 'NoCapacity'), d(2, 'Placed', 'placement')], T0 + 60],
  ])('%s', (_what, history, since) => {
    expect(unplaceable(held, new Map([['llm', history]]), T0 + 600)).toEqual([
      { name: 'llm', since, message: 'no unused node of H100 fits' },
    ]);
  });

  it('an algorithm not held at NoCapacity now is not listed', () => {
    const now = [{ name: 'llm', scalingReason: 'WithinBand', scalingMessage: '' }];
    expect(unplaceable(now, new Map([['llm', [d(1, 'NoCapacity')]]]), T0 + 600)).toEqual([]);
  });
});
