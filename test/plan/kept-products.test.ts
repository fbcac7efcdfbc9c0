/**
 * The GPU products kept between a reconciler's passes (`plan/kept-products.ts`): an algorithm's
 * products equal to the last pass's are the last pass's object, so the placements that carry them
 * compare at once; any change gives this pass's; the plan equals the plan made afresh.
 */
import { describe, expect, it } from 'vitest';
import { keptProducts, sameProducts } from '../../src/plan/kept-products.js';
import { planDesiredState, type DesiredStateInput } from '../../src/plan/desired-state.js';
import { plainLookups } from '../../src/plan/lookups.js';
import { createReconcilerMemory, rememberedLookups } from '../../src/plan/memory.js';
import type { AlgorithmProducts } from '../../src/placement/index.js';
import { noData, now, policy, snapshot, templates } from '../support/cluster-mixed.js';
import { benchmarkOk, resolvedAlgorithm } from '../support/resolved-algorithm.js';

const p = (products: string[], source: AlgorithmProducts['source'] = 'benchmark', label?: string) =>
  ({ products, source, ...(label ? { productLabel: label } : {}) }) as AlgorithmProducts;

describe('keptProducts', () => {
  it("gives the last pass's object for equal products, this pass's for any change", () => {
    const last = keptProducts(
      undefined,
      new Map([
        ['a', p(['Tesla-T4'])],
        ['b', p(['A100', 'H100'])],
        ['c', p(['A100'])],
        ['d', p(['MI300X'], 'spec', 'amd.com/gpu.product-name')],
        ['e', p([], 'none')],
      ]),
    );
    const fresh = new Map([
      ['a', p(['Tesla-T4'])], // equal: kept
      ['b', p(['H100', 'A100'])], // another order: this pass's
      ['c', p(['A100'], 'spec')], // another source
      ['d', p(['MI300X'], 'spec')], // no label now
      ['e', p([], 'none')], // equal: kept
      ['f', p(['L4'])], // new algorithm
    ]);
    const next = keptProducts(last, fresh);
    expect([...next.keys()]).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    expect(next.get('a')).toBe(last.get('a'));
    expect(next.get('e')).toBe(last.get('e'));
    for (const k of ['b', 'c', 'd', 'f']) expect(next.get(k)).toBe(fresh.get(k));
    // Values are this pass's in every case.
    for (const [k, v] of fresh) expect(next.get(k)).toEqual(v);
  });

  it('freezes what it keeps, so a caller that changed a kept answer would throw', () => {
    const kept = keptProducts(undefined, new Map([['a', p(['Tesla-T4'])]]));
    expect(Object.isFrozen(kept.get('a'))).toBe(true);
    expect(() => (kept.get('a')!.products as string[]).push('A100')).toThrow(TypeError);
  });

  it('compares source, label and products in order', () => {
    expect(sameProducts(p(['A', 'B']), p(['A', 'B']))).toBe(true);
    expect(sameProducts(p(['A', 'B']), p(['A']))).toBe(false);
    expect(sameProducts(p(['A']), p(['B']))).toBe(false);
    expect(sameProducts(p(['A']), p(['A'], 'spec'))).toBe(false);
    expect(sameProducts(p(['A'], 'spec', 'x'), p(['A'], 'spec', 'y'))).toBe(false);
  });
});

const run = (gpuProduct: string) => ({
  run: 1,
  status: 'Succeeded' as const,
  durationSeconds: 40,
  node: null,
  gpuProduct,
});

function input(product: string): DesiredStateInput {
  return {
    cluster: 'prod',
    repo: { policy, errors: [], algorithms: [resolvedAlgorithm('bert'), resolvedAlgorithm('llm')] },
    snapshot,
    base: new Map(),
    benchmarks: new Map([
      ['bert', benchmarkOk(40)],
      ['llm', benchmarkOk(5000)],
    ]),
    // Read again each pass: new run objects, new arrays.
    benchmarkRuns: new Map([
      ['bert', [run(product)]],
      ['llm', [run('Tesla-T4')]],
    ]),
    reading: noData,
    recent: [],
    templates,
    now,
  };
}

describe("a reconciler's plan with kept products", () => {
  it("carries the last pass's products in its placements while they are equal, and equals the fresh plan", () => {
    const memory = createReconcilerMemory();
    const plan = (product: string) => ({
      kept: planDesiredState({ ...input(product), lookups: rememberedLookups(memory) }),
      fresh: planDesiredState({ ...input(product), lookups: plainLookups }),
    });
    const first = plan('Tesla-T4');
    expect(first.kept).toEqual(first.fresh);
    const gpu = first.kept.output.placements.map((x) => x.gpu);
    expect(gpu.map((g) => g?.products)).toEqual([['Tesla-T4'], ['Tesla-T4']]);

    const second = plan('Tesla-T4');
    expect(second.kept).toEqual(second.fresh);
    second.kept.output.placements.forEach((x, i) => expect(x.gpu).toBe(gpu[i]));

    // bert's runs now say another product: its placement carries this pass's, llm's stays kept.
    const third = plan('NVIDIA-A100-SXM4-80GB');
    expect(third.kept).toEqual(third.fresh);
    const [bert, llm] = third.kept.output.placements;
    expect(bert!.gpu).not.toBe(gpu[0]);
    expect(bert!.gpu?.products).toEqual(['NVIDIA-A100-SXM4-80GB']);
    expect(llm!.gpu).toBe(gpu[1]);
  });
});
