import { describe, expect, it } from 'vitest';
import { algorithmProducts, describeProducts, type RunOnNode } from './gpu-products.js';

const T4 = 'Tesla-T4';
const A100 = 'NVIDIA-A100-SXM4-80GB';
const nodes: Record<string, string> = { 'gpu-t4': T4, 'gpu-a100': A100 };
const productOfNode = (n: string) => nodes[n] ?? null;
const run = (status: RunOnNode['status'], node: string | null, gpuProduct?: string | null): RunOnNode => ({
  status,
  node,
  ...(gpuProduct === undefined ? {} : { gpuProduct }),
});

describe('algorithmProducts: named, else measured on, else none', () => {
  it.each<[string, string[] | undefined, RunOnNode[], string]>([
    ['NamedWinsOverMeasured', [A100, T4, A100], [run('Succeeded', 'gpu-t4', T4)], `spec ${A100},${T4}`],
    ['RecordedProduct', undefined, [run('Succeeded', 'gpu-a100', T4)], `benchmark ${T4}`],
    ['NodesProductForAnOldRecord', undefined, [run('Succeeded', 'gpu-a100')], `benchmark ${A100}`],
    ['NullRecordFallsBackToTheNode', undefined, [run('Succeeded', 'gpu-t4', null)], `benchmark ${T4}`],
    [
      'OnlySucceededRunsCount',
      undefined,
      [run('Failed', 'gpu-a100', A100), run('Succeeded', 'gpu-t4', T4)],
      `benchmark ${T4}`,
    ],
    [
      'SeveralMeasuredProducts',
      undefined,
      [run('Succeeded', 'gpu-t4', T4), run('Succeeded', 'gpu-a100', A100)],
      `benchmark ${A100},${T4}`,
    ],
    ['UnlabelledNodeIsNone', undefined, [run('Succeeded', 'gpu-x')], 'none '],
    ['NoRunIsNone', [], [], 'none '],
  ])('%s', (_name, named, runs, want) => {
    const p = algorithmProducts(named, runs, productOfNode);
    expect(`${p.source} ${p.products.join(',')}`).toBe(want);
  });

  it('describes where they come from', () => {
    expect(describeProducts({ products: [T4], source: 'benchmark' })).toBe('Tesla-T4 (benchmarked on)');
    expect(describeProducts({ products: [A100, T4], source: 'spec' })).toBe(
      'NVIDIA-A100-SXM4-80GB or Tesla-T4 (spec.gpu.product)',
    );
    expect(describeProducts({ products: [], source: 'none' })).toBe('any GPU product');
  });
});
