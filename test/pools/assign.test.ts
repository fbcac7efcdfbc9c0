import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { buildSnapshot } from '../../src/cluster/snapshot.js';
import type { NodeInfo, Snapshot } from '../../src/cluster/types.js';
import { assignPools, type PoolPolicy } from '../../src/pools/assign.js';
import { freeGpus, freeGpusInPool, poolCapacity } from '../../src/pools/capacity.js';
import type { Pool, Policy } from '../../src/definitions/types.js';
import { nodeInfo } from '../support/node-info.js';

const fixture = (f: string) =>
  JSON.parse(readFileSync(new URL(`../fixtures/cluster-mixed/${f}`, import.meta.url), 'utf8'));
const defaults = parse(
  readFileSync(new URL('../../policies/default.yaml', import.meta.url), 'utf8'),
) as Policy;
const NOW = new Date('2026-12-01T10:00:00Z');

function policy(test: Partial<Policy['spec']['pools']['test']> = {}): PoolPolicy {
  return { spec: { pools: { ...defaults.spec.pools, test: { ...defaults.spec.pools.test, ...test } } } };
}

describe('assignPools on cluster-mixed (every trap of its README)', () => {
  const snap = buildSnapshot(fixture('nodes.json'), fixture('pods.json'), NOW);
  const table = (p: PoolPolicy) =>
    Object.fromEntries(assignPools(snap, p).map((a) => [a.node, [a.from, a.to, a.reason]]));

  it('default policy: one test node, the rest eligible unused, each trap with its reason', () => {
    expect(table(policy())).toEqual({
      'ip-10-0-1-11.ec2.internal': [null, null, 'NoGPU'],
      'ip-10-0-1-12.ec2.internal': [null, null, 'NoGPU'],
      'gpu-a100-01': [null, 'test', 'TestPool'],
      'gpu-a100-02': [null, 'unused', 'Unused'],
      'gpu-a100-03': [null, null, 'ForeignWorkload'], // research/llm-finetune-0 holds 4 of 8
      'gpu-a100-04': [null, null, 'MIGOnly'],
      'gpu-h100-01': [null, 'unused', 'Unused'],
      'gpu-h100-02': [null, null, 'Cordoned'],
      'gpu-t4-01': [null, 'unused', 'Unused'],
      'gpu-t4-02': [null, null, 'ForeignWorkload'], // video-decode holds 1 (first container only)
      'gpu-t4-03': [null, 'unused', 'Unused'],
      'gpu-t4-04': [null, null, 'NotReady'],
      'gpu-t4-05': [null, null, 'NoAllocatableGPU'], // capacity 4, allocatable 0
    });
  });

  it('perGPUProduct: one test node per product, chosen by name among eligible nodes', () => {
    const t = table(policy({ perGPUProduct: true }));
    const tests = Object.entries(t)
      .filter(([, v]) => v[1] === 'test')
      .map(([k]) => k);
    expect(tests).toEqual(['gpu-a100-01', 'gpu-h100-01', 'gpu-t4-01']);
    expect(t['gpu-t4-03']).toEqual([null, 'unused', 'Unused']);
    expect(t['gpu-h100-02']).toEqual([null, null, 'Cordoned']);
  });

  it('messages name the numbers behind the trap', () => {
    const byNode = new Map(assignPools(snap, policy()).map((a) => [a.node, a.message]));
    expect(byNode.get('gpu-a100-03')).toBe('4 of 8 GPUs are held by pods gpuops does not manage');
    expect(byNode.get('gpu-t4-05')).toContain('allocatable is 0 (capacity 4)');
    expect(byNode.get('gpu-a100-04')).toContain('56 nvidia.com/mig-* slices');
  });

  it('capacity: foreign GPUs count as used; cordoned, NotReady and 0-allocatable nodes offer 0', () => {
    const free = Object.fromEntries(snap.nodes.map((n) => [n.name, freeGpus(n)]));
    expect(free).toMatchObject({
      'gpu-a100-01': 8,
      'gpu-a100-03': 4,
      'gpu-h100-02': 0,
      'gpu-t4-02': 3,
      'gpu-t4-04': 0,
      'gpu-t4-05': 0,
      'gpu-a100-04': 0,
    });
    const cap = poolCapacity(snap, assignPools(snap, policy()));
    expect(cap.unused.map((c) => c.node)).toEqual(['gpu-a100-02', 'gpu-h100-01', 'gpu-t4-01', 'gpu-t4-03']);
    expect(freeGpusInPool(cap, 'unused')).toBe(8 + 8 + 4 + 1);
    expect(freeGpusInPool(cap, 'test')).toBe(8);
  });

  it('is deterministic: shuffled input gives the same result', () => {
    const reversed: Snapshot = { ...snap, nodes: [...snap.nodes].reverse() };
    const sorted = (s: Snapshot) => assignPools(s, policy()).sort((a, b) => a.node.localeCompare(b.node));
    expect(sorted(reversed)).toEqual(sorted(snap));
  });
});

