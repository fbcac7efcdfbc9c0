/**
 * The message of each scaling decision, word for word: `plan`, the log and the pull request body
 * print it, and a person reads it to know why replicas did (not) change. One row per reason and
 * per variant of its wording; each carries the figures it was decided on.
 */
import { describe, expect, it } from 'vitest';
import { decideOne } from '../../src/scaling/decide-one.js';
import type { ScalingInput } from '../../src/scaling/types.js';
import type { Policy } from '../../src/definitions/types.js';
import type { DecisionRecord } from '../../src/store/types.js';
import {
  algorithm,
  baseInput as B,
  node,
  pod,
  policy,
  policyNoWindows,
  sample,
  secondsAgo,
} from './support.js';

const NOW = new Date('2025-06-01T12:00:00Z');
const ago = (s: number) => new Date(NOW.getTime() - s * 1000).toISOString();
const change = (s: number, from: number, to: number, u: number | null = 95): DecisionRecord => ({
  kind: 'scaling',
  subject: 'resnet50-infer',
  action: to > from ? 'scale-up' : 'scale-down',
  reason: to > from ? 'AboveMax' : 'BelowMin',
  message: '',
  replicasFrom: from,
  replicasTo: to,
  utilization: u,
  at: ago(s),
});
const hold = (s: number, reason: string, replicas: number, u: number | null): DecisionRecord => ({
  ...change(s, replicas, replicas, u),
  action: 'hold',
  reason,
});
const pending = (name: string) =>
  pod(name, { nodeName: null, phase: 'Pending', ready: false, unschedulable: true });
const hpa = (o = {}) => policyNoWindows({ engine: 'hpa', ...o });

interface Row {
  name: string;
  input: ScalingInput;
  policy?: Policy;
  message: string;
}

const rows: Row[] = [];
/** A row: name, input, then the policy (default: no windows) and the exact message. */
function row(name: string, input: ScalingInput, p: Policy | string, message?: string): void {
  if (typeof p === 'string') rows.push({ name, input, message: p });
  else rows.push({ name, input, policy: p, message: message! });
}
const down300 = policyNoWindows({ scaleDown: { stabilizationWindowSeconds: 300 } });
const windowed = (max: (i: number) => number, covered: (i: number) => number | null) => ({
  ...B([10, 10, 10]),
  samples: B([10, 10, 10]).samples.map((s, i) => ({
    ...s,
    window: { max: max(i), coveredSeconds: covered(i) },
  })),
});

