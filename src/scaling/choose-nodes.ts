/**
 * Which `unused` nodes a scale-up moves into a pool (pure): the GPU product the algorithm asks for
 * or was benchmarked on first, then the smallest node that fits the replicas still needed, so a
 * 1-GPU replica never takes an 8×A100 node while a 1-GPU T4 sits unused.
 */
import { byString } from '../util/index.js';
import { replicasThatFit, type PodRequest } from './fit.js';
import type { NodeCapacity, ProductChoice } from './types.js';

export type { ProductChoice } from './types.js';

/** One node chosen, with the replicas of the request it fits and why it was taken. */
export interface ChosenNode {
  node: NodeCapacity;
  /** Replicas of the request that fit on it (`replicasThatFit`, ≥ 1). */
  fits: number;
  /** For the decision and the PR body: `Tesla-T4, 1 GPU: smallest unused node of the product that fits 1 replica`. */
  why: string;
}

const byName = (a: NodeCapacity, b: NodeCapacity) => byString(a.node, b.node);
const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/**
 * Picks unused nodes until `need` replicas of `request` fit on them (at least one node, when any
 * fits one replica). A node fits when the whole request fits (`replicasThatFit ≥ 1`: GPUs, cpu,
 * memory and a pod slot, as kube-scheduler's NodeResourcesFit judges it). Order of preference:
 * 1. tier: a node of `choice.products` (the product), then — only when the algorithm names or
 *    measured none — a node of a product the pool already has (`poolProducts`: replicas stay
 *    alike), then any other node; with `choice.required` only the first tier is considered;
 * 2. within a tier, while replicas are still needed: the smallest node (fewest allocatable GPUs)
 *    that fits all of them; when none does, the node that fits the most (then the smaller), and
 *    on to the next one for the rest;
 * 3. ties by node name.
 * Exactly enough room is a fit (a 1-GPU node for one 1-GPU replica); one GPU, core or byte short
 * is none. `fits` says how many replicas a node takes once in the pool (default: its resources;
 * the scaling rule passes its placer's answer, kube-scheduler's filters). Returns the chosen
 * nodes in the order taken; `[]` when no node fits one replica.
 */
export function chooseUnusedNodes(
  unused: readonly NodeCapacity[],
  request: PodRequest,
  need: number,
  choice: ProductChoice,
  poolProducts: readonly string[],
  fits: (node: NodeCapacity) => number = (node) => replicasThatFit(node, request),
): ChosenNode[] {
  // A node without a product label (null) is in neither set.
  const wanted = new Set<string | null>(choice.products);
  const alike = new Set<string | null>(poolProducts);
  const tierOf = (n: NodeCapacity): number => {
    if (wanted.has(n.gpuProduct)) return 0;
    if (choice.required) return -1;
    if (wanted.size === 0 && alike.has(n.gpuProduct)) return 1;
    return 2;
  };
  const tierWords = [' of the product', " of the pool's product", ''];
  const left = unused
    .map((node) => ({ node, fits: fits(node), tier: tierOf(node) }))
    .filter((c) => c.fits >= 1 && c.tier >= 0);
  const out: ChosenNode[] = [];
  let remaining = Math.max(1, need);
  while (remaining > 0 && left.length > 0) {
    const tier = Math.min(...left.map((c) => c.tier));
    const inTier = left.filter((c) => c.tier === tier);
    const whole = inTier.filter((c) => c.fits >= remaining);
    const pick = whole.length
      ? whole.sort((a, b) => a.node.allocatableGpus - b.node.allocatableGpus || byName(a.node, b.node))[0]!
      : inTier.sort(
          (a, b) =>
            b.fits - a.fits || a.node.allocatableGpus - b.node.allocatableGpus || byName(a.node, b.node),
        )[0]!;
    const what = `${pick.node.gpuProduct ?? 'no product label'}, ${plural(pick.node.allocatableGpus, 'GPU')}`;
    const why = whole.length
      ? `${what}: smallest unused node${tierWords[tier]} that fits ${plural(remaining, 'replica')}`
      : `${what}: largest unused node${tierWords[tier]}, fits ${pick.fits} of ${plural(remaining, 'replica')}`;
    out.push({ node: pick.node, fits: pick.fits, why });
    left.splice(left.indexOf(pick), 1);
    remaining -= pick.fits;
  }
  return out;
}
