/**
 * Deterministic, realistic snapshots for the Store suite and the bench: mixed GPU products,
 * cordoned and NotReady nodes, taints with and without values, MIG nodes, unbound and finished
 * pods, foreign GPU workloads, owner references.
 */
import type { NodeInfo, PodInfo, Snapshot } from '../../src/cluster/types.js';

const PRODUCTS = ['NVIDIA-A100-SXM4-80GB', 'NVIDIA-H100-80GB-HBM3', 'Tesla-T4', null] as const;
const POOLS = ['test', 'unused', 'long-task', 'short-task', null] as const;
const PHASES = ['Running', 'Pending', 'Succeeded', 'Failed', 'Unknown'] as const;

export function makeNode(i: number): NodeInfo {
  const product = PRODUCTS[i % PRODUCTS.length]!;
  const gpus = product === null ? 0 : 8;
  const cordoned = i % 17 === 3;
  const ready = i % 23 !== 5;
  const mig = product === 'NVIDIA-A100-SXM4-80GB' && i % 8 === 0;
  return {
    name: `gpu-node-${String(i).padStart(5, '0')}`,
    labels: {
      'kubernetes.io/hostname': `gpu-node-${i}`,
      'topology.kubernetes.io/zone': `eu-west-1${'abc'[i % 3]}`,
      ...(product ? { 'nvidia.com/gpu.product': product, 'nvidia.com/gpu.count': String(gpus) } : {}),
      ...(POOLS[i % POOLS.length] ? { 'gpuops.dev/pool': POOLS[i % POOLS.length]! } : {}),
    },
    ready,
    cordoned,
    schedulable: !cordoned && ready,
    gpuProduct: product,
    gpuCapacity: gpus,
    gpuAllocatable: mig ? 0 : i % 11 === 7 ? gpus - 1 : gpus,
    migAllocatable: mig ? 7 * gpus : 0,
    allocatable: { cpuMillis: 95_900 + i, memoryBytes: 1_176_546_436 * 1024, pods: 110 },
    requested: { cpuMillis: (i % 9) * 500, memoryBytes: (i % 5) * 2 ** 30, pods: i % 6 },
    gpuRequested: gpus === 0 ? 0 : i % 5,
    foreignGpuRequested: gpus === 0 ? 0 : i % 7 === 1 ? 1 : 0,
    managedPods: i % 4,
    pool: POOLS[i % POOLS.length]!,
    taints: [
      ...(product ? [{ key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' as const }] : []),
      ...(ready ? [] : [{ key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' as const }]),
      ...(cordoned ? [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' as const }] : []),
    ],
  };
}

/**
 * A node for the emptiness tests (`node_activity`): `gpu` requests one GPU, `pod` runs a managed
 * pod without GPUs, `none` holds nothing.
 */
export function activityNode(name: string, busy: 'gpu' | 'pod' | 'none'): NodeInfo {
  return {
    ...makeNode(1),
    name,
    gpuRequested: busy === 'gpu' ? 1 : 0,
    foreignGpuRequested: 0,
    managedPods: busy === 'pod' ? 1 : 0,
  };
}

export function makePod(i: number, nodes: number): PodInfo {
  const phase = PHASES[i % PHASES.length]!;
  const managed = i % 3 === 0;
  const algorithm = managed ? `algo-${i % 40}` : null;
  const bound = !(phase === 'Pending' && i % 2 === 0);
  return {
    namespace: managed ? 'gpuops-workloads' : `team-${i % 9}`,
    name: `pod-${i}-${(i * 2654435761) % 100000}`,
    uid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    labels: {
      app: `app-${i % 50}`,
      ...(managed ? { 'app.kubernetes.io/managed-by': 'gpuops', 'gpuops.dev/algorithm': algorithm! } : {}),
    },
    nodeName: bound ? `gpu-node-${String(i % nodes).padStart(5, '0')}` : null,
    phase,
    ready: phase === 'Running' && i % 13 !== 0,
    terminating: i % 97 === 0,
    gpuRequest: i % 4,
    managed,
    algorithm,
    owner: i % 10 === 9 ? null : { kind: i % 2 ? 'ReplicaSet' : 'Job', name: `owner-${i % 300}` },
    unschedulable: !bound,
    createdAt: new Date(Date.UTC(2025, 0, 1) + i * 1000).toISOString(),
    requests: { cpuMillis: (i % 8) * 250, memoryBytes: (i % 3) * 2 ** 30 },
    startedAt: bound ? new Date(Date.UTC(2025, 0, 1) + i * 1000 + 5000).toISOString() : null,
  };
}

export function makeSnapshot(nodes: number, pods: number, takenAt = '2025-03-01T12:00:00.000Z'): Snapshot {
  return {
    takenAt,
    nodes: Array.from({ length: nodes }, (_, i) => makeNode(i)),
    pods: Array.from({ length: pods }, (_, i) => makePod(i, Math.max(nodes, 1))),
  };
}
