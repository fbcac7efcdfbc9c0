/**
 * Issue 23 item 6: MIG's `single` strategy advertises MIG devices as `nvidia.com/gpu`. A slice is
 * never a whole GPU and never a test node; the `mixed` strategy keeps its whole GPUs. Nodes as
 * GPU Feature Discovery and the device plugin label them, through the snapshot model and
 * `assignPools`; F03 (fleet-faults) through `gpuops plan` as its run.sh drives it.
 */
import { fileURLToPath } from 'node:url';
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { migSingleProfile } from '../../src/cluster/mig.js';
import { buildSnapshot } from '../../src/cluster/snapshot.js';
import { assignPools } from '../../src/pools/assign.js';
import { freeGpus } from '../../src/pools/capacity.js';
import { runMain } from '../support/run-main.js';

const NOW = new Date('2026-03-01T10:00:00Z');
const POLICY = {
  spec: {
    pools: {
      labelKey: 'gpuops.dev/pool',
      taint: { enabled: false, effect: 'NoSchedule' as const },
      test: { size: 1, perGPUProduct: false },
      returnAfterSeconds: 1800,
      prePull: { enabled: false },
    },
  },
};

/** An A100 node as GFD labels it; `gpus` is `nvidia.com/gpu`, `extra` more allocatable resources. */
function a100(
  name: string,
  o: { gpus: number; labels?: Record<string, string>; extra?: Record<string, string>; pool?: string },
): V1Node {
  const resources = {
    cpu: '96',
    memory: '1000Gi',
    pods: '110',
    'nvidia.com/gpu': String(o.gpus),
    ...o.extra,
  };
  return {
    metadata: {
      name,
      labels: {
        'nvidia.com/gpu.product': 'NVIDIA-A100-SXM4-40GB',
        'nvidia.com/mig.capable': 'true',
        ...(o.pool ? { 'gpuops.dev/pool': o.pool } : {}),
        ...o.labels,
      },
    },
    status: { conditions: [{ type: 'Ready', status: 'True' }], capacity: resources, allocatable: resources },
  };
}

const SINGLE = {
  'nvidia.com/mig.strategy': 'single',
  'nvidia.com/gpu.product': 'NVIDIA-A100-SXM4-40GB-MIG-1g.5gb',
  'nvidia.com/gpu.slices.gi': '1',
};

function benchmarkPod(node: string): V1Pod {
  return {
    metadata: {
      name: 'gpuops-bench-x-1',
      namespace: 'algorithms',
      labels: { 'app.kubernetes.io/managed-by': 'gpuops', 'gpuops.dev/algorithm': 'x' },
      ownerReferences: [{ kind: 'Job', name: 'gpuops-bench-x', apiVersion: 'batch/v1', uid: 'j' }],
    },
    spec: { nodeName: node, containers: [{ name: 'c', resources: { limits: { 'nvidia.com/gpu': '1' } } }] },
    status: { phase: 'Running' },
  };
}

describe('migSingleProfile: which nvidia.com/gpu are MIG devices', () => {
  it.each([
    ['single strategy, product with the MIG profile', SINGLE, '1g.5gb'],
    [
      'product names the profile, no strategy label',
      { 'nvidia.com/gpu.product': 'A100-SXM4-40GB-MIG-3g.20gb' },
      '3g.20gb',
    ],
    ['only nvidia.com/gpu.slices.gi says so', { 'nvidia.com/gpu.slices.gi': '2' }, ''],
    [
      'single strategy on a MIG-capable GPU with MIG disabled: whole',
      {
        'nvidia.com/mig.strategy': 'single',
        'nvidia.com/gpu.product': 'NVIDIA-A100-SXM4-40GB',
        'nvidia.com/mig.config': 'all-disabled',
      },
      null,
    ],
    [
      'mixed strategy: nvidia.com/gpu stays whole',
      { 'nvidia.com/mig.strategy': 'mixed', 'nvidia.com/gpu.product': 'NVIDIA-A100-SXM4-80GB' },
      null,
    ],
    ['no GFD labels at all', {}, null],
  ])('%s → %s', (_name, labels, profile) => {
    expect(migSingleProfile(labels as Record<string, string>)).toBe(profile);
  });
});

