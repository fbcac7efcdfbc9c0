/**
 * What a decision takes from the shared view of capacity (pure): the GPUs its replicas not bound
 * to a node yet will take, per node, so that `decideAll` deducts them before the next algorithm
 * is decided and two algorithms never count on the same free GPUs.
 */
import { countedPods } from './counted-pods.js';
import type { NodeCapacity, ScalingDecision, ScalingInput } from './types.js';

/** GPUs claimed on one node (whole GPUs). */
export interface Claim {
  node: string;
  gpus: number;
}

/**
 * The claims of `decision` for `input`: the replicas in Git not bound to a node yet plus the ones
 * it adds (`to − from`, never less than 0: a scale-down frees GPUs only once its pods are gone),
 * each of `resources.gpus` GPUs, placed on the pool's nodes and the unused nodes it moves in
 * (`decision.nodes`) as the default scheduler scores nodes (LeastAllocated): most free node first,
 * ties by name, never on a node short of a pod's GPUs. Pods that fit nowhere claim nothing.
 */
export function claimsOf(input: ScalingInput, decision: ScalingDecision): Claim[] {
  const gpus = Math.max(1, input.algorithm.spec.resources.gpus);
  const from = decision.replicas.from;
  const bound = countedPods(input.pods, from, input.currentReplicaSet ?? null).filter(
    (p) => p.nodeName !== null,
  ).length;
  const outstanding = Math.max(0, from - bound);
  const moved = input.unusedNodes.filter((n) => decision.nodes.includes(n.node));
  const added = Math.max(0, decision.replicas.to - from);
  return place([...input.poolNodes, ...moved], gpus, added + outstanding);
}

/** Predicted placement of `count` pods of `gpus` GPUs: most free node first, ties by name. */
export function place(nodes: readonly NodeCapacity[], gpus: number, count: number): Claim[] {
  const taken = new Map<string, number>();
  for (let i = 0; i < count; i++) {
    let best: string | null = null;
    let bestFree = -1;
    for (const n of nodes) {
      const f = n.freeGpus - (taken.get(n.node) ?? 0);
      if (f < gpus) continue;
      if (f > bestFree || (f === bestFree && best !== null && n.node < best)) {
        best = n.node;
        bestFree = f;
      }
    }
    if (best === null) break;
    taken.set(best, (taken.get(best) ?? 0) + gpus);
  }
  return [...taken].map(([node, g]) => ({ node, gpus: g }));
}
