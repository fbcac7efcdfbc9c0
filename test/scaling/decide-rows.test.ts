/**
 * Rows for rules of `decideOne` the other files pin only on one side: whose records count, a record
 * stamped exactly now, unused nodes of one product class by name, what BelowMinReplicas claims,
 * Pending pods that are not Unschedulable, the HPA's cooldown message, and `decideInTurn` with an
 * empty pool or no unused node. Plus the history and sizing rows those decisions rest on.
 */
import { describe, expect, it } from 'vitest';
import { claimsOf } from '../../src/scaling/claims.js';
import { countedPods } from '../../src/scaling/counted-pods.js';
import { decideInTurn } from '../../src/scaling/decide-in-turn.js';
import { decideOne } from '../../src/scaling/decide-one.js';
import { recommendationOf } from '../../src/scaling/history.js';
import { sizeForLoad } from '../../src/scaling/size-for-load.js';
import type { DecisionRecord, ScalingInput } from '../../src/scaling/types.js';
import type { Policy } from '../../src/definitions/types.js';
import { algorithm, baseInput, node, pod, policyNoWindows, scalingRecord } from './support.js';

const NOW = new Date('2025-06-01T12:00:00Z');
const ago = (s: number) => new Date(NOW.getTime() - s * 1000).toISOString();
const pending = pod('p-new', {
  nodeName: null,
  ready: false,
  phase: 'Pending',
  startedAt: null,
  createdAt: ago(10),
});

interface Row {
  name: string;
  input: ScalingInput;
  policy: Policy;
  /** `action reason from→to`. */
  want: string;
  message?: string;
  nodes?: string[];
  claims?: [string, number][];
}

const rows: Row[] = [
  {
    name: 'OtherAlgorithmsAndOtherKindsOfRecordStartNoCooldown',
    input: {
      ...baseInput([10, 10, 10]),
      recent: [
        { ...scalingRecord(ago(10), 'scale-down', 'BelowMin', 4, 3, 10), subject: 'other-alg' },
        { ...scalingRecord(ago(10), 'scale-down', 'BelowMin', 4, 3, 10), kind: 'placement' },
      ],
    },
    policy: policyNoWindows({ scaleDown: { cooldownSeconds: 300 } }),
    want: 'scale-down BelowMin 3→2',
  },
  {
    name: 'ARecordStampedExactlyNowIsInsideTheStabilisationWindow',
    input: {
      ...baseInput([95, 95, 95]),
      recent: [
        scalingRecord(ago(120), 'hold', 'WithinRange', 3, 3, 50),
        scalingRecord(NOW.toISOString(), 'hold', 'WithinRange', 3, 3, 50),
      ],
    },
    policy: policyNoWindows({ scaleUp: { stabilizationWindowSeconds: 60 } }),
    want: 'hold StabilizationWindow 3→3',
    message:
      'utilisation 95% over 3 of 3 Ready pod(s) > max 80%; the lowest recommendation in the last 60s is 3',
  },
  {
    name: 'UnusedNodesOfOneProductClassGoByName',
    input: {
      ...baseInput([95, 95, 95]),
      poolNodes: [node('lt-1', 'long-task', 0)],
      unusedNodes: [
        node('u-c', 'unused', 1, 'Tesla-T4'),
        node('u-a', 'unused', 1, 'Tesla-T4'),
        node('u-b', 'unused', 1, 'Tesla-T4'),
      ],
    },
    policy: policyNoWindows(),
    want: 'relabel RelabelUnusedNode 3→4',
    nodes: ['u-a'],
  },
  {
    name: 'BelowMinReplicasClaimsOnlyTheMissingReplicas',
    input: {
      ...baseInput([50]),
      algorithm: algorithm({ minReplicas: 3 }),
      poolNodes: [node('lt-1', 'long-task', 4)],
    },
    policy: policyNoWindows(),
    want: 'scale-up BelowMinReplicas 1→3',
    claims: [['lt-1', 2]],
  },
  {
    name: 'NoDataWithAPendingPodThatIsNotUnschedulableMovesNoNode',
    input: {
      ...baseInput([]),
      replicas: 1,
      pods: [pending],
      poolNodes: [node('lt-1', 'long-task', 0)],
    },
    policy: policyNoWindows(),
    want: 'hold NoData 1→1',
  },
  {
    name: 'HpaWithAPendingPodThatIsNotUnschedulableLeavesItToTheHpa',
    input: {
      ...baseInput([50]),
      replicas: 2,
      pods: [...baseInput([50]).pods, pending],
      poolNodes: [node('lt-1', 'long-task', 0)],
    },
    policy: policyNoWindows({ engine: 'hpa' }),
    want: 'hold HPAOwnsReplicas 2→2',
    message: 'the HPA owns replicas (2, max 8); utilisation 50% over 1 of 1 Ready pod(s)',
  },
  {
    name: 'HpaAtItsMaximumInCooldownSaysBoth',
    input: {
      ...baseInput([95, 95, 95]),
      hpa: { currentReplicas: 3, desiredReplicas: 3, maxReplicas: 3 },
      poolNodes: [node('lt-1', 'long-task', 0)],
      recent: [scalingRecord(ago(10), 'relabel', 'RelabelUnusedNode', 3, 3, 95)],
    },
    policy: policyNoWindows({ engine: 'hpa', scaleUp: { cooldownSeconds: 300 } }),
    want: 'hold CooldownActive 3→3',
    message:
      'the HPA sits at its maximum of 3 replicas with utilisation 95% > max 80%; last change 10s ago, scale-up cooldown is 300s',
  },
];

