/**
 * The scale-down peak window (policy `scaling.scaleDown.peakWindowSeconds`, `recentPeak` in
 * `scaling/history.ts`, rule 5 of `decideOne`): a scale-down goes no lower than the replicas that
 * keep the highest load recorded in the window (utilisation × replicas) at or below max, and is
 * held (`RecentPeak`) when that is the current count. Each boundary with its neighbour: the peak
 * exactly at max on the smaller count, a record exactly the window old, the window off, records
 * without a utilisation or a replica count, records of other subjects and kinds, and where the
 * rule sits among the others.
 */
import { describe, expect, it } from 'vitest';
import { decideOne } from '../../src/scaling/decide-one.js';
import { historySince, recentPeak } from '../../src/scaling/history.js';
import type { DecisionRecord, ScalingAction, ScalingInput, ScalingReason } from '../../src/scaling/types.js';
import type { Policy } from '../../src/definitions/types.js';
import { algorithm, baseInput, policyNoWindows, scalingRecord } from './support.js';

const NOW = new Date('2025-06-01T12:00:00Z');
const HOUR = 3600;
const at = (s: number) => new Date(NOW.getTime() - s * 1000).toISOString();
/** A hold `WithinRange` `s` seconds ago on `from` replicas at `u` % (load `from × u`). */
const held = (s: number, from: number | null, u: number | null) =>
  scalingRecord(at(s), 'hold', 'WithinRange', from, from, u);
const peakPolicy = (
  seconds: number | undefined,
  more: Parameters<typeof policyNoWindows>[0] = {},
): Policy => {
  const p = policyNoWindows({ ...more, scaleDown: { ...more.scaleDown, peakWindowSeconds: seconds } });
  if (seconds === undefined) delete p.spec.scaling.scaleDown.peakWindowSeconds;
  return p;
};
/** Four Ready pods at 20 % (load 80 GPU-percent): below min 30, step sizing wants 4 → 3. */
const low = (recent: DecisionRecord[], utils = [20, 20, 20, 20]): ScalingInput => ({
  ...baseInput(utils),
  recent,
});

interface Row {
  name: string;
  input: ScalingInput;
  policy: Policy;
  want: [ScalingAction, ScalingReason, number];
  /** Substrings the message must contain. */
  message?: string[];
}

