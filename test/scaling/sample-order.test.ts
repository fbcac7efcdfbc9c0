/**
 * Each algorithm's samples sorted by pod, the order kept between passes (`SeriesMemo.sampleOrders`,
 * issue 42): an attribution read with the memo equals the one read afresh, whether the pods come
 * as they did last pass (the kept order is used) or not (sorted again).
 */
import { describe, expect, it } from 'vitest';
import type { PodInfo } from '../../src/cluster/types.js';
import type { GpuSeries } from '../../src/metrics/types.js';
import { attribute } from '../../src/scaling/attribute.js';
import { podIndexOf } from '../../src/scaling/lookups.js';
import { createSeriesMemo } from '../../src/scaling/series-identity.js';
import { pod, policy } from './support.js';

const NOW = new Date('2025-06-01T12:00:00Z');
const POLICY = policy();
const ALG = 'resnet50-infer';

/** Pod names as the bench fleet makes them: `xxx10` sorts before `xxxx9`, so arrival order is not sorted order. */
const names = Array.from({ length: 12 }, (_, r) => `${ALG}-7d9f-${String(r).padStart(5, 'x')}`);
/** The pods, one GPU each on node `n-<r>`; the last two share a name in two namespaces (a tie). */
const pods: PodInfo[] = [
  ...names.map((name, r) => pod(name, { nodeName: `n-${r}` })),
  pod(names[3]!, { namespace: 'other', nodeName: 'n-twin' }),
];

/** One series per pod (in `order` of `pods`), every value `value`. */
function answer(order: readonly number[], value: number): GpuSeries[] {
  return order.map((i) => {
    const p = pods[i]!;
    return {
      metric: POLICY.spec.scaling.metric,
      labels: { UUID: `GPU-${i}`, gpu: '0', node: p.nodeName!, namespace: p.namespace, pod: p.name },
      value,
      timestamp: NOW.getTime() - 5_000,
    };
  });
}

const arrival = pods.map((_, i) => i);
const podsOf = (a: ReturnType<typeof attribute>) =>
  a.byAlgorithm.get(ALG)!.samples.map((s) => `${s.namespace}/${s.pod}`);

describe('samples sorted by pod, the order kept between passes', () => {
  const index = podIndexOf(pods);
  const passes: { name: string; order: number[] }[] = [
    { name: 'first pass', order: arrival },
    { name: 'the same pods in the same order (kept order used)', order: arrival },
    { name: 'reversed', order: [...arrival].reverse() },
    { name: 'two pods swapped', order: [1, 0, ...arrival.slice(2)] },
    {
      name: 'the twins swapped (same names in the same order)',
      order: [...arrival.slice(0, 3), 12, ...arrival.slice(4, 12), 3],
    },
    { name: 'one pod fewer', order: arrival.slice(1) },
    { name: 'back to the first order', order: arrival },
  ];
  it('equals the attribution read afresh on every pass', () => {
    const memo = createSeriesMemo();
    let moved = 0;
    for (const p of passes) {
      const series = answer(p.order, 40 + moved++);
      const kept = attribute(series, pods, POLICY, NOW, undefined, index, { memo });
      const fresh = attribute(series, pods, POLICY, NOW, undefined, podIndexOf(pods));
      expect(kept, p.name).toEqual(fresh);
      expect(podsOf(kept), p.name).toEqual(podsOf(fresh));
      expect(kept.byAlgorithm.get(ALG)!.samples, p.name).toHaveLength(p.order.length);
    }
    expect(podsOf(attribute(answer(arrival, 1), pods, POLICY, NOW))).toEqual([
      ...names
        .map((n) => `algorithms/${n}`)
        .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
        .flatMap((k) => (k === `algorithms/${names[3]}` ? [k, `other/${names[3]}`] : [k])),
    ]);
  });

  it('keeps the order of this answer only for the algorithms it has, and reuses it while the pods come the same', () => {
    const memo = createSeriesMemo();
    attribute(answer(arrival, 40), pods, POLICY, NOW, undefined, index, { memo });
    const order = memo.sampleOrders.get(ALG);
    expect(order?.pods).toHaveLength(pods.length);
    attribute(answer(arrival, 41), pods, POLICY, NOW, undefined, index, { memo });
    expect(memo.sampleOrders.get(ALG)).toBe(order);
    attribute(answer([...arrival].reverse(), 42), pods, POLICY, NOW, undefined, index, { memo });
    expect(memo.sampleOrders.get(ALG)).not.toBe(order);
    attribute([], pods, POLICY, NOW, undefined, index, { memo });
    expect(memo.sampleOrders.size).toBe(0);
  });
});
