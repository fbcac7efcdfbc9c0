import { notGpuBoundNote } from '../capacity.js';
import { chooseUnusedNodes } from '../choose-nodes.js';
import { hold, type Facts, type Verdict } from './facts.js';
import { partialData } from './partial-data.js';
import type { NodeCapacity } from '../types.js';

/**
 * How many more replicas the pool takes with an unused node moved in, as its placer places them
 * (pool's nodes plus that node, minus the pool's nodes alone, at most `need`); without a placer
 * the node's own room (`chooseUnusedNodes`'s default).
 */
function gain(f: Facts, need: number): ((node: NodeCapacity) => number) | undefined {
  const placer = f.input.placer;
  if (!placer) return undefined;
  const pool = f.input.poolNodes;
  const limit = f.from + f.outstanding + need + 1;
  const before = placer.slots(pool, f.pool, limit);
  return (node) => Math.min(need, placer.slots([...pool, node], f.pool, limit) - before);
}

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
 * pods fit, then scales up onto them by `add(fit)`: docs/design.md's "above max and no such node →
 * move at least one unused node into the algorithm's pool". Which nodes is `chooseUnusedNodes`'s
 * rule (a 1-GPU replica never takes an 8×A100 while a T4 sits unused): the GPU product the
 * algorithm asks for or was benchmarked on (`input.products`; with a required product no other is
 * ever moved), else the pool's product, then the smallest node that fits the replicas still needed
 * (its whole request: GPUs, cpu, memory, a pod slot), ties by name; the message says why each node
 * was taken. No node is moved on a partial answer (`PartialData`) nor on partial data
 * (`InsufficientSamples`, as the HPA never acts on missing metrics) unless the ask says the
 * evidence is not utilisation (Pending pods); no candidate → `hold NoCapacity`.
 */
export function relabel(f: Facts, ask: RelabelAsk): Verdict {
  const { input, gpus, request } = f;
  const partial = (ask.requireSamples ?? true) ? partialData(f, ask.why, 'move a node') : null;
  if (partial) return partial;
  if ((ask.requireSamples ?? true) && !f.complete) {
    return hold(
      f,
      'InsufficientSamples',
      `${ask.why}, but only ${f.sampled.length} of ${f.ready.length} Ready pod(s) have a sample${f.droppedNote}; no node is moved on partial data`,
    );
  }
  const choice = input.products ?? { products: [], required: false };
  const poolProducts = input.poolNodes.map((n) => n.gpuProduct).filter((p): p is string => p !== null);
  const chosen = chooseUnusedNodes(
    input.unusedNodes,
    request,
    ask.need,
    choice,
    poolProducts,
    gain(f, ask.need),
  );
  const of = choice.required ? ` of ${choice.products.join(' or ')}` : '';
  const placer = input.placer;
  const why = placer ? (n: NodeCapacity) => placer.refusals(n, f.pool) : undefined;
  if (chosen.length === 0) {
    return hold(
      f,
      'NoCapacity',
      `${ask.why}; no node of pool ${f.pool} has ${placer ? `room for a pod of ${gpus} GPU(s)` : `${gpus} free GPU(s)`} and no unused node${of} does either (${input.unusedNodes.length} unused node(s))${notGpuBoundNote([...input.poolNodes, ...input.unusedNodes], request, why)}`,
    );
  }
  const got = chosen.reduce((sum, c) => sum + c.fits, 0);
  const to = f.from + ask.add(got);
  const names = chosen.map((c) => c.node.node);
  return {
    action: 'relabel',
    to,
    reason: 'RelabelUnusedNode',
    message:
      `${ask.why}; pool ${f.pool} has no room for a pod of ${gpus} GPU(s)${notGpuBoundNote(input.poolNodes, request, why)}, moving unused node(s) ` +
      `${chosen.map((c) => `${c.node.node} (${c.why})`).join(', ')} into it` +
      (to === f.from ? `; replicas stay at ${f.from}` : `, then scaling ${f.from} → ${to}`),
    nodes: names,
  };
}