describe('assignPools: a MIG device is never a whole GPU nor a test node', () => {
  const decide = (nodes: V1Node[], pods: V1Pod[] = []) => {
    const snapshot = buildSnapshot(nodes, pods, NOW);
    const by = new Map(assignPools(snapshot, POLICY).map((a) => [a.node, a]));
    return { snapshot, by };
  };

  it('single strategy, 7 slices: no whole GPU, no pool, MIGOnly naming the strategy; the whole-GPU node is the test node', () => {
    const { snapshot, by } = decide([
      a100('a-single', { gpus: 7, labels: SINGLE }),
      a100('b-whole', { gpus: 1 }),
    ]);
    const single = snapshot.nodes.find((n) => n.name === 'a-single')!;
    expect(single).toMatchObject({ gpuAllocatable: 0, gpuCapacity: 0, migAllocatable: 7 });
    expect(freeGpus(single)).toBe(0);
    expect(by.get('a-single')).toMatchObject({ to: null, reason: 'MIGOnly' });
    expect(by.get('a-single')!.message).toContain(
      'MIG strategy single: its 7 nvidia.com/gpu are MIG 1g.5gb devices',
    );
    expect(by.get('b-whole')).toMatchObject({ to: 'test', reason: 'TestPool' });
  });

  it('the only GPU node is MIG single: there is no test node at all', () => {
    const { by } = decide([a100('a-single', { gpus: 7, labels: SINGLE })]);
    expect([...by.values()].filter((a) => a.to === 'test')).toEqual([]);
  });

  it('single strategy with MIG disabled (the neighbour): 1 whole GPU, becomes the test node', () => {
    const { snapshot, by } = decide([
      a100('c-disabled', {
        gpus: 1,
        labels: { 'nvidia.com/mig.strategy': 'single', 'nvidia.com/mig.config': 'all-disabled' },
      }),
    ]);
    expect(snapshot.nodes[0]).toMatchObject({ gpuAllocatable: 1, migAllocatable: 0 });
    expect(by.get('c-disabled')).toMatchObject({ to: 'test', reason: 'TestPool' });
  });

  it('mixed strategy: 6 whole GPUs beside 14 slices stay whole and eligible', () => {
    const { snapshot, by } = decide([
      a100('b-mixed', {
        gpus: 6,
        labels: { 'nvidia.com/mig.strategy': 'mixed' },
        extra: { 'nvidia.com/mig-1g.10gb': '14' },
      }),
    ]);
    expect(snapshot.nodes[0]).toMatchObject({ gpuAllocatable: 6, migAllocatable: 14 });
    expect(by.get('b-mixed')).toMatchObject({ to: 'test' });
  });

  it.each(['test', 'unused', 'long-task'])(
    'a MIG-single node already in %s with nothing running leaves the pool (MIGOnly)',
    (pool) => {
      const { by } = decide([a100('a-single', { gpus: 7, labels: SINGLE, pool })]);
      expect(by.get('a-single')).toMatchObject({ from: pool, to: null, reason: 'MIGOnly' });
      expect(by.get('a-single')!.message).toContain(`leaves the ${pool} pool`);
    },
  );

  it('a MIG-single test node running a benchmark stays until it ends (InUse)', () => {
    const { by } = decide(
      [a100('a-single', { gpus: 7, labels: SINGLE, pool: 'test' })],
      [benchmarkPod('a-single')],
    );
    expect(by.get('a-single')).toMatchObject({ from: 'test', to: 'test', reason: 'InUse' });
  });
});

describe('F03 (fleet-faults) through gpuops plan', () => {
  const dir = fileURLToPath(new URL('../fixtures/fleet-faults/F03/', import.meta.url));

  it('gpu-a-mig-single gets no pool, gpu-b-mig-mixed keeps its 6 whole GPUs, the test node is a whole-GPU node', async () => {
    const run = await runMain(
      'plan',
      '--repo',
      `${dir}repo`,
      '--nodes',
      `${dir}nodes.json`,
      '--pods',
      `${dir}pods.json`,
      '--now',
      '2026-03-01T10:00:00Z',
      '--output',
      'json',
    );
    expect(run.code).toBe(0);
    const pools = new Map(
      (
        JSON.parse(run.out) as { pools: { node: string; to: string | null; reason: string; gpus: unknown }[] }
      ).pools.map((p) => [p.node, p]),
    );
    expect(pools.get('gpu-a-mig-single')).toMatchObject({ to: null, reason: 'MIGOnly', gpus: null });
    expect(pools.get('gpu-b-mig-mixed')).toMatchObject({ gpus: { allocatable: 6, free: 6 } });
    const tests = [...pools.values()].filter((p) => p.to === 'test').map((p) => p.node);
    expect(tests).toHaveLength(1);
    expect(['gpu-b-mig-mixed', 'gpu-c-whole']).toContain(tests[0]);
  });
});
