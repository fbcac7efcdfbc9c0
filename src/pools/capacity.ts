import { gpuSharing } from '../cluster/snapshot.js';
import type { NodeInfo, Snapshot } from '../cluster/index.js';
import type { Pool } from '../definitions/index.js';
import { isHealthy } from './eligibility.js';
import type { PoolAssignment } from './types.js';
import type { VendorId } from '../util/index.js';

/** What one node offers to new work, in whole GPUs. */
export interface NodeCapacity {
  node: string;
  /** Desired pool (the assignment's `to`), or the node's current pool when it has no assignment. */
  pool: Pool | null;
  gpuProduct: string | null;
  /** The vendor of its GPUs, when not NVIDIA (`NodeInfo.vendor`): an algorithm counts only its vendor's. */
  vendor?: VendorId;
  /** `status.allocatable` of its vendor's GPU resource; for a node with shared GPUs, its physical GPUs. */
  allocatable: number;
  /** GPUs requested by every live pod bound to the node, gpuops-managed or not. */
  used: number;
  /** GPUs a new pod can get: allocatable − used, floored at 0; 0 when the node is NotReady, cordoned or tainted unreachable/not-ready. */
  free: number;
}

/**
 * Free whole GPUs of one node. GPUs held by any pod count as used; a node that is not Ready, not
 * schedulable (cordoned, leaving, tainted: `NodeInfo.schedulable`), or has no allocatable GPU
 * offers 0 (it keeps its pool but no capacity). Shared GPUs count per physical GPU: see
 * {@link freeWholeGpus}.
 */
export function freeGpus(node: NodeInfo): number {
  if (!isHealthy(node)) return 0;
  return freeWholeGpus(node, node.gpuRequested);
}

/**
 * Whole GPUs free on a node whose pods request `requested` `nvidia.com/gpu` in all (pure; no
 * health check). Whole GPUs: allocatable − requested. Shared GPUs (time-slicing / MPS, see
 * `gpuSharing`): a physical GPU is free only while none of its `replicas` is requested, so free =
 * physical − ⌈requested ÷ replicas⌉ (the device plugin may spread the requests over the GPUs; this
 * assumes it packs them, the most it can offer). Never below 0. The scaling step's capacity uses
 * this too.
 */
export function freeWholeGpus(node: Pick<NodeInfo, 'labels' | 'gpuAllocatable'>, requested: number): number {
  const shared = gpuSharing(node);
  if (!shared) return Math.max(0, node.gpuAllocatable - requested);
  return Math.max(0, shared.physicalGpus - Math.ceil(requested / shared.replicas));
}

/**
 * Capacity of every node, with its desired pool taken from `assignments` (by node name). Nodes
 * keep snapshot order.
 */
export function nodeCapacities(snapshot: Snapshot, assignments: PoolAssignment[]): NodeCapacity[] {
  const to = new Map(assignments.map((a) => [a.node, a.to]));
  return snapshot.nodes.map((n) => ({
    node: n.name,
    pool: to.has(n.name) ? to.get(n.name)! : n.pool,
    gpuProduct: n.gpuProduct,
    ...(n.vendor && n.vendor !== 'nvidia' ? { vendor: n.vendor } : {}),
    allocatable: gpuSharing(n)?.physicalGpus ?? n.gpuAllocatable,
    used: n.gpuRequested,
    free: freeGpus(n),
  }));
}

/**
 * Node capacities grouped by desired pool: `poolCapacity(s, a)['long-task']` lists the long-task
 * nodes with their free GPUs. Nodes without a pool are left out.
 */
export function poolCapacity(
  snapshot: Snapshot,
  assignments: PoolAssignment[],
): Record<Pool, NodeCapacity[]> {
  const out: Record<Pool, NodeCapacity[]> = { test: [], unused: [], 'long-task': [], 'short-task': [] };
  for (const c of nodeCapacities(snapshot, assignments)) if (c.pool) out[c.pool].push(c);
  return out;
}

/** Sum of free GPUs of the nodes of one pool. */
export function freeGpusInPool(capacity: Record<Pool, NodeCapacity[]>, pool: Pool): number {
  return capacity[pool].reduce((sum, c) => sum + c.free, 0);
}