const node = nodeInfo;
const inPool = (name: string, pool: Pool, over: Partial<NodeInfo> = {}) => node(name, { pool, ...over });
const notReady = { ready: false, schedulable: false };
const cordoned = { cordoned: true, schedulable: false };

interface Row {
  name: string;
  nodes: NodeInfo[];
  policy?: PoolPolicy;
  running?: string[];
  want: Record<string, [Pool | null, string]>;
}

const rows: Row[] = [
  {
    name: 'StableMembershipLongTaskNodeNotReadyKeepsPool',
    nodes: [inPool('a', 'long-task', notReady), inPool('b', 'test')],
    want: { a: ['long-task', 'KeepPool'], b: ['test', 'KeepPool'] },
  },
  {
    name: 'StableMembershipUnusedNodeCordonedKeepsPool',
    nodes: [inPool('a', 'unused', cordoned), inPool('b', 'test')],
    want: { a: ['unused', 'KeepPool'], b: ['test', 'KeepPool'] },
  },
  {
    name: 'UnlabelledNotReadyNodeGetsNoPool',
    nodes: [node('a', notReady), inPool('b', 'test')],
    want: { a: [null, 'NotReady'], b: ['test', 'KeepPool'] },
  },
  {
    name: 'ReplaceNotReadyTestNodeWithHealthyUnused',
    nodes: [inPool('a', 'test', notReady), inPool('b', 'unused'), node('c')],
    want: { a: ['test', 'KeepPool'], b: ['test', 'ReplacedTestNode'], c: ['unused', 'Unused'] },
  },
  {
    name: 'ReplaceCordonedTestNode',
    nodes: [inPool('a', 'test', cordoned), node('b')],
    want: { a: ['test', 'KeepPool'], b: ['test', 'ReplacedTestNode'] },
  },
  {
    name: 'ReplaceTestNodeWhoseGpusWentUnallocatable',
    nodes: [inPool('a', 'test', { gpuAllocatable: 0 }), node('b')],
    want: { a: ['test', 'KeepPool'], b: ['test', 'ReplacedTestNode'] },
  },
  {
    name: 'NoHealthyReplacementKeepsTheUnhealthyTestNodeAlone',
    nodes: [inPool('a', 'test', notReady), inPool('b', 'long-task')],
    want: { a: ['test', 'KeepPool'], b: ['long-task', 'KeepPool'] },
  },
  {
    name: 'SurplusTestNodeGoesBackToUnusedOnceHealthy',
    nodes: [inPool('a', 'test'), inPool('b', 'test')],
    want: { a: ['test', 'KeepPool'], b: ['unused', 'SurplusTestNode'] },
  },
  {
    name: 'SurplusTestNodeRunningABenchmarkStaysAndTheIdleOneGoes',
    nodes: [inPool('a', 'test'), inPool('b', 'test')],
    running: ['b'],
    want: { a: ['unused', 'SurplusTestNode'], b: ['test', 'KeepPool'] },
  },
  {
    name: 'SurplusTestNodesBothBenchmarkingBothStay',
    nodes: [inPool('a', 'test'), inPool('b', 'test')],
    running: ['a', 'b'],
    want: { a: ['test', 'KeepPool'], b: ['test', 'InUse'] },
  },
  {
    name: 'SurplusTestNodeWithGpuopsPodsIsInUse',
    nodes: [
      inPool('a', 'test', { managedPods: 1, gpuRequested: 1 }),
      inPool('b', 'test', { managedPods: 2, gpuRequested: 2 }),
    ],
    want: { a: ['test', 'KeepPool'], b: ['test', 'InUse'] },
  },
  {
    name: 'TestPoolSizeTwoTakesTwoByName',
    nodes: [node('c'), node('a'), node('b')],
    policy: policy({ size: 2 }),
    want: { a: ['test', 'TestPool'], b: ['test', 'TestPool'], c: ['unused', 'Unused'] },
  },
  {
    name: 'TestPoolSizeZeroReleasesIdleTestNodes',
    nodes: [inPool('a', 'test'), node('b')],
    policy: policy({ size: 0 }),
    want: { a: ['unused', 'SurplusTestNode'], b: ['unused', 'Unused'] },
  },
  {
    name: 'TestNodeComesFromUnusedOrUnlabelledNeverFromWorkloadPools',
    nodes: [inPool('a', 'long-task'), inPool('b', 'short-task'), inPool('c', 'unused')],
    want: { a: ['long-task', 'KeepPool'], b: ['short-task', 'KeepPool'], c: ['test', 'TestPool'] },
  },
  {
    name: 'UnusedNodeRunningGpuopsPodsIsNotTakenForTest',
    nodes: [inPool('a', 'unused', { managedPods: 1, gpuRequested: 1 }), inPool('b', 'unused')],
    want: { a: ['unused', 'KeepPool'], b: ['test', 'TestPool'] },
  },
  {
    name: 'NodeRunningABenchmarkIsNotPickedAsNewTestNode',
    nodes: [node('a'), node('b')],
    running: ['a'],
    want: { a: ['unused', 'Unused'], b: ['test', 'TestPool'] },
  },
  {
    name: 'ForeignWorkloadNeverMadeTestOrUnused',
    nodes: [node('a', { foreignGpuRequested: 2, gpuRequested: 2 }), node('b')],
    want: { a: [null, 'ForeignWorkload'], b: ['test', 'TestPool'] },
  },
  {
    name: 'ForeignWorkloadOnUnusedNodeLeavesThePool',
    nodes: [inPool('a', 'unused', { foreignGpuRequested: 1, gpuRequested: 1 }), inPool('b', 'test')],
    want: { a: [null, 'ForeignWorkload'], b: ['test', 'KeepPool'] },
  },
  {
    name: 'ForeignWorkloadOnTestNodeReplacesIt',
    nodes: [inPool('a', 'test', { foreignGpuRequested: 1, gpuRequested: 1 }), node('b')],
    want: { a: [null, 'ForeignWorkload'], b: ['test', 'TestPool'] },
  },
  {
    name: 'ForeignWorkloadOnBusyTestNodeStaysUntilGpuopsPodsFinish',
    nodes: [inPool('a', 'test', { foreignGpuRequested: 1, gpuRequested: 2, managedPods: 1 }), node('b')],
    want: { a: ['test', 'InUse'], b: ['test', 'TestPool'] },
  },
  {
    name: 'ForeignWorkloadOnLongTaskNodeKeepsPool',
    nodes: [inPool('a', 'long-task', { foreignGpuRequested: 1, gpuRequested: 1 }), inPool('b', 'test')],
    want: { a: ['long-task', 'KeepPool'], b: ['test', 'KeepPool'] },
  },
  {
    name: 'ExistingLabelsNeverChurned',
    nodes: [inPool('a', 'long-task'), inPool('b', 'short-task'), inPool('c', 'test'), inPool('d', 'unused')],
    want: {
      a: ['long-task', 'KeepPool'],
      b: ['short-task', 'KeepPool'],
      c: ['test', 'KeepPool'],
      d: ['unused', 'KeepPool'],
    },
  },
  {
    name: 'PerGPUProductOneTestNodePerProduct',
    nodes: [
      node('a100-1'),
      node('a100-2'),
      node('t4-1', { gpuProduct: 'Tesla-T4' }),
      inPool('t4-2', 'test', { gpuProduct: 'Tesla-T4' }),
    ],
    policy: policy({ perGPUProduct: true }),
    want: {
      'a100-1': ['test', 'TestPool'],
      'a100-2': ['unused', 'Unused'],
      't4-1': ['unused', 'Unused'],
      't4-2': ['test', 'KeepPool'],
    },
  },
  {
    name: 'PerGPUProductReplacesWithinTheSameProduct',
    nodes: [
      node('a100-1'),
      inPool('t4-1', 'test', { gpuProduct: 'Tesla-T4', ...notReady }),
      node('t4-2', { gpuProduct: 'Tesla-T4' }),
      inPool('a100-0', 'test'),
    ],
    policy: policy({ perGPUProduct: true }),
    want: {
      'a100-0': ['test', 'KeepPool'],
      'a100-1': ['unused', 'Unused'],
      't4-1': ['test', 'KeepPool'],
      't4-2': ['test', 'ReplacedTestNode'],
    },
  },
  {
    name: 'PerGPUProductSurplusOfOneProduct',
    nodes: [inPool('a', 'test'), inPool('b', 'test'), inPool('c', 'test', { gpuProduct: 'Tesla-T4' })],
    policy: policy({ perGPUProduct: true }),
    want: { a: ['test', 'KeepPool'], b: ['unused', 'SurplusTestNode'], c: ['test', 'KeepPool'] },
  },
];

