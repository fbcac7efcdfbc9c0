import type { Snapshot } from '../cluster/types.js';
import { freeWholeGpus } from '../pools/capacity.js';
import type { NodeCapacity } from './types.js';

/**
 * Free whole GPUs of every GPU node in a snapshot (pure). Free = `allocatable` − GPUs requested by
 * ANY live pod bound to the node (managed or not; Pending-unbound, Succeeded and Failed pods hold
 * none), never below 0. A node that is not Ready, is cordoned or carries an unreachable/not-ready
 * taint (`schedulable: false`) offers 0: the scheduler would not place a pod there. Sorted by name.
 * `schedulable` is the pools' one rule of "taints that mean no new pods" (`noNewPodsTaints`), so
 * a node the Cluster Autoscaler or Karpenter is removing is never an unused node to move.
 */
export function nodeCapacity(snapshot: Snapshot): NodeCapacity[] {
  const requested = new Map<string, number>();
  for (const p of snapshot.pods) {
    if (p.nodeName === null || p.phase === 'Succeeded' || p.phase === 'Failed') continue;
    requested.set(p.nodeName, (requested.get(p.nodeName) ?? 0) + p.gpuRequest);
  }
  return snapshot.nodes
    .filter((n) => n.gpuAllocatable > 0 || n.gpuCapacity > 0)
    .map((n) => {
      const used = Math.max(n.gpuRequested, requested.get(n.name) ?? 0);
      const offers = n.ready && n.schedulable && !n.cordoned;
      return {
        node: n.name,
        pool: n.pool,
        gpuProduct: n.gpuProduct,
        // Shared (time-sliced / MPS) GPUs count per physical GPU: the pools' one rule.
        freeGpus: offers ? freeWholeGpus(n, used) : 0,
      };
    })
    .sort((a, b) => (a.node < b.node ? -1 : a.node > b.node ? 1 : 0));
}

/** Pods of `gpus` GPUs each that fit on these nodes (a pod never spans nodes). */
export function podSlots(nodes: readonly NodeCapacity[], gpus: number): number {
  let slots = 0;
  for (const n of nodes) slots += Math.floor(n.freeGpus / gpus);
  return slots;
}
