/**
 * What a decision takes from the shared view of capacity (`claimsOf`, deducted
 * by `decideInTurn` before the next algorithm): new and not-yet-bound replicas land on the most free
 * node first, ties by name, never on a node short of a pod's GPUs. And which pods are replicas
 * (`countedPods`).
 */
import { describe, expect, it } from 'vitest';
import type { PodInfo } from '../../src/cluster/types.js';
import { claimsOf } from '../../src/scaling/claims.js';
import { countedPods, surgePods } from '../../src/scaling/counted-pods.js';
import { decideInTurn } from '../../src/scaling/decide-in-turn.js';
import { decideOne } from '../../src/scaling/decide-one.js';
import type { ScalingInput } from '../../src/scaling/types.js';
import type { Policy } from '../../src/definitions/types.js';
import { algorithm, baseInput, node, pod, policyNoWindows } from './support.js';

const NOW = new Date('2025-06-01T12:00:00Z');
const unbound = (name: string) => pod(name, { nodeName: null, ready: false, phase: 'Pending' });

interface Row {
  name: string;
  input: ScalingInput;
  policy?: Policy;
  /** `action reason from→to`. */
  decision: string;
  claims: [string, number][];
}

const rows: Row[] = [
  {
    name: 'ScaleUpMostFreeFirstTiesByName',
    input: {
      ...baseInput([95, 95, 95]),
      poolNodes: [node('lt-b', 'long-task', 2), node('lt-a', 'long-task', 2)],
    },
    policy: policyNoWindows({ step: 3 }),
    decision: 'scale-up AboveMax 3→6',
    claims: [
      ['lt-a', 2],
      ['lt-b', 1],
    ],
  },
  {
    name: 'ScaleUpSkipsANodeShortOfAPodsGpus',
    input: {
      ...baseInput([95, 95, 95]),
      algorithm: algorithm({ gpus: 2 }),
      poolNodes: [node('lt-a', 'long-task', 1), node('lt-b', 'long-task', 4), node('lt-c', 'long-task', 3)],
    },
    policy: policyNoWindows({ step: 2 }),
    decision: 'scale-up AboveMax 3→5',
    // lt-b (4) takes the first pod; then lt-c (3) beats lt-b (2); lt-a (1) never fits.
    claims: [
      ['lt-b', 2],
      ['lt-c', 2],
    ],
  },
  {
    name: 'HoldClaimsNothingWhenEveryReplicaIsBound',
    input: baseInput([50, 50, 50]),
    decision: 'hold WithinRange 3→3',
    claims: [],
  },
  {
    name: 'HoldClaimsForReplicasNotBoundYet',
    input: {
      ...baseInput([50, 50]),
      replicas: 3,
      pods: [...baseInput([50, 50]).pods, unbound('resnet50-infer-7d9f-9')],
      poolNodes: [node('lt-1', 'long-task', 1), node('lt-2', 'long-task', 2)],
    },
    decision: 'hold WithinRange 3→3',
    claims: [['lt-2', 1]],
  },
  {
    name: 'ReplicasNotCreatedYetAreClaimedToo',
    input: { ...baseInput([50, 50]), replicas: 4, poolNodes: [node('lt-1', 'long-task', 8)] },
    decision: 'hold WithinRange 4→4',
    claims: [['lt-1', 2]],
  },
  {
    name: 'ScaleUpAddsToTheReplicasNotBoundYet',
    input: {
      ...baseInput([100, 100, 100]),
      replicas: 4,
      pods: [
        ...baseInput([100, 100, 100]).pods,
        pod('s', { nodeName: null, ready: false, unschedulable: true }),
      ],
      poolNodes: [node('lt-1', 'long-task', 8)],
    },
    decision: 'scale-up AboveMax 4→5',
    claims: [['lt-1', 2]],
  },
  {
    name: 'BelowMinReplicasClaimsTheNewReplicas',
    input: { ...baseInput([]), algorithm: algorithm({ minReplicas: 3 }), replicas: 1, samples: [], pods: [] },
    decision: 'scale-up BelowMinReplicas 1→3',
    claims: [['lt-1', 2]],
  },
  {
    name: 'ClaimsStopWhereNothingFits',
    input: { ...baseInput([]), algorithm: algorithm({ minReplicas: 5 }), replicas: 1, samples: [], pods: [] },
    decision: 'scale-up BelowMinReplicas 1→5',
    claims: [['lt-1', 2]],
  },
  {
    name: 'RelabelClaimsOnTheMovedNode',
    input: { ...baseInput([95, 95, 95]), poolNodes: [node('lt-1', 'long-task', 0)] },
    decision: 'relabel RelabelUnusedNode 3→4',
    claims: [['z-unused-a100', 1]],
  },
  {
    name: 'RelabelAddsOnlyWhatTheMovedNodesHold',
    input: {
      ...baseInput([95, 95, 95]),
      algorithm: algorithm({ gpus: 4 }),
      poolNodes: [node('lt-1', 'long-task', 0)],
      unusedNodes: [node('u-1', 'unused', 4), node('u-2', 'unused', 3)],
    },
    policy: policyNoWindows({ step: 3 }),
    decision: 'relabel RelabelUnusedNode 3→4',
    claims: [['u-1', 4]],
  },
  {
    // Two replicas in Git are not bound and the pool has room for one: the moved node takes the
    // other first, then the new replica.
    name: 'RelabelMakesRoomForUnboundReplicasFirst',
    input: {
      ...baseInput([100, 100, 100]),
      replicas: 5,
      pods: [...baseInput([100, 100, 100]).pods, unbound('s-0'), unbound('s-1')].map((p) =>
        p.nodeName === null ? { ...p, unschedulable: true } : p,
      ),
      poolNodes: [node('lt-1', 'long-task', 1)],
      unusedNodes: [node('u-1', 'unused', 1), node('u-2', 'unused', 1), node('u-3', 'unused', 1)],
    },
    decision: 'relabel RelabelUnusedNode 5→6',
    claims: [
      ['lt-1', 1],
      ['u-1', 1],
      ['u-2', 1],
    ],
  },
  {
    name: 'RelabelWithOnlyRoomForTheUnboundAddsNone',
    input: {
      ...baseInput([100, 100, 100]),
      replicas: 5,
      pods: [...baseInput([100, 100, 100]).pods, unbound('s-0'), unbound('s-1')].map((p) =>
        p.nodeName === null ? { ...p, unschedulable: true } : p,
      ),
      poolNodes: [node('lt-1', 'long-task', 1)],
      unusedNodes: [node('u-1', 'unused', 1)],
    },
    decision: 'relabel RelabelUnusedNode 5→5',
    claims: [
      ['lt-1', 1],
      ['u-1', 1],
    ],
  },
];