row(
  'ScaledToZero',
  { ...B([]), replicas: 0, samples: [], algorithm: algorithm({ minReplicas: 2 }) },
  'resnet50-infer: replicas are 0 in Git (minReplicas 2): a Deployment scaled to zero is paused by a person, as the HPA treats it; scaling resumes once replicas are above 0',
);
row(
  'NotPlacedNone',
  { ...B([95]), pool: null },
  'resnet50-infer: its Deployment in Git is not pinned to long-task or short-task (pool: none); replicas stay at 1 until a placement pins it',
);
row(
  'NotPlacedUnused',
  { ...B([95]), pool: 'unused' },
  'resnet50-infer: its Deployment in Git is not pinned to long-task or short-task (pool: unused); replicas stay at 1 until a placement pins it',
);
row(
  'BelowMinReplicas',
  { ...B([]), replicas: 1, samples: [], pods: [], algorithm: algorithm({ minReplicas: 3 }) },
  'resnet50-infer: replicas 1 in Git are below minReplicas 3; scaling 1 → 3 (utilisation n/a)',
);
row(
  'AboveMaxReplicas',
  { ...B([95, 95, 95]), algorithm: algorithm({ maxReplicas: 2 }) },
  'resnet50-infer: replicas 3 in Git are above maxReplicas 2; scaling 3 → 2 (utilisation 95%)',
);
row(
  'NoDataNoneReady',
  { ...B([50, 50]), pods: B([50, 50]).pods.map((p) => ({ ...p, ready: false, startedAt: secondsAgo(60) })) },
  'resnet50-infer: none of its 2 counted pod(s) is Ready, so no GPU sample can count; utilisation unknown, replicas stay at 2',
);
row(
  'NoDataNoneReadyAndOneStuckPastItsStartUp',
  {
    ...B([50, 50]),
    pods: B([50, 50]).pods.map((p, i) => ({
      ...p,
      ready: false,
      startedAt: secondsAgo(i === 0 ? 60 : 7200),
    })),
  },
  'resnet50-infer: none of its 2 counted pod(s) is Ready, so no GPU sample can count; utilisation unknown, replicas stay at 2 (note: 1 replica(s) not Ready past the start-up bound of 300 s, left out of capacity and utilisation: algorithms/resnet50-infer-7d9f-1 (started 2 h ago))',
);
row(
  'NoDataNoSeries',
  { ...B([50, 50]), samples: [] },
  'resnet50-infer: no usable GPU sample for any of 2 Ready pod(s) (no series of the source names them); utilisation unknown, replicas stay at 2',
);
row(
  'NoDataDropped',
  { ...B([50, 50]), samples: [], dropped: 'Stale: 2 (oldest 300 s)' },
  'resnet50-infer: no usable GPU sample for any of 2 Ready pod(s) (series dropped: Stale: 2 (oldest 300 s)); utilisation unknown, replicas stay at 2',
);
row(
  'NoDataSource',
  { ...B([50, 50]), samples: [], noDataMessage: 'no GPU metrics (Unreachable): x' },
  'resnet50-infer: no GPU metrics (Unreachable): x; utilisation unknown, replicas stay at 2',
);
row(
  'PendingRelabel',
  {
    ...B([]),
    replicas: 1,
    pods: [pending('p0')],
    samples: [],
    poolNodes: [],
    algorithm: algorithm({ gpus: 4 }),
  },
  'resnet50-infer: 1 pod(s) Pending: pool long-task has no room for 1 more pod(s) of 4 GPU(s); pool long-task has no room for a pod of 4 GPU(s), moving unused node(s) a-unused-t4 (Tesla-T4, 4 GPUs: smallest unused node that fits 1 replica) into it; replicas stay at 1',
);
row(
  'PendingCooldown',
  {
    ...B([]),
    replicas: 1,
    pods: [pending('p0')],
    samples: [],
    poolNodes: [],
    recent: [change(10, 1, 1)].map((r) => ({ ...r, action: 'relabel' })),
  },
  policyNoWindows({ scaleUp: { cooldownSeconds: 120 } }),
  'resnet50-infer: 1 pod(s) Pending: pool long-task has no room for 1 more pod(s) of 1 GPU(s); last change 10s ago, scale-up cooldown is 120s',
);
row(
  'HpaOwns',
  B([95, 95, 95]),
  hpa(),
  'resnet50-infer: the HPA owns replicas (3, max 8); utilisation 95% over 3 of 3 Ready pod(s)',
);
row(
  'HpaAtMaxRoom',
  { ...B([95, 95, 95]), hpa: { currentReplicas: 3, desiredReplicas: 3, maxReplicas: 3 } },
  hpa(),
  'resnet50-infer: the HPA sits at its maximum of 3 replicas with utilisation 95% > max 80%, but pool long-task has room for 1 pod(s); the HPA owns replicas',
);
row(
  'HpaAtMaxRelabel',
  {
    ...B([95, 95, 95]),
    poolNodes: [node('lt-1', 'long-task', 0)],
    hpa: { currentReplicas: 3, desiredReplicas: 3, maxReplicas: 3 },
  },
  hpa(),
  "resnet50-infer: the HPA sits at its maximum of 3 replicas with utilisation 95% > max 80%; pool long-task has no room for a pod of 1 GPU(s), moving unused node(s) z-unused-a100 (NVIDIA-A100-SXM4-80GB, 8 GPUs: smallest unused node of the pool's product that fits 1 replica) into it; replicas stay at 3",
);
row(
  'HpaPendingCooldown',
  {
    ...B([60, 60]),
    replicas: 3,
    pods: [...B([60, 60]).pods, pending('p2')],
    poolNodes: [node('lt-1', 'long-task', 0)],
    recent: [change(30, 2, 3)],
  },
  hpa({ scaleUp: { cooldownSeconds: 120 } }),
  'resnet50-infer: 1 pod(s) Pending for lack of GPUs; last change 30s ago, scale-up cooldown is 120s',
);
row(
  'WithinRange',
  B([50, 60, 70]),
  'resnet50-infer: utilisation 60% over 3 of 3 Ready pod(s) is within 30–80%; replicas stay at 3',
);
row(
  'AtMinReplicas',
  { ...B([5, 5, 5]), algorithm: algorithm({ minReplicas: 3 }) },
  'resnet50-infer: utilisation 5% over 3 of 3 Ready pod(s) < min 30%, but replicas 3 are at minReplicas 3',
);
row(
  'InsufficientSamplesDown',
  { ...B([10, 10, 10]), samples: [sample('resnet50-infer-7d9f-0', 10)], dropped: 'Stale: 2 (oldest 300 s)' },
  'resnet50-infer: utilisation 10% over 1 of 3 Ready pod(s) < min 30%, but only 1 of 3 Ready pod(s) have a sample (series dropped: Stale: 2 (oldest 300 s)); never scale down on partial data (the HPA never scales down on missing metrics)',
);
row(
  'WouldFlap',
  { ...B([29, 29, 29]), algorithm: algorithm({ min: 30, max: 40 }) },
  'resnet50-infer: utilisation 29% over 3 of 3 Ready pod(s) < min 30%, but 3 → 2 would put it at 43.5% > max 40%',
);
row(
  'CooldownDown',
  { ...B([10, 10, 10]), recent: [change(200, 2, 3)] },
  policyNoWindows({ scaleDown: { cooldownSeconds: 300 } }),
  'resnet50-infer: utilisation 10% over 3 of 3 Ready pod(s) < min 30%; last change 200s ago, scale-down cooldown is 300s',
);
row(
  'StabilisationHighest',
  { ...B([10, 10, 10]), recent: [hold(400, 'WithinRange', 3, 50), hold(100, 'WithinRange', 3, 50)] },
  down300,
  'resnet50-infer: utilisation 10% over 3 of 3 Ready pod(s) < min 30%; the highest recommendation in the last 300s is 3',
);
row(
  'StabilisationNoPass',
  { ...B([10, 10, 10]), recent: [] },
  down300,
  'resnet50-infer: utilisation 10% over 3 of 3 Ready pod(s) < min 30%; one instant is no evidence over the 300s scale-down stabilisation window, and no recorded pass reaches back the 300s scale-down stabilisation window yet',
);
row(
  'StabilisationNoPassWindowed',
  windowed(
    () => 12,
    () => 100,
  ),
  down300,
  "resnet50-infer: utilisation 10% over 3 of 3 Ready pod(s) < min 30%; the source's samples reach back 100s of the 300s scale-down stabilisation window; waits until they cover it",
);
row(
  'SourceWindowPartlyUnknown',
  windowed(
    () => 12,
    (i) => (i === 0 ? null : 400),
  ),
  down300,
  "resnet50-infer: utilisation 10% over 3 of 3 Ready pod(s) < min 30%; the source's samples reach back less than the window of the 300s scale-down stabilisation window; waits until they cover it",
);
row(
  'SourceWindowShort',
  windowed(
    () => 12,
    (i) => 250.7 + i,
  ),
  down300,
  "resnet50-infer: utilisation 10% over 3 of 3 Ready pod(s) < min 30%; the source's samples reach back 250s of the 300s scale-down stabilisation window; waits until they cover it",
);
row(
  'SourceWindowHigh',
  windowed(
    (i) => 30 + i,
    () => 300,
  ),
  down300,
  'resnet50-infer: utilisation 10% over 3 of 3 Ready pod(s) < min 30%; the highest utilisation in the last 300s is 31% ≥ min 30% (scale-down stabilisation window)',
);
row(
  'SourceWindowScaleDown',
  windowed(
    (i) => 20 + i,
    () => 300,
  ),
  down300,
  "resnet50-infer: utilisation 10% over 3 of 3 Ready pod(s) < min 30%, and below it for the whole 300s stabilisation window (highest 21% in the source's samples); scaling 3 → 2 (predicted 15%)",
);
row(
  'BelowMin',
  B([10, 20, 30]),
  'resnet50-infer: utilisation 20% over 3 of 3 Ready pod(s) < min 30%; scaling 3 → 2 (predicted 30%)',
);
row(
  'BelowMinRecorded',
  { ...B([10, 10, 10]), recent: [hold(300, 'StabilizationWindow', 3, 10)] },
  down300,
  'resnet50-infer: utilisation 10% over 3 of 3 Ready pod(s) < min 30%; scaling 3 → 2 (predicted 15%)',
);
row(
  'AtMaxReplicas',
  { ...B([95, 95, 95]), algorithm: algorithm({ maxReplicas: 3 }) },
  'resnet50-infer: utilisation 95% over 3 of 3 Ready pod(s) > max 80%, but replicas 3 are at maxReplicas 3',
);
row(
  'PodsStarting',
  {
    ...B([90, 90, 90]),
    replicas: 4,
    pods: [...B([90, 90, 90]).pods, pod('s0', { ready: false, startedAt: secondsAgo(299) })],
    poolNodes: [node('lt-1', 'long-task', 8)],
  },
  'resnet50-infer: utilisation 90% over 3 of 3 Ready pod(s) > max 80%, but 1 replica(s) are starting: with them Ready it is 67.5% ≤ max 80%; replicas stay at 4',
);
row(
  'APodUnreadyPastItsStartUpHoldsNoScaleUp',
  {
    ...B([90, 90, 90]),
    replicas: 4,
    pods: [...B([90, 90, 90]).pods, pod('s0', { ready: false, startedAt: secondsAgo(300) })],
    poolNodes: [node('lt-1', 'long-task', 8)],
  },
  'resnet50-infer: utilisation 90% over 3 of 3 Ready pod(s) > max 80%; scaling 4 → 5 on pool long-task (note: 1 replica(s) not Ready past the start-up bound of 300 s, left out of capacity and utilisation: algorithms/s0 (started 5 min ago))',
);
row(
  'CooldownUp',
  { ...B([95, 95, 95]), recent: [change(60, 2, 3)] },
  policy(),
  'resnet50-infer: utilisation 95% over 3 of 3 Ready pod(s) > max 80%; last change 60s ago, scale-up cooldown is 120s',
);
row(
  'StabilisationUpLowest',
  { ...B([95, 95, 95]), recent: [hold(200, 'WithinRange', 3, 70), hold(30, 'WithinRange', 3, 70)] },
  policyNoWindows({ scaleUp: { stabilizationWindowSeconds: 60 } }),
  'resnet50-infer: utilisation 95% over 3 of 3 Ready pod(s) > max 80%; the lowest recommendation in the last 60s is 3',
);
row(
  'StabilisationUpNoPass',
  B([95, 95, 95]),
  policyNoWindows({ scaleUp: { stabilizationWindowSeconds: 60 } }),
  'resnet50-infer: utilisation 95% over 3 of 3 Ready pod(s) > max 80%; one instant is no evidence over the 60s scale-up stabilisation window, and no recorded pass reaches back the 60s scale-up stabilisation window yet',
);
row(
  'AboveMax',
  B([90, 95, 100]),
  'resnet50-infer: utilisation 95% over 3 of 3 Ready pod(s) > max 80%; scaling 3 → 4 on pool long-task',
);
row(
  'AboveMaxBounded',
  B([95, 95, 95]),
  policyNoWindows({ step: 3 }),
  'resnet50-infer: utilisation 95% over 3 of 3 Ready pod(s) > max 80%; scaling 3 → 5 on pool long-task (bounded by free GPUs: room for 2 more pod(s) of 1 GPU(s))',
);
row(
  'Relabel',
  { ...B([95, 95, 95]), poolNodes: [node('lt-1', 'long-task', 0)] },
  "resnet50-infer: utilisation 95% over 3 of 3 Ready pod(s) > max 80%; pool long-task has no room for a pod of 1 GPU(s), moving unused node(s) z-unused-a100 (NVIDIA-A100-SXM4-80GB, 8 GPUs: smallest unused node of the pool's product that fits 1 replica) into it, then scaling 3 → 4",
);
row(
  'RelabelNoProduct',
  {
    ...B([95, 95, 95]),
    poolNodes: [node('lt-1', 'long-task', 0)],
    unusedNodes: [node('u', 'unused', 2, null)],
  },
  'resnet50-infer: utilisation 95% over 3 of 3 Ready pod(s) > max 80%; pool long-task has no room for a pod of 1 GPU(s), moving unused node(s) u (no product label, 2 GPUs: smallest unused node that fits 1 replica) into it, then scaling 3 → 4',
);
row(
  'RelabelPartial',
  {
    ...B([95, 95, 95]),
    poolNodes: [node('lt-1', 'long-task', 0)],
    samples: [sample('resnet50-infer-7d9f-0', 95)],
  },
  'resnet50-infer: utilisation 95% over 1 of 3 Ready pod(s) > max 80%, but only 1 of 3 Ready pod(s) have a sample; no node is moved on partial data',
);
row(
  'NoCapacity',
  {
    ...B([95, 95, 95]),
    poolNodes: [node('lt-1', 'long-task', 0)],
    unusedNodes: [node('u', 'unused', 0)],
    algorithm: algorithm({ gpus: 2 }),
  },
  'resnet50-infer: utilisation 95% over 3 of 3 Ready pod(s) > max 80%; no node of pool long-task has 2 free GPU(s) and no unused node does either (1 unused node(s))',
);
row(
  'FlagNote',
  {
    ...B([50, 50, 50]),
    flags: [
      { kind: 'TimeSlicedGpu', gpu: 'G', pods: [], countedFor: '', message: 'GPU G is time-sliced' },
      { kind: 'TimeSlicedGpu', gpu: 'H', pods: [], countedFor: '', message: 'GPU H too' },
    ],
  },
  'resnet50-infer: utilisation 50% over 3 of 3 Ready pod(s) is within 30–80%; replicas stay at 3 (note: GPU G is time-sliced; GPU H too)',
);
row(
  'RelabelSeveralNodes',
  {
    ...B([95, 95, 95]),
    algorithm: algorithm({ gpus: 4 }),
    poolNodes: [node('lt-1', 'long-task', 0)],
    unusedNodes: [node('u-3', 'unused', 4), node('u-1', 'unused', 4), node('u-2', 'unused', 4, 'Tesla-T4')],
  },
  policyNoWindows({ step: 3 }),
  // Same GPU product as the pool first (u-1, u-3), then the others (u-2), each by name.
  "resnet50-infer: utilisation 95% over 3 of 3 Ready pod(s) > max 80%; pool long-task has no room for a pod of 4 GPU(s), moving unused node(s) u-1 (NVIDIA-A100-SXM4-80GB, 4 GPUs: largest unused node of the pool's product, fits 1 of 3 replicas), u-3 (NVIDIA-A100-SXM4-80GB, 4 GPUs: largest unused node of the pool's product, fits 1 of 2 replicas), u-2 (Tesla-T4, 4 GPUs: smallest unused node that fits 1 replica) into it, then scaling 3 → 6",
);

describe('decide: the message a person reads', () => {
  it.each(rows)('$name', (row) => {
    expect(decideOne(row.input, row.policy ?? policyNoWindows(), NOW).message).toBe(row.message);
  });
});
