import { notGpuBoundNote } from '../capacity.js';
import { replicasThatFit } from '../fit.js';
import type { NodeCapacity } from '../types.js';
import { hold, type Facts, type Verdict } from './facts.js';

/** How a move of unused nodes is asked for (see {@link relabel}). */
export interface RelabelAsk {
  /** Pods of `resources.gpus` GPUs the moved nodes must make room for. */
  need: number;
  /** Replicas to add, given the pods the moved nodes have room for (0: replicas stay). */
  add: (fit: number) => number;
  /** Why nodes move; opens the message. */
  why: string;
  /** Only with a sample from every Ready pod (default true). */
  requireSamples?: boolean;
}

/**
 * Moves `unused` nodes into the algorithm's pool (`relabel RelabelUnusedNode`) until `need` more
 * pods fit, then scales up onto them by `add(fit)`: DESIGN.md's "above max and no such node → move
 * at least one unused node into the algorithm's pool". Candidates are unused nodes with at least
 * one pod's GPUs free (a pod never spans nodes; a node with exactly `resources.gpus` free counts),
 * the pool's GPU product first (`nvidia.com/gpu.product`, so replicas stay alike), then by name.
 * No node is moved on partial data (`InsufficientSamples`, as the HPA never acts on missing
 * metrics) unless the ask says the evidence is not utilisation (Pending pods); no candidate →
 * `hold NoCapacity`.
 */
export function relabel(f: Facts, ask: RelabelAsk): Verdict {
  const { input, gpus, request } = f;
  if ((ask.requireSamples ?? true) && !f.complete) {
    return hold(
      f,
      'InsufficientSamples',
      `${ask.why}, but only ${f.sampled.length} of ${f.ready.length} Ready pod(s) have a sample${f.droppedNote}; no node is moved on partial data`,
    );
  }
  const products = new Set(input.poolNodes.map((n) => n.gpuProduct).filter((p): p is string => p !== null));
  const rank = (n: NodeCapacity) => (n.gpuProduct !== null && products.has(n.gpuProduct) ? 0 : 1);
  const candidates = input.unusedNodes
    .filter((n) => replicasThatFit(n, request) >= 1)
    .sort((a, b) => rank(a) - rank(b) || (a.node < b.node ? -1 : a.node > b.node ? 1 : 0));
  if (candidates.length === 0) {
    return hold(
      f,
      'NoCapacity',
      `${ask.why}; no node of pool ${f.pool} has ${gpus} free GPU(s) and no unused node does either (${input.unusedNodes.length} unused node(s))${notGpuBoundNote([...input.poolNodes, ...input.unusedNodes], request)}`,
    );
  }
  const chosen: NodeCapacity[] = [];
  let got = 0;
  for (const n of candidates) {
    if (got >= ask.need) break;
    chosen.push(n);
    got += replicasThatFit(n, request);
  }
  const to = f.from + ask.add(got);
  const names = chosen.map((n) => n.node);
  return {
    action: 'relabel',
    to,
    reason: 'RelabelUnusedNode',
    message:
      `${ask.why}; pool ${f.pool} has no room for a pod of ${gpus} GPU(s)${notGpuBoundNote(input.poolNodes, request)}, moving unused node(s) ${names.join(', ')} ` +
      `(${chosen.map((n) => `${n.freeGpus} free ${n.gpuProduct ?? 'GPU'}`).join(', ')}) into it` +
      (to === f.from ? `; replicas stay at ${f.from}` : `, then scaling ${f.from} → ${to}`),
    nodes: names,
  };
}