describe('claimsOf: what a decision takes', () => {
  it.each(rows)('$name', (row) => {
    const d = decideOne(row.input, row.policy ?? policyNoWindows(), NOW);
    const claims = claimsOf(row.input, d);
    expect(`${d.action} ${d.reason} ${d.replicas.from}→${d.replicas.to}`).toBe(row.decision);
    expect(claims.map((c) => [c.node, c.gpus])).toEqual(row.claims);
  });
});

describe('decideInTurn: one shared view of capacity', () => {
  const input = (name: string, utils: number[], o: Partial<ScalingInput> = {}) => ({
    ...baseInput(utils),
    algorithm: algorithm({ name }),
    ...o,
  });

  it('a node moved for one algorithm serves the next of the same pool, less what the first took', () => {
    const capacity = [node('lt-1', 'long-task', 0), node('u-1', 'unused', 2), node('u-2', 'unused', 1)];
    const out = decideInTurn(
      [input('b', [95, 95, 95]), input('a', [95, 95, 95]), input('c', [95, 95, 95])],
      capacity,
      policyNoWindows(),
      NOW,
    );
    expect(out.map((d) => `${d.algorithm} ${d.action} ${d.reason} ${d.nodes.join(',')}`)).toEqual([
      // Each takes the smallest unused node that fits its one replica (issue 23 item 8): a the
      // 1-GPU u-2, b the 2-GPU u-1, whose second GPU then serves c.
      'a relabel RelabelUnusedNode u-2',
      'b relabel RelabelUnusedNode u-1',
      'c scale-up AboveMax ',
    ]);
  });

  it('an algorithm of another pool never sees the moved node as its own', () => {
    const capacity = [node('lt-1', 'long-task', 0), node('st-1', 'short-task', 0), node('u-1', 'unused', 2)];
    const out = decideInTurn(
      [input('a', [95, 95, 95]), input('b', [95, 95, 95], { pool: 'short-task' })],
      capacity,
      policyNoWindows(),
      NOW,
    );
    expect(out.map((d) => `${d.algorithm} ${d.action} ${d.reason}`)).toEqual([
      'a relabel RelabelUnusedNode',
      'b hold NoCapacity',
    ]);
  });

  it('an algorithm not placed takes nothing', () => {
    const capacity = [node('lt-1', 'long-task', 1), node('u-1', 'unused', 1)];
    const out = decideInTurn(
      [input('a', [95, 95, 95], { pool: null, replicas: 5 }), input('b', [95, 95, 95])],
      capacity,
      policyNoWindows(),
      NOW,
    );
    expect(out.map((d) => `${d.algorithm} ${d.action} ${d.reason}`)).toEqual([
      'a hold NotPlaced',
      'b scale-up AboveMax',
    ]);
  });
});