describe('decide rows, with their claims', () => {
  it.each(rows)('$name', (row) => {
    const d = decideOne(row.input, row.policy, NOW);
    const claims = claimsOf(row.input, d);
    expect(`${d.action} ${d.reason} ${d.replicas.from}→${d.replicas.to}`).toBe(row.want);
    if (row.message !== undefined) expect(d.message).toBe(`resnet50-infer: ${row.message}`);
    if (row.nodes !== undefined) expect(d.nodes).toEqual(row.nodes);
    if (row.claims !== undefined) expect(claims.map((c) => [c.node, c.gpus])).toEqual(row.claims);
  });
});

describe('decideInTurn with an empty pool or no unused node', () => {
  const input = (name: string) => ({ ...baseInput([95, 95, 95]), algorithm: algorithm({ name }) });

  it('a node moved into a pool that had none serves the next algorithm of that pool', () => {
    const out = decideInTurn([input('b'), input('a')], [node('u-1', 'unused', 4)], policyNoWindows(), NOW);
    expect(out.map((d) => `${d.algorithm} ${d.action} ${d.reason} ${d.nodes.join(',')}`)).toEqual([
      'a relabel RelabelUnusedNode u-1',
      'b scale-up AboveMax ',
    ]);
  });

  it('no unused node at all: NoCapacity counts none', () => {
    const [d] = decideInTurn([input('a')], [node('lt-1', 'long-task', 0)], policyNoWindows(), NOW);
    expect(d!.reason).toBe('NoCapacity');
    expect(d!.message).toContain('(0 unused node(s))');
  });
});

describe('countedPods with pods of no owner beside the current ReplicaSet', () => {
  it('the current ReplicaSet first; a pod without owner after it', () => {
    const pods = [pod('bare', { owner: null }), pod('rs-pod', { rs: 'rs-1' })];
    expect(countedPods(pods, 1, 'rs-1').map((p) => p.name)).toEqual(['rs-pod']);
  });
});

describe('recommendationOf without a replica count', () => {
  const b = { min: 30, max: 80, minReplicas: 2, maxReplicas: 6, step: 2 };
  it.each<[string, Partial<DecisionRecord>]>([
    ['ChangeWithATargetButNoStart', { action: 'scale-up', reason: 'AboveMax', replicasTo: 5 }],
    ['CooldownBelowMin', { action: 'hold', reason: 'CooldownActive', replicasTo: null, utilization: 10 }],
  ])('%s recommends nothing', (_name, o) => {
    const r = { ...scalingRecord(NOW.toISOString(), 'hold', 'CooldownActive', null, null, 50), ...o };
    expect(recommendationOf(r, b)).toBeNull();
  });
});

describe('sizeForLoad: step and direction', () => {
  const base = { pods: 2, min: 30, max: 80, minReplicas: 1, maxReplicas: 10 };
  it('up goes at least step, even when the load needs fewer', () => {
    // needed = ceil(2 × 81 / 55) = 3; from 2 + step 2 = 4.
    expect(sizeForLoad({ ...base, direction: 'up', from: 2, utilization: 81, step: 2 })).toBe(4);
  });
  it('down goes at least step, even when the load would need more', () => {
    // target 20: needed = ceil(4 × 25 / 20) = 5; from 4 − step 1 = 3.
    expect(
      sizeForLoad({ ...base, pods: 4, direction: 'down', from: 4, utilization: 25, step: 1, target: 20 }),
    ).toBe(3);
  });
});
