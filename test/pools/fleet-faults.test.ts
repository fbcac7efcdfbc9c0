/**
 * Issue 13 items 1 and 3, as the issue gives them: kubectl-shaped Nodes and Pods through the
 * snapshot model and the one planner (`planDesiredState`, what `plan` prints and `reconcile`
 * writes). Each input failed before: gpu-a / gpu-a-shared became the test node, gpu-c was moved.
 */
import { readFileSync } from 'node:fs';
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { loadWorkloadTemplates } from '../../src/benchmark/load-templates.js';
import { formatPlanTable } from '../../src/cli/plan-build.js';
import { buildSnapshot } from '../../src/cluster/snapshot.js';
import type { Taint } from '../../src/cluster/types.js';
import { planDesiredState, type DesiredStateInput } from '../../src/plan/desired-state.js';
import type { UtilizationReading } from '../../src/metrics/types.js';
import { assignPools } from '../../src/pools/assign.js';
import { freeGpus, nodeCapacities } from '../../src/pools/capacity.js';
import { nodeCapacity } from '../../src/scaling/capacity.js';
import type { Policy, ResolvedAlgorithm } from '../../src/definitions/types.js';
import { RESNET } from '../scaling/one-deployment.js';

const defaults = parse(
  readFileSync(new URL('../../policies/default.yaml', import.meta.url), 'utf8'),
) as Policy;
const NOW = new Date('2026-12-01T10:00:00Z');
const LEAVING: Taint = { key: 'ToBeDeletedByClusterAutoscaler', value: '1764583200', effect: 'NoSchedule' };

function t4(
  name: string,
  o: { pool?: string; taints?: Taint[]; labels?: Record<string, string>; gpus?: number } = {},
): V1Node {
  const gpus = String(o.gpus ?? 1);
  return {
    metadata: {
      name,
      labels: {
        'nvidia.com/gpu.product': 'Tesla-T4',
        'nvidia.com/gpu.count': '1',
        ...(o.pool ? { 'gpuops.dev/pool': o.pool } : {}),
        ...o.labels,
      },
    },
    spec: { taints: o.taints },
    status: {
      conditions: [{ type: 'Ready', status: 'True' }],
      capacity: { 'nvidia.com/gpu': gpus },
      allocatable: { 'nvidia.com/gpu': gpus },
    },
  } as V1Node;
}

function servingPod(name: string, node: string): V1Pod {
  return {
    metadata: {
      name,
      namespace: 'algorithms',
      uid: name,
      labels: { 'app.kubernetes.io/managed-by': 'gpuops', 'gpuops.dev/algorithm': 'resnet50-infer' },
      ownerReferences: [
        { kind: 'ReplicaSet', name: 'resnet50-infer-7d9f', apiVersion: 'apps/v1', uid: 'rs' },
      ],
      creationTimestamp: new Date('2026-12-01T09:00:00Z'),
    },
    spec: {
      nodeName: node,
      containers: [{ name: 'main', resources: { limits: { 'nvidia.com/gpu': '1' } } }],
    },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
  } as V1Pod;
}

/** resnet50-infer of `one-deployment.ts`, up to 8 replicas, 3 benchmark runs. */
const resnet: ResolvedAlgorithm = {
  ...RESNET,
  scaling: { ...RESNET.scaling, maxReplicas: 8 },
  benchmark: { ...RESNET.benchmark, runs: 3 },
};

function hot(pods: string[], percent: number): UtilizationReading {
  return {
    ok: true,
    errors: [],
    series: pods.map((pod, i) => ({
      metric: 'DCGM_FI_DEV_GPU_UTIL',
      labels: { gpu: '0', UUID: `GPU-${i}`, Hostname: 'gpu-b', namespace: 'algorithms', pod },
      value: percent,
      timestamp: NOW.getTime() - 5_000,
    })),
  };
}

/** One pass, after the placement of resnet50-infer (1 replica on short-task) merged. */
function pass(nodes: V1Node[], pods: V1Pod[], policy: Policy, reading: UtilizationReading) {
  const snapshot = buildSnapshot(nodes, pods, NOW);
  const input: DesiredStateInput = {
    cluster: 'prod',
    repo: { policy, errors: [], algorithms: [resnet] },
    snapshot,
    base: new Map(),
    benchmarks: new Map(),
    reading,
    recent: [],
    templates: loadWorkloadTemplates(),
    now: NOW,
  };
  const placed = planDesiredState(input);
  const base = new Map<string, string>();
  for (const cs of placed.changeSets.filter((c) => c.kind === 'placement'))
    for (const f of cs.files) if (f.content !== null) base.set(f.path, f.content);
  return { snapshot, plan: planDesiredState({ ...input, base }) };
}

