import { describe, expect, it } from 'vitest';
import type { NodeCapacity, ScalingInput } from '../types.js';
import { algorithm, baseInput, factsOf, node, sample } from '../../../test/scaling/support.js';
import { relabel, type RelabelAsk } from './relabel.js';

/** Three Ready pods at 95 %, a full pool of A100s, these unused nodes. */
const full = (unusedNodes: NodeCapacity[], o: Partial<ScalingInput> = {}): ScalingInput => ({
  ...baseInput([95, 95, 95]),
  poolNodes: [node('lt-1', 'long-task', 0)],
  unusedNodes,
  ...o,
});
const ask = (need: number, o: Partial<RelabelAsk> = {}): RelabelAsk => ({
  need,
  add: (fit) => Math.min(need, fit),
  why: 'why',
  ...o,
});
const run = (input: ScalingInput, a: RelabelAsk) => {
  const v = relabel(factsOf(input), a);
  return `${v.action} ${v.reason} ${v.to} [${(v.nodes ?? []).join(',')}]`;
};

describe('relabel: unused nodes move in until the pods fit', () => {
  it.each<[string, ScalingInput, RelabelAsk, string]>([
    [
      'TheSameGpuProductFirst',
      full([node('a-t4', 'unused', 4, 'Tesla-T4'), node('z-a100', 'unused', 8)]),
      ask(1),
      'relabel RelabelUnusedNode 4 [z-a100]',
    ],
    [
      // The fault this row guards: an 8×A100 moved into a T4 pool for a 1-GPU replica while T4 nodes sat unused.
      'TheBenchmarkedProductBeforeThePools',
      full([node('a-a100', 'unused', 8), node('t4-1', 'unused', 1, 'Tesla-T4')], {
        products: { products: ['Tesla-T4'], required: false },
      }),
      ask(1),
      'relabel RelabelUnusedNode 4 [t4-1]',
    ],
    [
      'TheSmallestThatFits',
      full([node('a-8', 'unused', 8), node('b-2', 'unused', 2), node('c-1', 'unused', 1)]),
      ask(2),
      'relabel RelabelUnusedNode 5 [b-2]',
    ],
    [
      'ARequiredProductWithNoUnusedNodeIsNoCapacity',
      full([node('a-a100', 'unused', 8)], { products: { products: ['Tesla-T4'], required: true } }),
      ask(1),
      'hold NoCapacity 3 []',
    ],
    [
      'ThenByName',
      full([node('u-c', 'unused', 1), node('u-a', 'unused', 1), node('u-b', 'unused', 1)]),
      ask(1),
      'relabel RelabelUnusedNode 4 [u-a]',
    ],
    [
      'AsManyAsNeeded',
      full([node('u-b', 'unused', 1), node('u-a', 'unused', 1), node('u-c', 'unused', 1)]),
      ask(2),
      'relabel RelabelUnusedNode 5 [u-a,u-b]',
    ],
    [
      'ExactlyAPodsGpusFreeCounts',
      full([node('u', 'unused', 2)], { algorithm: algorithm({ gpus: 2 }) }),
      ask(1),
      'relabel RelabelUnusedNode 4 [u]',
    ],
    [
      'OneGpuShortIsNoCapacity',
      full([node('u', 'unused', 1)], { algorithm: algorithm({ gpus: 2 }) }),
      ask(1),
      'hold NoCapacity 3 []',
    ],
    ['NoUnusedNodeIsNoCapacity', full([]), ask(1), 'hold NoCapacity 3 []'],
    [
      'PartialDataMovesNothing',
      full([node('u', 'unused', 1)], { samples: [sample('resnet50-infer-7d9f-0', 95)] }),
      ask(1),
      'hold InsufficientSamples 3 []',
    ],
    [
      'PendingPodsNeedNoSample',
      full([node('u', 'unused', 1)], { samples: [sample('resnet50-infer-7d9f-0', 95)] }),
      ask(1, { requireSamples: false }),
      'relabel RelabelUnusedNode 4 [u]',
    ],
    [
      'ReplicasStayWhenNothingIsAdded',
      full([node('u', 'unused', 1)]),
      ask(1, { add: () => 0 }),
      'relabel RelabelUnusedNode 3 [u]',
    ],
  ])('%s', (_name, input, a, want) => {
    expect(run(input, a)).toBe(want);
  });

  it.each<[string, ScalingInput, RelabelAsk, string]>([
    [
      'Moved',
      full([node('u', 'unused', 2), node('v', 'unused', 1, null)]),
      ask(3),
      "why; pool long-task has no room for a pod of 1 GPU(s), moving unused node(s) u (NVIDIA-A100-SXM4-80GB, 2 GPUs: largest unused node of the pool's product, fits 2 of 3 replicas), v (no product label, 1 GPU: smallest unused node that fits 1 replica) into it, then scaling 3 → 6",
    ],
    [
      'Stay',
      full([node('u', 'unused', 1)]),
      ask(1, { add: () => 0 }),
      "why; pool long-task has no room for a pod of 1 GPU(s), moving unused node(s) u (NVIDIA-A100-SXM4-80GB, 1 GPU: smallest unused node of the pool's product that fits 1 replica) into it; replicas stay at 3",
    ],
    [
      'NoCapacity',
      full([node('u', 'unused', 1)], { algorithm: algorithm({ gpus: 2 }) }),
      ask(1),
      'why; no node of pool long-task has 2 free GPU(s) and no unused node does either (1 unused node(s))',
    ],
    [
      'TheProductWhy',
      full([node('a-a100', 'unused', 8), node('t4-1', 'unused', 1, 'Tesla-T4')], {
        products: { products: ['Tesla-T4'], required: false },
      }),
      ask(1),
      'why; pool long-task has no room for a pod of 1 GPU(s), moving unused node(s) t4-1 (Tesla-T4, 1 GPU: smallest unused node of the product that fits 1 replica) into it, then scaling 3 → 4',
    ],
    [
      'NoCapacityOfTheRequiredProduct',
      full([node('a-a100', 'unused', 8)], { products: { products: ['Tesla-T4'], required: true } }),
      ask(1),
      'why; no node of pool long-task has 1 free GPU(s) and no unused node of Tesla-T4 does either (1 unused node(s))',
    ],
    [
      'Partial',
      full([node('u', 'unused', 1)], { samples: [sample('resnet50-infer-7d9f-0', 95)], dropped: 'Stale: 2' }),
      ask(1),
      'why, but only 1 of 3 Ready pod(s) have a sample (series dropped: Stale: 2); no node is moved on partial data',
    ],
  ])('message: %s', (_name, input, a, message) => {
    expect(relabel(factsOf(input), a).message).toBe(message);
  });
});
