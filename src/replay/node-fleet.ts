/**
 * The model's fixed fleet of GPU nodes (pure; docs/replay.md, "A fleet of nodes"): nodes of one
 * size, each in `short-task` or `unused`, the GPUs their pods hold, when gpuops moved them in and
 * since when they hold no pod; what they look like to the real scaling pass (`NodeCapacity`) and to
 * the real pool return (`NodeInfo`); the node-seconds the pool holds; and the size of a static
 * pool. Units: seconds from the trace's start, whole GPUs (1 GPU per pod).
 */
import type { NodeInfo } from '../cluster/index.js';
import type { NodeCapacity } from '../scaling/index.js';
import {
  fitScore,
  nodeScore,
  normaliseAffinity,
  type FitProfile,
  type FitScoring,
} from './scheduler-score.js';

/** The pools a node of the model is in. */
export type ModelPool = 'short-task' | 'unused';

/** One node of the model's fleet. */
export interface FleetNode {
  name: string;
  pool: ModelPool;
  /** Allocatable `nvidia.com/gpu`. */
  gpus: number;
  /** GPUs held by the pods bound here (≤ `gpus`). */
  used: number;
  /** When gpuops moved it into `short-task` (seconds); null while in `unused`. */
  movedAt: number | null;
  /** Since when it holds no pod (seconds); null while a pod is bound here. */
  emptySince: number | null;
}

/**
 * `count` nodes `node-000` … of `gpusPerNode` GPUs, the first `inPool` of them in `short-task`
 * (moved in by gpuops at 0: the warm-up sorts them), the rest `unused`, all empty since 0.
 * @throws Error when a count is not a whole number ≥ 0, gpusPerNode < 1, or inPool > count
 */
export function createNodes(count: number, gpusPerNode: number, inPool: number): FleetNode[] {
  for (const [name, v] of [
    ['--nodes', count],
    ['nodes in the pool', inPool],
  ] as const)
    if (!Number.isInteger(v) || v < 0) throw new Error(`${name}: expected a whole number ≥ 0, got ${v}`);
  if (!Number.isInteger(gpusPerNode) || gpusPerNode < 1)
    throw new Error(`--gpus-per-node: expected a whole number ≥ 1, got ${gpusPerNode}`);
  if (inPool > count) throw new Error(`${inPool} node(s) in the pool, but the fleet has ${count}`);
  return Array.from({ length: count }, (_, i) => ({
    name: `node-${String(i).padStart(3, '0')}`,
    pool: i < inPool ? 'short-task' : 'unused',
    gpus: gpusPerNode,
    used: 0,
    movedAt: i < inPool ? 0 : null,
    emptySince: 0,
  }));
}

/**
 * The nodes as the scaling pass sees them (`nodeCapacity`'s shape, sorted by name): free GPUs =
 * allocatable − used; cpu, memory and pod slots unbounded (the model is GPU-bound).
 */
export function nodeCapacities(nodes: readonly FleetNode[]): NodeCapacity[] {
  return [...nodes]
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .map((n) => ({
      node: n.name,
      pool: n.pool,
      gpuProduct: null,
      allocatableGpus: n.gpus,
      freeGpus: Math.max(0, n.gpus - n.used),
      free: { cpuMillis: Infinity, memoryBytes: Infinity, pods: Infinity },
    }));
}

/** The nodes as a snapshot lists them (`NodeInfo`: Ready, schedulable, their GPUs held by gpuops's pods). */
export function nodeInfos(nodes: readonly FleetNode[]): NodeInfo[] {
  const room = { cpuMillis: 0, memoryBytes: 0, pods: 0 };
  return nodes.map((n) => ({
    name: n.name,
    labels: {},
    ready: true,
    cordoned: false,
    schedulable: true,
    gpuProduct: null,
    gpuCapacity: n.gpus,
    gpuAllocatable: n.gpus,
    migAllocatable: 0,
    allocatable: room,
    requested: room,
    gpuRequested: n.used,
    foreignGpuRequested: 0,
    managedPods: n.used,
    pool: n.pool,
    taints: [],
  }));
}

/**
 * The node that takes the next pod, as kube-scheduler scores the pool's nodes with room for one
 * (`scheduler-score.ts`): NodeResourcesFit by `scoring` (a bare strategy: the default profile's cpu
 * and memory, the pods asking them in proportion to their GPUs; `LeastAllocated`, its default,
 * favours the most free GPUs; `MostAllocated`, bin packing, the fewest) plus twice InterPodAffinity's score of
 * `affinityRaw` (each node's raw score for this pod; none: 0 everywhere); ties by name. Null when
 * no node of `pool` has a free GPU.
 */
export function pickNode(
  nodes: readonly FleetNode[],
  pool: ModelPool,
  scoring: FitScoring | FitProfile,
  affinityRaw?: (n: FleetNode) => number,
): FleetNode | null {
  const feasible = nodes.filter((n) => n.pool === pool && n.used < n.gpus);
  const affinity = normaliseAffinity(feasible.map((n) => affinityRaw?.(n) ?? 0));
  let best: FleetNode | null = null;
  let bestScore = -Infinity;
  feasible.forEach((n, i) => {
    const score = nodeScore(fitScore(scoring, n.gpus, n.used), affinity[i]!);
    if (score > bestScore || (score === bestScore && n.name < best!.name)) {
      best = n;
      bestScore = score;
    }
  });
  return best;
}

/** One pod bound to `node` at `t`, or one gone from it (`delta` −1); the empty time follows. */
export function holdGpu(node: FleetNode, delta: 1 | -1, t: number): void {
  node.used += delta;
  if (node.used < 0 || node.used > node.gpus)
    throw new Error(`${node.name}: ${node.used} GPU(s) held of ${node.gpus}`);
  node.emptySince = node.used === 0 ? t : null;
}

/** Nodes of a static pool holding `replicas` pods of 1 GPU: ceil(replicas ÷ gpusPerNode); 0 for 0. */
export function staticPoolNodes(replicas: number, gpusPerNode: number): number {
  if (!Number.isInteger(gpusPerNode) || gpusPerNode < 1)
    throw new Error(`--gpus-per-node: expected a whole number ≥ 1, got ${gpusPerNode}`);
  return Math.ceil(Math.max(0, replicas) / gpusPerNode);
}