describe('issue 13.1: nodes on their way out are never the test node nor the node to move', () => {
  const fleet = () => [
    t4('gpu-a', { taints: [LEAVING] }),
    t4('gpu-b', { pool: 'short-task' }),
    t4('gpu-c', { pool: 'unused', taints: [LEAVING] }),
    t4('gpu-d', { pool: 'unused' }),
  ];
  const pods = [servingPod('resnet50-infer-7d9f-0', 'gpu-b')];

  it('test node: gpu-d, not gpu-a; gpu-a is Leaving; gpu-c stays unused with no capacity', () => {
    const snapshot = buildSnapshot(fleet(), pods, NOW);
    const byNode = Object.fromEntries(assignPools(snapshot, defaults).map((a) => [a.node, a]));
    expect(byNode['gpu-d']).toMatchObject({ from: 'unused', to: 'test', reason: 'TestPool' });
    expect(byNode['gpu-a']).toMatchObject({ from: null, to: null, reason: 'Leaving' });
    expect(byNode['gpu-a']!.message).toContain('ToBeDeletedByClusterAutoscaler=1764583200:NoSchedule');
    expect(byNode['gpu-c']).toMatchObject({ from: 'unused', to: 'unused', reason: 'KeepPool' });
    expect(byNode['gpu-c']!.message).toContain('offers no capacity');
    expect(snapshot.nodes.map((n) => [n.name, freeGpus(n)])).toEqual([
      ['gpu-a', 0],
      ['gpu-b', 0],
      ['gpu-c', 0],
      ['gpu-d', 1],
    ]);
  });

  it('node to move: the scale-up of the full short-task pool moves gpu-d, not gpu-c', () => {
    const noTest = structuredClone(defaults);
    noTest.spec.pools.test.size = 0;
    const { plan } = pass(fleet(), pods, noTest, hot(['resnet50-infer-7d9f-0'], 90));
    const d = plan.output.scaling.find((s) => s.algorithm === 'resnet50-infer')!;
    expect(d).toMatchObject({ action: 'relabel', nodes: ['gpu-d'], replicas: { from: 1, to: 2 } });
  });

  it('the scaling side uses the same rule: leaving nodes offer 0 free GPUs there too', () => {
    const snapshot = buildSnapshot(fleet(), pods, NOW);
    expect(nodeCapacity(snapshot).map((c) => [c.node, c.freeGpus])).toEqual([
      ['gpu-a', 0],
      ['gpu-b', 0],
      ['gpu-c', 0],
      ['gpu-d', 1],
    ]);
  });

  it.each([
    ['DeletionCandidateOfClusterAutoscaler', 'PreferNoSchedule', 'Leaving'],
    ['karpenter.sh/disrupted', 'NoSchedule', 'Leaving'],
    ['karpenter.sh/disruption', 'NoSchedule', 'Leaving'],
    ['node.kubernetes.io/out-of-service', 'NoExecute', 'Leaving'],
    ['node.kubernetes.io/unschedulable', 'NoSchedule', 'Cordoned'],
    ['dedicated', 'NoSchedule', 'Tainted'],
  ] as const)('a node tainted %s:%s is no test node (%s); the clean node is', (key, effect, reason) => {
    const snapshot = buildSnapshot([t4('gpu-a', { taints: [{ key, effect }] }), t4('gpu-d')], [], NOW);
    const byNode = Object.fromEntries(assignPools(snapshot, defaults).map((a) => [a.node, a]));
    expect(byNode['gpu-a']).toMatchObject({ to: null, reason });
    expect(byNode['gpu-d']).toMatchObject({ to: 'test' });
  });

  it.each([
    ['nvidia.com/gpu', 'NoSchedule'],
    ['gpuops.dev/pool', 'NoSchedule'],
    ['example.com/prefer-not', 'PreferNoSchedule'],
  ] as const)('a taint gpuops pods tolerate (%s:%s) does not keep a node out', (key, effect) => {
    const snapshot = buildSnapshot([t4('gpu-a', { taints: [{ key, value: 'x', effect }] })], [], NOW);
    expect(assignPools(snapshot, defaults)[0]).toMatchObject({ to: 'test', reason: 'TestPool' });
  });
});