const rows: Row[] = [
  // ---- The window off: the peak does not count. ----
  {
    name: 'WindowZeroIgnoresAnyPeak',
    input: low([held(60, 4, 100)]),
    policy: peakPolicy(0),
    want: ['scale-down', 'BelowMin', 3],
  },
  {
    name: 'WindowAbsentIsOff',
    input: low([held(60, 4, 100)]),
    policy: peakPolicy(undefined),
    want: ['scale-down', 'BelowMin', 3],
  },
  // ---- The peak on the smaller count: exactly max allows the scale-down, above it holds. ----
  {
    name: 'PeakExactlyAtMaxOnTheSmallerCountScales',
    input: low([held(600, 4, 60)]),
    policy: peakPolicy(HOUR),
    want: ['scale-down', 'BelowMin', 3],
  },
  {
    name: 'PeakJustAboveMaxOnTheSmallerCountHolds',
    input: low([held(600, 4, 60.1)]),
    policy: peakPolicy(HOUR),
    want: ['hold', 'RecentPeak', 4],
    message: [
      'the highest load in the last 3600s (60.1% on 4 replica(s) at 2025-06-01T11:50:00.000Z)',
      '4 → 3 at 80.1% > max 80%; replicas stay at 4',
    ],
  },
  {
    name: 'PeakJustBelowMaxOnTheSmallerCountScales',
    input: low([held(600, 4, 59.9)]),
    policy: peakPolicy(HOUR),
    want: ['scale-down', 'BelowMin', 3],
  },
  {
    name: 'MaxIsTheAlgorithmsOwn',
    input: { ...low([held(600, 4, 50)]), algorithm: algorithm({ max: 60 }) },
    policy: peakPolicy(HOUR),
    want: ['hold', 'RecentPeak', 4],
    message: ['at 66.7% > max 60%'],
  },
  // ---- The window's edge. ----
  {
    name: 'RecordExactlyTheWindowOldCounts',
    input: low([held(HOUR, 4, 90)]),
    policy: peakPolicy(HOUR),
    want: ['hold', 'RecentPeak', 4],
  },
  {
    name: 'RecordOneSecondOlderThanTheWindowDoesNot',
    input: low([held(HOUR + 1, 4, 90)]),
    policy: peakPolicy(HOUR),
    want: ['scale-down', 'BelowMin', 3],
  },
  {
    name: 'RecordInTheFutureDoesNotCount',
    input: low([held(-1, 4, 90)]),
    policy: peakPolicy(HOUR),
    want: ['scale-down', 'BelowMin', 3],
  },
  {
    name: 'RecordAtNowCounts',
    input: low([held(0, 4, 90)]),
    policy: peakPolicy(HOUR),
    want: ['hold', 'RecentPeak', 4],
  },
  // ---- Missing samples: no evidence, the rule does not apply. ----
  {
    name: 'NoRecordsAtAllScales',
    input: low([]),
    policy: peakPolicy(HOUR),
    want: ['scale-down', 'BelowMin', 3],
  },
  {
    name: 'RecordWithoutUtilisationDoesNotCount',
    input: low([held(600, 4, null)]),
    policy: peakPolicy(HOUR),
    want: ['scale-down', 'BelowMin', 3],
  },
  {
    name: 'RecordWithoutReplicasDoesNotCount',
    input: low([held(600, null, 95)]),
    policy: peakPolicy(HOUR),
    want: ['scale-down', 'BelowMin', 3],
  },
  {
    name: 'OtherAlgorithmsRecordDoesNotCount',
    input: low([{ ...held(600, 4, 95), subject: 'other' }]),
    policy: peakPolicy(HOUR),
    want: ['scale-down', 'BelowMin', 3],
  },
  {
    name: 'PoolsRecordDoesNotCount',
    input: low([{ ...held(600, 4, 95), kind: 'pools' }]),
    policy: peakPolicy(HOUR),
    want: ['scale-down', 'BelowMin', 3],
  },
  // ---- The highest load wins, whatever the order; load is utilisation × replicas. ----
  {
    name: 'HighestOfSeveralHoldsHighFirst',
    input: low([held(900, 4, 70), held(300, 4, 25)]),
    policy: peakPolicy(HOUR),
    want: ['hold', 'RecentPeak', 4],
  },
  {
    name: 'HighestOfSeveralHoldsHighLast',
    input: low([held(300, 4, 25), held(900, 4, 70)]),
    policy: peakPolicy(HOUR),
    want: ['hold', 'RecentPeak', 4],
  },
  {
    name: 'LowerUtilisationOnMoreReplicasIsTheHigherLoad',
    input: low([held(900, 8, 35)]),
    policy: peakPolicy(HOUR),
    want: ['hold', 'RecentPeak', 4],
    message: ['35% on 8 replica(s)', 'at 93.3% > max 80%'],
  },
  {
    name: 'AScaleUpRecordCountsItsLoad',
    input: low([scalingRecord(at(1200), 'scale-up', 'AboveMax', 3, 4, 90)]),
    policy: peakPolicy(HOUR),
    want: ['hold', 'RecentPeak', 4],
  },
  // ---- The Ready pods the message names, not the replicas starting, carry the load. ----
  {
    name: 'ReplicasStartingDoNotInflateThePeak',
    input: low([
      {
        ...held(600, 6, 70),
        reason: 'PodsStarting',
        message: 'resnet50-infer: utilisation 70% over 3 of 3 Ready pod(s) > max 80%',
      },
    ]),
    policy: peakPolicy(HOUR),
    want: ['scale-down', 'BelowMin', 3],
  },
  {
    name: 'TheSameRecordWithoutTheCountStandsForEveryReplica',
    input: low([{ ...held(600, 6, 70), reason: 'PodsStarting', message: '' }]),
    policy: peakPolicy(HOUR),
    want: ['hold', 'RecentPeak', 4],
    message: ['70% on 6 replica(s)'],
  },
  {
    name: 'ReadyCountAboveReplicasCountsTheReplicas',
    input: low([
      { ...held(600, 3, 90), message: 'resnet50-infer: utilisation 90% over 5 of 5 Ready pod(s)' },
    ]),
    policy: peakPolicy(HOUR),
    want: ['hold', 'RecentPeak', 4],
    message: ['90% on 3 replica(s)', 'at 90% > max 80%'],
  },
  // ---- Load sizing: the target goes no lower than the peak needs. ----
  {
    name: 'LoadSizingStopsWhereThePeakFits',
    input: low([held(600, 4, 50)], [10, 10, 10, 10]),
    policy: peakPolicy(HOUR, { sizing: 'load' }),
    want: ['scale-down', 'BelowMin', 3],
    message: ['scaling 4 → 3 (not 1: the highest load in the last 3600s would put it at 200% > max 80%)'],
  },
  {
    name: 'LoadSizingPeakExactlyAtMaxOnTwo',
    input: low([held(600, 4, 40)], [10, 10, 10, 10]),
    policy: peakPolicy(HOUR, { sizing: 'load' }),
    want: ['scale-down', 'BelowMin', 2],
  },
  {
    name: 'LoadSizingWithoutAPeakGoesAllTheWay',
    input: low([held(600, 4, 20)], [10, 10, 10, 10]),
    policy: peakPolicy(HOUR, { sizing: 'load' }),
    want: ['scale-down', 'BelowMin', 1],
  },
  {
    name: 'LoadSizingPeakNeedingEveryReplicaHolds',
    input: low([held(600, 4, 61)], [10, 10, 10, 10]),
    policy: peakPolicy(HOUR, { sizing: 'load' }),
    want: ['hold', 'RecentPeak', 4],
  },
  // ---- Where the rule sits: after minReplicas, samples and WouldFlap; before the cooldown. ----
  {
    name: 'AtMinReplicasComesFirst',
    input: { ...low([held(600, 4, 95)]), algorithm: algorithm({ minReplicas: 4 }) },
    policy: peakPolicy(HOUR),
    want: ['hold', 'AtMinReplicas', 4],
  },
  {
    name: 'PartialSamplesComeFirst',
    input: { ...low([held(600, 4, 95)]), samples: baseInput([20, 20, 20, 20]).samples.slice(1) },
    policy: peakPolicy(HOUR),
    want: ['hold', 'InsufficientSamples', 4],
  },
  {
    name: 'WouldFlapComesFirst',
    input: { ...low([held(600, 2, 95)], [29, 29]), algorithm: algorithm({ max: 50 }) },
    policy: peakPolicy(HOUR),
    want: ['hold', 'WouldFlap', 2],
  },
  {
    name: 'PeakBeforeCooldown',
    input: low([scalingRecord(at(60), 'scale-down', 'BelowMin', 5, 4, 60.1)]),
    policy: peakPolicy(HOUR, { scaleDown: { cooldownSeconds: 300 } }),
    want: ['hold', 'RecentPeak', 4],
  },
  {
    name: 'CooldownStillHoldsWhenThePeakFits',
    input: low([scalingRecord(at(60), 'scale-down', 'BelowMin', 5, 4, 48)]),
    policy: peakPolicy(HOUR, { scaleDown: { cooldownSeconds: 300 } }),
    want: ['hold', 'CooldownActive', 4],
  },
];

