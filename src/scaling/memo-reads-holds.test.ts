/**
 * The decision memo never reuses a kept quiet hold when a rule that read the recorded holds ran:
 * the peak window reads every record, holds included, so a record of the kept hold appended since
 * means deciding again. Across the boundary, a quiet hold no such rule read may be reused with its
 * own record appended. Either way, the memo's answer equals deciding afresh.
 */
import { describe, expect, it } from 'vitest';
import { algorithm, node, pod, policyNoWindows, sample, scalingRecord } from '../../test/scaling/support.js';
import type { Policy } from '../definitions/types.js';
import { decideInTurn } from './decide-in-turn.js';
import { createDecisionMemo, rememberingDecider } from './decision-memo.js';
import { toDecisionRecord } from './decision-record.js';
import type { DecisionRecord, ScalingInput } from './types.js';

const T0 = Date.parse('2025-06-01T12:00:00Z');
const iso = (ms: number): string => new Date(ms).toISOString();
const capacity = [node('lt-1', 'long-task', 2)];
const pods = [pod('resnet50-infer-7d9f-0'), pod('resnet50-infer-7d9f-1')];

/** Two Ready pods at 10% (below min 30: a scale-down 2 → 1 is wanted), with `recent` records. */
function inputs(
  minReplicas: number,
  recent: DecisionRecord[],
): Omit<ScalingInput, 'poolNodes' | 'unusedNodes'>[] {
  return [
    {
      algorithm: ALG[minReplicas]!,
      pool: 'long-task',
      replicas: 2,
      pods,
      samples: pods.map((p) => sample(p.name, 10, iso(T0))),
      recent,
    },
  ];
}
/** The same algorithm object per floor (the memo compares algorithms by identity). */
const ALG: Record<number, ReturnType<typeof algorithm>> = {
  1: algorithm(),
  2: algorithm({ minReplicas: 2 }),
};

/** A recorded hold at 90% on 2 replicas 100 s before T0: load 180, a peak that keeps 2 replicas. */
const peak = scalingRecord(iso(T0 - 100_000), 'hold', 'InBand', 2, 2, 90);

/** Pass 1 at T0 and pass 2 at T0 + 30 s (with pass 1's record appended), memo and fresh. */
function twoPasses(p: Policy, minReplicas: number) {
  const memo = createDecisionMemo();
  const first = decideInTurn(
    inputs(minReplicas, [peak]),
    capacity,
    p,
    new Date(T0),
    rememberingDecider(memo)(capacity),
  );
  const entry = memo.decisions.get('resnet50-infer');
  const recent = [peak, toDecisionRecord(first[0]!, new Date(T0))];
  const at2 = new Date(T0 + 30_000);
  const incremental = decideInTurn(
    inputs(minReplicas, recent),
    capacity,
    p,
    at2,
    rememberingDecider(memo)(capacity),
  );
  const reused = memo.reused;
  const full = decideInTurn(inputs(minReplicas, recent), capacity, p, at2);
  return { first, entry, incremental, full, reused };
}

describe('decision memo: a quiet hold read by a window rule is decided again', () => {
  it('peak window on: hold RecentPeak reads holds, pass 2 is not reused and equals full', () => {
    const p = policyNoWindows({ scaleDown: { peakWindowSeconds: 240 } });
    const { first, entry, incremental, full, reused } = twoPasses(p, 1);
    expect(first).toHaveLength(1);
    expect(first[0]).toMatchObject({
      action: 'hold',
      reason: 'RecentPeak',
      replicas: { from: 2, to: 2 },
      nodes: [],
    });
    expect(entry?.decision).toEqual(first[0]);
    expect(entry?.clock.readsHolds).toBe(true);
    // The peak leaves the window at T0 + 140.001 s: the clock alone would allow reuse at T0 + 30 s.
    expect(entry!.clock.untilMs).toBe(T0 + 140_001);
    expect(reused).toBe(0);
    expect(incremental).toHaveLength(full.length);
    incremental.forEach((d, i) => expect(d).toEqual(full[i]));
    expect(full[0]).toMatchObject({ action: 'hold', reason: 'RecentPeak' });
  });

  it('peak window off, at the floor: a quiet hold no window read is reused and equals full', () => {
    const p = policyNoWindows({ scaleDown: { peakWindowSeconds: 0 } });
    const { first, entry, incremental, full, reused } = twoPasses(p, 2);
    expect(first[0]).toMatchObject({ action: 'hold', replicas: { from: 2, to: 2 }, nodes: [] });
    expect(entry?.clock.readsHolds).toBe(false);
    expect(reused).toBe(1);
    expect(incremental).toHaveLength(full.length);
    incremental.forEach((d, i) => expect(d).toEqual(full[i]));
  });
});