describe('issue 13.3: shared GPUs are not whole GPUs', () => {
  const shared = (labels: Record<string, string> = {}) =>
    t4('gpu-a-shared', {
      gpus: 4,
      labels: { 'nvidia.com/gpu.product': 'Tesla-T4-SHARED', 'nvidia.com/gpu.replicas': '4', ...labels },
    });

  it('the whole-GPU node is the test node; the shared one is unused, marked shared, counted as 1 GPU', () => {
    const snapshot = buildSnapshot([shared(), t4('gpu-b-whole')], [], NOW);
    const pools = assignPools(snapshot, defaults);
    expect(pools.map((a) => [a.node, a.to, a.reason])).toEqual([
      ['gpu-a-shared', 'unused', 'Unused'],
      ['gpu-b-whole', 'test', 'TestPool'],
    ]);
    expect(pools[0]!.shared).toEqual({ strategy: 'unknown', replicas: 4, physicalGpus: 1 });
    expect(pools[1]!.shared).toBeUndefined();
    expect(nodeCapacities(snapshot, pools).map((c) => [c.node, c.free, c.allocatable])).toEqual([
      ['gpu-a-shared', 1, 1],
      ['gpu-b-whole', 1, 1],
    ]);
  });

  it.each<[Record<string, string>, string]>([
    [{ 'nvidia.com/gpu.replicas': '4' }, 'time-slicing replicas'],
    [{ 'nvidia.com/gpu.product': 'Tesla-T4-SHARED', 'nvidia.com/gpu.replicas': '' }, 'product suffix'],
    [{ 'nvidia.com/gpu.product': 'Tesla-T4', 'nvidia.com/gpu.sharing-strategy': 'mps' }, 'MPS strategy'],
  ])('any one sign is enough: %o (%s)', (labels) => {
    const node = t4('gpu-a-shared', { gpus: 4, labels: { 'nvidia.com/gpu.product': 'Tesla-T4', ...labels } });
    const snapshot = buildSnapshot([node, t4('gpu-b-whole')], [], NOW);
    expect(assignPools(snapshot, defaults).find((a) => a.to === 'test')?.node).toBe('gpu-b-whole');
  });

  it('sharing-strategy none and replicas 1 are whole GPUs', () => {
    const node = t4('gpu-a', {
      labels: { 'nvidia.com/gpu.sharing-strategy': 'none', 'nvidia.com/gpu.replicas': '1' },
    });
    const snapshot = buildSnapshot([node], [], NOW);
    expect(assignPools(snapshot, defaults)[0]).toMatchObject({ to: 'test' });
  });

  it('an idle shared test node goes back to unused (SharedGPU); the whole node replaces it', () => {
    const snapshot = buildSnapshot(
      [shared({ 'gpuops.dev/pool': 'test' }), t4('gpu-b-whole', { pool: 'unused' })],
      [],
      NOW,
    );
    expect(assignPools(snapshot, defaults).map((a) => [a.node, a.to, a.reason])).toEqual([
      ['gpu-a-shared', 'unused', 'SharedGPU'],
      ['gpu-b-whole', 'test', 'TestPool'],
    ]);
  });

  it('capacity counts physical GPUs: one replica in use takes the whole T4, on both sides', () => {
    const snapshot = buildSnapshot(
      [shared({ 'gpuops.dev/pool': 'short-task' })],
      [servingPod('p-0', 'gpu-a-shared')],
      NOW,
    );
    expect(freeGpus(snapshot.nodes[0]!)).toBe(0);
    expect(nodeCapacity(snapshot)[0]!.freeGpus).toBe(0);
    const idle = buildSnapshot(
      [shared({ 'gpuops.dev/pool': 'short-task', 'nvidia.com/gpu.count': '2' })],
      [],
      NOW,
    );
    expect(freeGpus(idle.nodes[0]!)).toBe(2);
  });

  it('the plan shows it: a `shared` field in pools[] and the word in the text table', () => {
    const { plan, snapshot } = pass([shared(), t4('gpu-b-whole')], [], defaults, {
      ok: false,
      reason: 'Empty',
      message: '-',
    });
    expect(plan.output.pools.find((p) => p.node === 'gpu-a-shared')?.shared).toMatchObject({ replicas: 4 });
    const row = formatPlanTable(plan.output, snapshot)
      .split('\n')
      .find((l) => l.startsWith('gpu-a-shared'))!;
    expect(row).toContain('shared');
    expect(row).toContain('1/1');
  });
});