describe('decide: scale-down peak window', () => {
  it.each(rows)('$name', ({ input, policy, want, message }) => {
    const d = decideOne(input, policy, NOW);
    expect([d.action, d.reason, d.replicas.to]).toEqual(want);
    for (const m of message ?? []) expect(d.message).toContain(m);
  });
});

describe('recentPeak', () => {
  it('takes the first of equal loads and reports its record', () => {
    const first = held(900, 4, 50);
    const second = held(300, 2, 100);
    expect(recentPeak([first, second], NOW.getTime(), HOUR)).toEqual({
      load: 200,
      utilization: 50,
      replicas: 4,
      at: first.at,
    });
  });

  it('is null with the window off or negative, and without evidence', () => {
    const r = [held(60, 4, 90)];
    expect(recentPeak(r, NOW.getTime(), 0)).toBeNull();
    expect(recentPeak(r, NOW.getTime(), -1)).toBeNull();
    expect(recentPeak([], NOW.getTime(), HOUR)).toBeNull();
    expect(recentPeak([held(60, 4, null)], NOW.getTime(), HOUR)).toBeNull();
    expect(recentPeak(r, NOW.getTime(), 59)).toBeNull();
    expect(recentPeak(r, NOW.getTime(), 60)?.load).toBe(360);
  });
});

describe('historySince', () => {
  it('reaches back twice the peak window when it is the longest', () => {
    const p = peakPolicy(HOUR, { scaleDown: { stabilizationWindowSeconds: 300 } });
    expect(historySince(p, NOW)).toBe(at(2 * HOUR));
    expect(historySince(peakPolicy(undefined, { scaleDown: { stabilizationWindowSeconds: 300 } }), NOW)).toBe(
      at(600),
    );
  });
});
