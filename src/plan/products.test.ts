import { describe, expect, it } from 'vitest';
import { algorithm } from '../../test/scaling/support.js';
import { nodeInfo } from '../../test/support/node-info.js';
import { affinityProducts, productAffinity } from '../manifests/scheduling.js';
import type { BenchmarkOutcome } from '../placement/types.js';
import { productNeeds, productsOf, productWarnings } from './products.js';

const T4 = 'Tesla-T4';
const A100 = 'NVIDIA-A100-SXM4-80GB';
const named = (name: string, product: string[] | undefined, placement: 'auto' | 'short-task' = 'auto') => {
  const a = algorithm({ name });
  return { ...a, placement, spec: { ...a.spec, ...(product ? { gpu: { product } } : {}) } };
};
const outcome = (status: BenchmarkOutcome['status']): BenchmarkOutcome => ({
  status,
  medianSeconds: status === 'Succeeded' ? 42 : null,
  message: '',
});

describe('productNeeds: a named product needs a test node while the benchmark is due', () => {
  it.each<
    [string, BenchmarkOutcome['status'] | undefined, 'auto' | 'short-task', string[] | undefined, boolean]
  >([
    ['NotBenchmarkedYet', undefined, 'auto', [T4], true],
    ['Pending', 'Pending', 'auto', [T4], true],
    ['Unschedulable', 'Unschedulable', 'auto', [T4], true],
    ['SucceededIsFinal', 'Succeeded', 'auto', [T4], false],
    ['FailedIsFinal', 'Failed', 'auto', [T4], false],
    ['PinnedIsNotBenchmarked', undefined, 'short-task', [T4], false],
    ['NoProductNamed', undefined, 'auto', undefined, false],
  ])('%s', (_name, status, placement, product, want) => {
    const a = named('serve', product, placement);
    const outcomes = new Map(status ? [['serve', outcome(status)]] : []);
    expect(productNeeds([a], outcomes).length === 1).toBe(want);
  });
});

describe('productWarnings: a product no node has', () => {
  const nodes = [
    nodeInfo('a', { gpuProduct: A100 }),
    nodeInfo('t', { gpuProduct: T4 }),
    nodeInfo('x', { gpuProduct: null }),
  ];
  it('warns at the spec, naming the products the cluster has', () => {
    expect(productWarnings([named('serve', ['Tesla-T5', T4])], { nodes })).toEqual([
      `algorithms/resnet50.yaml:1: spec.gpu.product: no node carries nvidia.com/gpu.product=Tesla-T5 (the cluster has ${A100}, ${T4}); serve is not benchmarked or given nodes of it until one does`,
    ]);
  });
  it('says nothing when every product is there, or none is named', () => {
    expect(productWarnings([named('serve', [T4]), named('b', undefined)], { nodes })).toEqual([]);
  });
});

describe('productsOf and the Deployment affinity round trip', () => {
  it('named products win; else the benchmark runs; read back from the rendered affinity', () => {
    const runs = new Map([['b', [{ status: 'Succeeded' as const, node: 't', gpuProduct: null }]]]);
    const p = productsOf([named('a', [T4, A100]), named('b', undefined)], runs, {
      nodes: [nodeInfo('t', { gpuProduct: T4 })],
    });
    expect(p.get('a')).toEqual({ products: [A100, T4], source: 'spec' });
    expect(p.get('b')).toEqual({ products: [T4], source: 'benchmark' });
    expect(affinityProducts({ affinity: productAffinity([T4, A100]) })).toEqual([A100, T4]);
    expect(productAffinity([])).toBeUndefined();
    expect(affinityProducts({ nodeSelector: {} })).toEqual([]);
  });
});