describe('assignPools rules', () => {
  it.each(rows)('$name', (row) => {
    const snap: Snapshot = { takenAt: NOW.toISOString(), nodes: row.nodes, pods: [] };
    const got = assignPools(snap, row.policy ?? policy(), { runningBenchmarks: row.running ?? [] });
    expect(got.map((a) => a.node)).toEqual(row.nodes.map((n) => n.name));
    for (const a of got) expect(a.from).toBe(row.nodes.find((n) => n.name === a.node)!.pool);
    expect(Object.fromEntries(got.map((a) => [a.node, [a.to, a.reason]]))).toEqual(row.want);
  });

  it('names the replaced test node in the replacement message, and vice versa', () => {
    const snap: Snapshot = { takenAt: '', pods: [], nodes: [inPool('a', 'test', notReady), node('b')] };
    const [a, b] = assignPools(snap, policy());
    expect(b!.message).toBe('becomes test, replacing a (NotReady)');
    expect(a!.message).toBe('stays test; NotReady, offers no capacity, replaced by b');
  });

  it('flapping test node: healthy again → the surplus goes back to unused; the pass after changes nothing', () => {
    let nodes = [inPool('a', 'test', notReady), node('b')];
    const pass = () => {
      const got = assignPools({ nodes }, policy());
      nodes = nodes.map((n) => ({ ...n, pool: got.find((a) => a.node === n.name)!.to }));
      return got.map((a) => `${a.node}:${a.to}:${a.reason}`);
    };
    expect(pass()).toEqual(['a:test:KeepPool', 'b:test:ReplacedTestNode']);
    nodes = nodes.map((n) => (n.name === 'a' ? { ...n, ready: true, schedulable: true } : n));
    expect(pass()).toEqual(['a:test:KeepPool', 'b:unused:SurplusTestNode']);
    expect(pass()).toEqual(['a:test:KeepPool', 'b:unused:KeepPool']);
  });
});

