import { describe, expect, it } from 'vitest';
import { node } from '../../test/scaling/support.js';
import { chooseUnusedNodes, type ProductChoice } from './choose-nodes.js';
import type { PodRequest } from './fit.js';
import type { NodeCapacity } from './types.js';

const A100 = 'NVIDIA-A100-SXM4-80GB';
const T4 = 'Tesla-T4';
const GI = 2 ** 30;
/** An unused node with all of its `gpus` free. */
const u = (
  name: string,
  gpus: number,
  product: string | null = T4,
  free: Partial<NodeCapacity['free']> = {},
) => node(name, 'unused', gpus, product, { free });
const oneGpu: PodRequest = { gpus: 1, cpuMillis: 4000, memoryBytes: 16 * GI };
const prefer = (...products: string[]): ProductChoice => ({ products, required: false });
const only = (...products: string[]): ProductChoice => ({ products, required: true });
const none: ProductChoice = { products: [], required: false };

const names = (
  unused: NodeCapacity[],
  need: number,
  choice: ProductChoice,
  request: PodRequest = oneGpu,
  poolProducts: string[] = [],
) => chooseUnusedNodes(unused, request, need, choice, poolProducts).map((c) => c.node.node);

describe('chooseUnusedNodes: the product first, then the smallest node that fits', () => {
  it.each<[string, NodeCapacity[], number, ProductChoice, PodRequest, string[], string[]]>([
    // The fault this table guards: an 8×A100 went into a T4 pool while T4 nodes sat unused.
    [
      'BenchmarkedProductBeforeABiggerOne',
      [u('a-a100', 8, A100), u('t4-2', 1)],
      1,
      prefer(T4),
      oneGpu,
      [],
      ['t4-2'],
    ],
    ['SmallestOfTheProduct', [u('t4-big', 4), u('t4-small', 1)], 1, prefer(T4), oneGpu, [], ['t4-small']],
    [
      'SmallestThatFitsAllReplicas',
      [u('t4-1', 1), u('t4-2', 2), u('t4-4', 4)],
      2,
      prefer(T4),
      oneGpu,
      [],
      ['t4-2'],
    ],
    ['ExactGpuFit', [u('t4-1', 2), u('t4-2', 4)], 1, none, { ...oneGpu, gpus: 2 }, [], ['t4-1']],
    ['OneGpuShortIsNoFit', [u('t4-1', 1), u('t4-2', 4)], 1, none, { ...oneGpu, gpus: 2 }, [], ['t4-2']],
    ['ExactCpuFit', [u('t4-1', 1, T4, { cpuMillis: 4000 }), u('t4-4', 4)], 1, none, oneGpu, [], ['t4-1']],
    [
      'OneMillicoreShortIsNoFit',
      [u('t4-1', 1, T4, { cpuMillis: 3999 }), u('t4-4', 4)],
      1,
      none,
      oneGpu,
      [],
      ['t4-4'],
    ],
    [
      'ExactMemoryFit',
      [u('t4-1', 1, T4, { memoryBytes: 16 * GI }), u('t4-4', 4)],
      1,
      none,
      oneGpu,
      [],
      ['t4-1'],
    ],
    [
      'OneByteShortIsNoFit',
      [u('t4-1', 1, T4, { memoryBytes: 16 * GI - 1 }), u('t4-4', 4)],
      1,
      none,
      oneGpu,
      [],
      ['t4-4'],
    ],
    ['NoPodSlotIsNoFit', [u('t4-1', 1, T4, { pods: 0 }), u('t4-4', 4)], 1, none, oneGpu, [], ['t4-4']],
    ['TiesByName', [u('t4-c', 1), u('t4-a', 1), u('t4-b', 1)], 1, prefer(T4), oneGpu, [], ['t4-a']],
    [
      'NoneFitsAllThenTheLargestThenTheRest',
      [u('t4-1', 1), u('t4-2', 2), u('t4-z', 1)],
      3,
      prefer(T4),
      oneGpu,
      [],
      ['t4-2', 't4-1'],
    ],
    [
      'OtherProductsOnlyWhenTheProductRunsOut',
      [u('a100', 8, A100), u('t4-1', 1)],
      3,
      prefer(T4),
      oneGpu,
      [],
      ['t4-1', 'a100'],
    ],
    [
      'ARequiredProductNeverTakesAnother',
      [u('a100', 8, A100), u('t4-1', 1)],
      3,
      only(T4),
      oneGpu,
      [],
      ['t4-1'],
    ],
    ['ARequiredProductWithNoNodeMovesNothing', [u('a100', 8, A100)], 1, only(T4), oneGpu, [], []],
    [
      'OneOfSeveralProducts',
      [u('a100', 8, A100), u('h100', 2, 'NVIDIA-H100-80GB-HBM3')],
      1,
      only(A100, 'NVIDIA-H100-80GB-HBM3'),
      oneGpu,
      [],
      ['h100'],
    ],
    [
      'NoProductKnownThePoolsProduct',
      [u('a-t4', 1), u('z-a100', 8, A100)],
      1,
      none,
      oneGpu,
      [A100],
      ['z-a100'],
    ],
    [
      'AKnownProductNotFoundTheSmallestNotThePoolsProduct',
      [u('a-a100', 8, A100), u('z-h100', 2, 'NVIDIA-H100-80GB-HBM3')],
      1,
      prefer(T4),
      oneGpu,
      [A100],
      ['z-h100'],
    ],
    [
      'NoProductLabelIsNoProductOfThePool',
      [u('a-x', 1, null), u('z-a100', 8, A100)],
      1,
      none,
      oneGpu,
      [A100],
      ['z-a100'],
    ],
    ['NoProductKnownNoPoolTheSmallest', [u('a-a100', 8, A100), u('z-t4', 1)], 1, none, oneGpu, [], ['z-t4']],
    ['NothingFitsOneReplica', [u('t4-1', 1, T4, { pods: 0 })], 1, none, oneGpu, [], []],
  ])('%s', (_name, unused, need, choice, request, pool, want) => {
    expect(names(unused, need, choice, request, pool)).toEqual(want);
  });

  it('says why each node was taken', () => {
    const why = (unused: NodeCapacity[], need: number, choice: ProductChoice, pool: string[] = []) =>
      chooseUnusedNodes(unused, oneGpu, need, choice, pool).map((c) => `${c.node.node}: ${c.why}`);
    expect(why([u('a100', 8, A100), u('t4-2', 1)], 1, prefer(T4))).toEqual([
      't4-2: Tesla-T4, 1 GPU: smallest unused node of the product that fits 1 replica',
    ]);
    expect(why([u('t4-1', 1), u('t4-2', 2)], 3, prefer(T4))).toEqual([
      't4-2: Tesla-T4, 2 GPUs: largest unused node of the product, fits 2 of 3 replicas',
      't4-1: Tesla-T4, 1 GPU: smallest unused node of the product that fits 1 replica',
    ]);
    expect(why([u('a100', 8, A100)], 2, none, [A100])).toEqual([
      "a100: NVIDIA-A100-SXM4-80GB, 8 GPUs: smallest unused node of the pool's product that fits 2 replicas",
    ]);
    expect(why([u('x', 2, null)], 1, none)).toEqual([
      'x: no product label, 2 GPUs: smallest unused node that fits 1 replica',
    ]);
  });
});
