/**
 * More boundaries of `decideOne`, each with its neighbour: who owns replicas (engine hpa), room in
 * the pool at exactly one slot, the HPA's maximum, stabilisation records that must not count
 * (future, without replicas, beyond the desired count), and the source's window switched off.
 */
import { describe, expect, it } from 'vitest';
import { decideOne } from '../../src/scaling/decide-one.js';
import type { ScalingAction, ScalingInput, ScalingReason } from '../../src/scaling/types.js';
import type { Policy } from '../../src/definitions/types.js';
import { algorithm, baseInput, node, pod, policyNoWindows, recordAgo, RULE_NOW } from './support.js';

const NOW = RULE_NOW;
const hpa = policyNoWindows({ engine: 'hpa' });
const up60 = policyNoWindows({ scaleUp: { stabilizationWindowSeconds: 60 } });
const down300 = policyNoWindows({ scaleDown: { stabilizationWindowSeconds: 300 } });
const pending = (name: string) =>
  pod(name, { nodeName: null, phase: 'Pending', ready: false, unschedulable: true });
const windowed = (utils: number[], covered: (i: number) => number | null = () => 400) => {
  const b = baseInput(utils);
  return {
    ...b,
    samples: b.samples.map((s, i) => ({ ...s, window: { max: s.utilization, coveredSeconds: covered(i) } })),
  };
};

interface Row {
  name: string;
  input: ScalingInput;
  policy?: Policy;
  want: [ScalingAction, ScalingReason, number];
  /** Substrings the message must contain. */
  message?: string[];
}