/** 2 physical GPUs advertised 4 times each by the device plugin's time-slicing (8 `nvidia.com/gpu`). */
const timeSliced = {
  labels: {
    'nvidia.com/gpu.count': '2',
    'nvidia.com/gpu.replicas': '4',
    'nvidia.com/gpu.sharing-strategy': 'time-slicing',
  },
};
const SHARED = 'shared GPUs (time-slicing, 2 physical advertised as 8)';

interface MessageRow {
  name: string;
  nodes: NodeInfo[];
  policy?: PoolPolicy;
  running?: string[];
  /** node → [to, reason, message] */
  want: Record<string, [Pool | null, string, string]>;
}

/** The messages `plan` shows a person for each decision, with the numbers behind it. */
const messageRows: MessageRow[] = [
  {
    name: 'TestNodeChosenAndTheRestUnused',
    nodes: [node('a'), node('b', { gpuAllocatable: 1 }), inPool('c', 'unused')],
    want: {
      a: ['test', 'TestPool', 'becomes test: 1 of 1 test nodes'],
      b: ['unused', 'Unused', 'eligible (1 GPU allocatable): unused'],
      c: ['unused', 'KeepPool', 'stays unused'],
    },
  },
  {
    name: 'SecondTestNodeCountsTheKeptOne',
    nodes: [inPool('a', 'test'), node('b'), node('c')],
    policy: policy({ size: 2 }),
    want: {
      a: ['test', 'KeepPool', 'stays test'],
      b: ['test', 'TestPool', 'becomes test: 2 of 2 test nodes'],
      c: ['unused', 'Unused', 'eligible (8 GPUs allocatable): unused'],
    },
  },
  {
    name: 'TestNodesCountedOneByOne',
    nodes: [inPool('a', 'test'), node('b'), node('c'), node('d')],
    policy: policy({ size: 3 }),
    want: {
      a: ['test', 'KeepPool', 'stays test'],
      b: ['test', 'TestPool', 'becomes test: 2 of 3 test nodes'],
      c: ['test', 'TestPool', 'becomes test: 3 of 3 test nodes'],
      d: ['unused', 'Unused', 'eligible (8 GPUs allocatable): unused'],
    },
  },
  {
    name: 'PerGPUProductNamesTheProductAndTheUnknownOne',
    nodes: [inPool('a', 'test'), inPool('b', 'test'), node('c', { gpuProduct: null })],
    policy: policy({ perGPUProduct: true }),
    want: {
      a: ['test', 'KeepPool', 'stays test for NVIDIA-A100-SXM4-80GB'],
      b: [
        'unused',
        'SurplusTestNode',
        'surplus test node for NVIDIA-A100-SXM4-80GB (1 wanted): back to unused',
      ],
      c: ['test', 'TestPool', 'becomes test for (unknown product): 1 of 1 test nodes'],
    },
  },
  {
    name: 'SurplusBusyAndIdle',
    nodes: [
      inPool('a', 'test'),
      inPool('b', 'test', { managedPods: 1, gpuRequested: 1 }),
      inPool('c', 'test'),
    ],
    running: ['a'],
    want: {
      a: ['test', 'KeepPool', 'stays test'],
      b: ['test', 'InUse', 'surplus test node, but a benchmark or gpuops pod runs here: stays test'],
      c: ['unused', 'SurplusTestNode', 'surplus test node (1 wanted): back to unused'],
    },
  },
  {
    name: 'UnhealthyTestNodeWithoutReplacementAndUnhealthyTaskNode',
    nodes: [inPool('a', 'test', notReady), inPool('b', 'long-task', cordoned), inPool('c', 'short-task')],
    want: {
      a: ['test', 'KeepPool', 'stays test; NotReady, offers no capacity, no healthy node can replace it'],
      b: ['long-task', 'KeepPool', 'stays long-task; cordoned, offers no capacity'],
      c: ['short-task', 'KeepPool', 'stays short-task'],
    },
  },
  {
    name: 'ForeignGpusOnTestAndUnusedNodes',
    nodes: [
      inPool('a', 'test', { foreignGpuRequested: 2, gpuRequested: 3, managedPods: 1 }),
      inPool('b', 'unused', { foreignGpuRequested: 1, gpuRequested: 1 }),
      node('c'),
    ],
    want: {
      a: [
        'test',
        'InUse',
        '2 GPUs held by pods gpuops does not manage, but gpuops pods run here: stays test until they finish',
      ],
      b: [null, 'ForeignWorkload', '1 GPUs held by pods gpuops does not manage: leaves the unused pool'],
      c: ['test', 'TestPool', 'becomes test: 1 of 1 test nodes'],
    },
  },
  {
    name: 'SharedGpusAreNeverTheTestNode',
    nodes: [
      inPool('a', 'test', timeSliced),
      inPool('b', 'test', { ...timeSliced, managedPods: 1, gpuRequested: 1 }),
      inPool('c', 'unused', timeSliced),
      node('d', timeSliced),
      node('e'),
    ],
    want: {
      a: ['unused', 'SharedGPU', `${SHARED}: a run time measured there is no measurement; back to unused`],
      b: [
        'test',
        'InUse',
        `${SHARED}: no test node, but a benchmark or gpuops pod runs here: stays test until it ends`,
      ],
      c: ['unused', 'KeepPool', `stays unused; ${SHARED}, never a test node`],
      d: ['unused', 'Unused', `eligible (8 GPUs allocatable): unused; ${SHARED}, never a test node`],
      e: ['test', 'TestPool', 'becomes test: 1 of 1 test nodes'],
    },
  },
];

describe('assignPools messages', () => {
  it.each(messageRows)('$name', (row) => {
    const snap: Snapshot = { takenAt: NOW.toISOString(), nodes: row.nodes, pods: [] };
    const got = assignPools(snap, row.policy ?? policy(), { runningBenchmarks: row.running });
    expect(Object.fromEntries(got.map((a) => [a.node, [a.to, a.reason, a.message]]))).toEqual(row.want);
  });

  it('marks the entries of shared-GPU nodes, and only those', () => {
    const snap: Snapshot = { takenAt: '', pods: [], nodes: [node('a', timeSliced), node('b')] };
    const [a, b] = assignPools(snap, policy());
    expect(a!.shared).toEqual({ strategy: 'time-slicing', replicas: 4, physicalGpus: 2 });
    expect(b).not.toHaveProperty('shared');
  });

  it('without options: no node counts as running a benchmark', () => {
    const snap: Snapshot = { takenAt: '', pods: [], nodes: [inPool('a', 'test'), inPool('b', 'test')] };
    expect(assignPools(snap, policy()).map((a) => a.reason)).toEqual(['KeepPool', 'SurplusTestNode']);
  });
});