describe('countedPods', () => {
  const p = (name: string, o: Partial<PodInfo> & { rs?: string } = {}) => pod(name, { rs: 'cur', ...o });
  it.each<[string, PodInfo[], number, string | null, string[]]>([
    ['ReadyBeforeNotReady', [p('a', { ready: false }), p('b')], 1, 'cur', ['b']],
    [
      'OldestFirstThenByName',
      [
        p('c', { createdAt: '2025-01-02T00:00:00Z' }),
        p('b', { createdAt: '2025-01-01T00:00:00Z' }),
        p('a', { createdAt: '2025-01-02T00:00:00Z' }),
      ],
      3,
      'cur',
      ['b', 'a', 'c'],
    ],
    [
      'SucceededAndFailedAreNotReplicas',
      [p('a', { phase: 'Succeeded' }), p('b', { phase: 'Failed' }), p('c')],
      3,
      'cur',
      ['c'],
    ],
    ['NoReplicasNoPods', [p('a')], 0, 'cur', []],
    ['NegativeReplicasNoPods', [p('a')], -1, 'cur', []],
    [
      'NewestPodOfAReplicaSetNamesTheCurrentOne',
      [
        p('old', { rs: 'old', createdAt: '2025-01-01T00:00:00Z' }),
        p('new', { rs: 'new', createdAt: '2025-01-03T00:00:00Z' }),
        p('mid', { rs: 'old', createdAt: '2025-01-02T00:00:00Z' }),
      ],
      1,
      null,
      ['new'],
    ],
    [
      'APodOwnedByAnotherKindNamesNoReplicaSet',
      [
        p('rs-pod', { rs: 'rs', createdAt: '2025-01-01T00:00:00Z' }),
        { ...p('job-pod', { createdAt: '2025-01-09T00:00:00Z' }), owner: { kind: 'Job', name: 'job' } },
      ],
      1,
      null,
      ['rs-pod'],
    ],
    [
      // maxSurge 1 during a rollout: the new ReplicaSet's pod still starts, the old one serves.
      'RolloutSurgePodStartingIsNotTheReplica',
      [
        p('old', { rs: 'old', createdAt: '2025-01-01T00:00:00Z' }),
        p('new', { rs: 'new', createdAt: '2025-01-03T00:00:00Z', ready: false, nodeName: null }),
      ],
      1,
      'new',
      ['old'],
    ],
    [
      'RolloutBothReadyTheCurrentReplicaSetsPodIsTheReplica',
      [
        p('old', { rs: 'old', createdAt: '2025-01-01T00:00:00Z' }),
        p('new', { rs: 'new', createdAt: '2025-01-03T00:00:00Z' }),
      ],
      1,
      'new',
      ['new'],
    ],
    [
      'NoOwnerAtAllReadyFirst',
      [
        { ...p('a', { ready: false }), owner: null },
        { ...p('b'), owner: null },
      ],
      1,
      null,
      ['b'],
    ],
  ])('%s', (_name, pods, replicas, current, want) => {
    expect(countedPods(pods, replicas, current).map((x) => x.name)).toEqual(want);
    // Every live pod is either a replica or the rollout's surge, never both.
    const surge = surgePods(pods, replicas, current).map((x) => x.name);
    expect(surge.filter((n) => want.includes(n))).toEqual([]);
    expect(surge.length + want.length).toBe(
      pods.filter((x) => !x.terminating && x.phase !== 'Succeeded' && x.phase !== 'Failed').length,
    );
  });
});