const rows: Row[] = [
  // ---- Replicas 0, and limits, when the HPA owns replicas. ----
  {
    name: 'ZeroReplicasWithMinReplicasZeroIsNotPaused',
    input: { ...baseInput([]), algorithm: algorithm({ minReplicas: 0 }), replicas: 0, samples: [] },
    want: ['hold', 'NoData', 0],
    message: ['none of its 0 counted pod(s) is Ready'],
  },
  {
    name: 'HpaWithZeroReplicasIsTheHpasBusiness',
    input: { ...baseInput([]), replicas: 0, samples: [] },
    policy: hpa,
    want: ['hold', 'NoData', 0],
  },
  {
    name: 'HpaBelowMinReplicasIsTheHpasBusiness',
    input: { ...baseInput([50]), algorithm: algorithm({ minReplicas: 2 }) },
    policy: hpa,
    want: ['hold', 'HPAOwnsReplicas', 1],
  },
  {
    name: 'HpaAboveMaxReplicasIsTheHpasBusiness',
    input: { ...baseInput([50, 50, 50]), algorithm: algorithm({ maxReplicas: 2 }) },
    policy: hpa,
    want: ['hold', 'HPAOwnsReplicas', 3],
  },
  // ---- The HPA at its maximum: both sides of `current ≥ max` and of `utilisation > max`. ----
  {
    name: 'HpaOneBelowItsMaximumOwnsReplicas',
    input: {
      ...baseInput([95, 95, 95]),
      poolNodes: [node('lt-1', 'long-task', 0)],
      hpa: { currentReplicas: 2, desiredReplicas: 3, maxReplicas: 3 },
    },
    policy: hpa,
    want: ['hold', 'HPAOwnsReplicas', 3],
    message: ['the HPA owns replicas (2, max 3); utilisation 95% over 3 of 3 Ready pod(s)'],
  },
  {
    name: 'HpaAtItsMaximumWithUtilisationExactlyMaxOwnsReplicas',
    input: {
      ...baseInput([80, 80, 80]),
      poolNodes: [node('lt-1', 'long-task', 0)],
      hpa: { currentReplicas: 3, desiredReplicas: 3, maxReplicas: 3 },
    },
    policy: hpa,
    want: ['hold', 'HPAOwnsReplicas', 3],
  },
  {
    name: 'HpaAtItsMaximumWithExactlyOneSlotHolds',
    input: {
      ...baseInput([95, 95, 95]),
      poolNodes: [node('lt-1', 'long-task', 1)],
      hpa: { currentReplicas: 3, desiredReplicas: 3, maxReplicas: 3 },
    },
    policy: hpa,
    want: ['hold', 'HPAOwnsReplicas', 3],
    message: ['has room for 1 pod(s)'],
  },
  {
    name: 'HpaTwoPendingWithRoomForTwoHolds',
    input: {
      ...baseInput([60, 60, 60]),
      replicas: 5,
      pods: [...baseInput().pods, pending('p-3'), pending('p-4')],
      poolNodes: [node('lt-1', 'long-task', 2)],
    },
    policy: hpa,
    want: ['hold', 'HPAOwnsReplicas', 5],
    message: ['2 pod(s) Pending for lack of GPUs, but pool long-task has room for 2 pod(s)'],
  },
  {
    name: 'HpaTwoPendingWithRoomForOneRelabels',
    input: {
      ...baseInput([60, 60, 60]),
      replicas: 5,
      pods: [...baseInput().pods, pending('p-3'), pending('p-4')],
      poolNodes: [node('lt-1', 'long-task', 1)],
    },
    policy: hpa,
    want: ['relabel', 'RelabelUnusedNode', 5],
  },
  // ---- Room in the pool: exactly one slot scales up, none relabels. ----
  {
    name: 'ExactlyOneFreeSlotScalesUpInThePool',
    input: { ...baseInput([95, 95, 95]), poolNodes: [node('lt-1', 'long-task', 1)] },
    want: ['scale-up', 'AboveMax', 4],
  },
  {
    name: 'PendingWithExactlyTheRoomItNeedsWaitsForTheScheduler',
    input: {
      ...baseInput([]),
      replicas: 1,
      pods: [pending('p-0')],
      samples: [],
      poolNodes: [node('lt-1', 'long-task', 1)],
    },
    want: ['hold', 'NoData', 1],
  },
  // ---- Stabilisation: which records count. ----
  {
    name: 'ScaleUpAfterAboveMaxForTheWholeWindow',
    input: {
      ...baseInput([95, 95, 95]),
      recent: [
        recordAgo(200, 'hold', 'WithinRange', 3, 3, 70),
        recordAgo(30, 'hold', 'StabilizationWindow', 3, 3, 95),
      ],
    },
    policy: up60,
    want: ['scale-up', 'AboveMax', 4],
  },
  {
    name: 'ScaleUpStabilisationNeverAboveTheDesiredCount',
    input: {
      ...baseInput([95, 95, 95]),
      poolNodes: [node('lt-1', 'long-task', 8)],
      recent: [
        recordAgo(200, 'hold', 'WithinRange', 3, 3, 70),
        recordAgo(30, 'scale-up', 'AboveMax', 3, 6, 95),
      ],
    },
    policy: up60,
    want: ['scale-up', 'AboveMax', 4],
  },
  {
    name: 'ScaleUpStabilisationIgnoresRecordsWithoutReplicas',
    input: {
      ...baseInput([95, 95, 95]),
      recent: [
        recordAgo(200, 'hold', 'WithinRange', 3, 3, 70),
        recordAgo(30, 'hold', 'NotPlaced', null, null, null),
      ],
    },
    policy: up60,
    want: ['scale-up', 'AboveMax', 4],
  },
  {
    name: 'ScaleUpStabilisationIgnoresRecordsFromTheFuture',
    input: {
      ...baseInput([95, 95, 95]),
      recent: [
        recordAgo(200, 'hold', 'WithinRange', 3, 3, 70),
        recordAgo(-30, 'hold', 'WithinRange', 3, 3, 70),
      ],
    },
    policy: up60,
    want: ['scale-up', 'AboveMax', 4],
  },
  {
    name: 'AFutureRecordDoesNotReachBackTheWindow',
    input: { ...baseInput([95, 95, 95]), recent: [recordAgo(-500, 'hold', 'WithinRange', 3, 3, 70)] },
    policy: up60,
    want: ['hold', 'StabilizationWindow', 3],
  },
  {
    name: 'ScaleDownStabilisationNeverBelowTheDesiredCount',
    input: {
      ...baseInput([10, 10, 10]),
      recent: [
        recordAgo(400, 'hold', 'WithinRange', 3, 3, 50),
        recordAgo(100, 'scale-down', 'BelowMin', 3, 1, 10),
      ],
    },
    policy: down300,
    want: ['scale-down', 'BelowMin', 2],
  },
  {
    name: 'ScaleUpStabilisationWithTheSourcesWindowIsNoInstant',
    input: windowed([95, 95, 95]),
    policy: up60,
    want: ['hold', 'StabilizationWindow', 3],
    message: ['> max 80%; no recorded pass reaches back the 60s scale-up stabilisation window yet'],
  },
  // ---- The source's own history over the scale-down window. ----
  {
    name: 'SomeSamplesWithoutHistoryFallBackToRecordedPasses',
    input: {
      ...windowed([10, 10, 10]),
      samples: windowed([10, 10, 10]).samples.map((s, i) => (i === 1 ? { ...s, window: undefined } : s)),
    },
    policy: down300,
    want: ['hold', 'StabilizationWindow', 3],
    message: ['< min 30%; no recorded pass reaches back the 300s scale-down stabilisation window yet'],
  },
  {
    name: 'WindowOffIgnoresTheSourcesHistory',
    input: windowed([10, 10, 10], () => 5),
    want: ['scale-down', 'BelowMin', 2],
    message: ['< min 30%; scaling 3 → 2 (predicted 15%)'],
  },
  // ---- Predicted utilisation after a scale-down counts the Ready pods only. ----
  {
    name: 'PredictionWithPodsNotReadyKeepsTheReadyPodsLoad',
    input: {
      ...baseInput([10, 10]),
      replicas: 4,
      pods: [...baseInput([10, 10]).pods, pod('s-0', { ready: false }), pod('s-1', { ready: false })],
    },
    want: ['scale-down', 'BelowMin', 3],
    message: ['scaling 4 → 3 (predicted 10%)'],
  },
  {
    name: 'PredictionWithPodsNotReadyFromTheSourcesWindow',
    input: {
      ...windowed([10, 10]),
      replicas: 4,
      pods: [...baseInput([10, 10]).pods, pod('s-0', { ready: false }), pod('s-1', { ready: false })],
    },
    policy: down300,
    want: ['scale-down', 'BelowMin', 3],
    message: ['scaling 4 → 3 (predicted 10%)'],
  },
];

describe('decide: more boundaries', () => {
  it.each(rows)('$name', (row) => {
    const d = decideOne(row.input, row.policy ?? policyNoWindows(), NOW);
    expect([d.action, d.reason, d.replicas.to]).toEqual(row.want);
    for (const m of row.message ?? []) expect(d.message).toContain(m);
  });
});
