/**
 * The placer of one algorithm's pod, row by row (`placerOf`): when capacity alone answers (null),
 * which replica goes where (most free GPUs first, ties by name, whatever order the nodes come in),
 * and why a node takes none, in kube-scheduler's words. The whole pass over these rules is
 * `test/scaling/scheduler-filters.test.ts`.
 */
import { describe, expect, it } from 'vitest';
import { REFUSAL, type FilterNode } from '../cluster/scheduling/node-filters.js';
import { podConstraintsOf, type PodConstraints } from '../cluster/scheduling/pod-constraints.js';
import type { PodInfo } from '../cluster/types.js';
import { node, pod } from '../../test/scaling/support.js';
import type { PodRequest } from './fit.js';
import { placerOf } from './placer.js';
import type { PodLayout } from './pod-layout.js';
import type { NodeCapacity, Placer } from './types.js';

const KEY = 'gpuops.dev/pool';
const PRODUCT = 'nvidia.com/gpu.product';
const SELF = { 'gpuops.dev/algorithm': 'resnet50-infer' };
const ONE_GPU: PodRequest = { gpus: 1, cpuMillis: 0, memoryBytes: 0 };
const HOSTNAME = 'kubernetes.io/hostname';
const selects = (labels: Record<string, string>) => ({
  topologyKey: HOSTNAME,
  labelSelector: { matchLabels: labels },
});
const ONE_PER_NODE = { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [selects(SELF)] } };

/** A node as the filters read it: hostname, pool, product and `disktype: ssd` labels. */
function filterNode(name: string, pool: string, o: Partial<FilterNode> = {}): FilterNode {
  return {
    name,
    labels: { [HOSTNAME]: name, [KEY]: pool, [PRODUCT]: 'Tesla-T4', disktype: 'ssd' },
    taints: [],
    ...o,
  };
}

function layoutOf(nodes: FilterNode[], pods: PodInfo[] = [], token = 'layout-7'): PodLayout {
  const podsOn = new Map<string, PodInfo[]>();
  for (const p of pods) podsOn.set(p.nodeName!, [...(podsOn.get(p.nodeName!) ?? []), p]);
  return {
    nodes: new Map(nodes.map((n) => [n.name, n])),
    podsOn,
    antiAffine: pods.filter((p) => p.antiAffinity),
    token,
  };
}

const ourPod = (spec: unknown): PodConstraints => podConstraintsOf('algorithms', SELF, spec);
/** A running pod of another team whose required anti-affinity keeps `labels` off its node. */
const keepsOff = (name: string, nodeName: string, labels: Record<string, string>): PodInfo =>
  pod(name, { namespace: 'algorithms', nodeName, labels: { app: name }, antiAffinity: [selects(labels)] });

function placer(spec: unknown, layout: PodLayout, request: PodRequest = ONE_GPU): Placer {
  const p = placerOf(ourPod(spec), request, layout, KEY);
  if (p === null) throw new Error('expected a placer');
  return p;
}

/** Every order of `xs` (the placement must not depend on the order the nodes come in). */
function orders<T>(xs: readonly T[]): T[][] {
  if (xs.length <= 1) return [[...xs]];
  return xs.flatMap((x, i) => orders([...xs.slice(0, i), ...xs.slice(i + 1)]).map((rest) => [x, ...rest]));
}

const LAYOUT = layoutOf(['a', 'b', 'c', 'd', 'x'].map((n) => filterNode(n, 'long-task')));

describe('placerOf: null when capacity alone answers as the filters would', () => {
  const inAffinity = (...expressions: object[]) => ({
    affinity: {
      nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: expressions } },
    },
  });
  it.each([
    ['no constraint at all', {}, ONE_GPU, true],
    [
      'nodeSelector on the pool label and the GPU product',
      { nodeSelector: { [KEY]: 'long-task', [PRODUCT]: 'Tesla-T4' } },
      ONE_GPU,
      true,
    ],
    ['nodeSelector on another label', { nodeSelector: { disktype: 'ssd' } }, ONE_GPU, false],
    ['a resource beyond GPUs, cpu and memory', {}, { ...ONE_GPU, other: { 'ephemeral-storage': 1 } }, false],
    [
      'node affinity: product In',
      inAffinity({ matchExpressions: [{ key: PRODUCT, operator: 'In', values: ['Tesla-T4'] }] }),
      ONE_GPU,
      true,
    ],
    [
      'node affinity: product NotIn',
      inAffinity({ matchExpressions: [{ key: PRODUCT, operator: 'NotIn', values: ['Tesla-T4'] }] }),
      ONE_GPU,
      false,
    ],
    [
      'node affinity: another label In',
      inAffinity({ matchExpressions: [{ key: 'disktype', operator: 'In', values: ['ssd'] }] }),
      ONE_GPU,
      false,
    ],
    [
      'node affinity: a product term and matchFields',
      inAffinity({
        matchExpressions: [{ key: PRODUCT, operator: 'In', values: ['Tesla-T4'] }],
        matchFields: [{ key: 'metadata.name', operator: 'In', values: ['a'] }],
      }),
      ONE_GPU,
      false,
    ],
    [
      'node affinity: matchFields alone',
      inAffinity({ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['a'] }] }),
      ONE_GPU,
      false,
    ],
    [
      'node affinity: a product term or another label',
      inAffinity(
        { matchExpressions: [{ key: PRODUCT, operator: 'In', values: ['Tesla-T4'] }] },
        { matchExpressions: [{ key: 'disktype', operator: 'In', values: ['ssd'] }] },
      ),
      ONE_GPU,
      false,
    ],
    // An empty term matches no node: the filters refuse every one, capacity would not.
    ['node affinity: an empty term', inAffinity({}), ONE_GPU, false],
    [
      'node affinity: a term with no requirement listed',
      inAffinity({ matchExpressions: [] }),
      ONE_GPU,
      false,
    ],
    ['its own anti-affinity', { affinity: ONE_PER_NODE }, ONE_GPU, false],
  ])('%s → null: %s', (_name, spec, request, none) => {
    expect(placerOf(ourPod(spec), request, LAYOUT, KEY) === null).toBe(none);
  });

  it("a running pod's anti-affinity that selects the pod makes it depend on pods; one that selects others does not", () => {
    const selecting = layoutOf([filterNode('a', 'long-task')], [keepsOff('guard', 'a', SELF)]);
    const other = layoutOf([filterNode('a', 'long-task')], [keepsOff('guard', 'a', { app: 'other' })]);
    expect(placerOf(ourPod({}), ONE_GPU, selecting, KEY)).not.toBeNull();
    expect(placerOf(ourPod({}), ONE_GPU, other, KEY)).toBeNull();
  });

  it('the key names the pod and the request, and the layout only when the pod depends on pods', () => {
    const spec = { nodeSelector: { disktype: 'ssd' } };
    expect(placer(spec, LAYOUT).key).toBe(`${JSON.stringify(ourPod(spec))}\n${JSON.stringify(ONE_GPU)}\n`);
    const own = { affinity: ONE_PER_NODE };
    expect(placer(own, LAYOUT).key).toBe(
      `${JSON.stringify(ourPod(own))}\n${JSON.stringify(ONE_GPU)}\nlayout-7`,
    );
  });
});

describe('placerOf: replicas of a pod that depends on no pod fill the nodes the filters pass, most free GPUs first', () => {
  const spec = { nodeSelector: { disktype: 'ssd' } };
  const layout = layoutOf([
    ...['a', 'b', 'c', 'd'].map((n) => filterNode(n, 'long-task')),
    filterNode('cordoned', 'long-task', { unschedulable: true }),
    filterNode('hdd', 'long-task', { labels: { [HOSTNAME]: 'hdd', [KEY]: 'long-task' } }),
  ]);
  const nodes = [
    node('b', 'long-task', 2),
    node('a', 'long-task', 2),
    node('c', 'long-task', 4),
    node('d', 'long-task', 0),
    node('cordoned', 'long-task', 8),
    node('hdd', 'long-task', 8),
    node('gone', 'long-task', 8),
  ];
  it.each(orders(['a', 'b', 'c', 'd']))('nodes in the order %s, %s, %s, %s', (...names) => {
    const order = [...names.map((n) => nodes.find((x) => x.node === n)!), ...nodes.slice(4)];
    const p = placer(spec, layout);
    expect([...p.place(order, 'long-task', 5)]).toEqual([
      ['c', 4],
      ['a', 1],
    ]);
    expect([...p.place(order, 'long-task', 100)]).toEqual([
      ['c', 4],
      ['a', 2],
      ['b', 2],
    ]);
    expect(p.slots(order, 'long-task', 100)).toBe(8);
    expect(p.slots(order, 'long-task', 3)).toBe(3);
  });
});

describe('placerOf: replicas of a pod that depends on pods go one after another', () => {
  const layout = layoutOf(
    [
      ...['a', 'b', 'c', 'guarded'].map((n) => filterNode(n, 'long-task')),
      filterNode('cordoned', 'long-task', { unschedulable: true }),
    ],
    [keepsOff('guard', 'guarded', SELF), keepsOff('lost', 'not-in-layout', SELF)],
  );
  const ranked = [node('a', 'long-task', 2), node('b', 'long-task', 4), node('c', 'long-task', 1)];
  const others = [
    node('guarded', 'long-task', 8),
    node('cordoned', 'long-task', 8),
    node('gone', 'long-task', 8),
  ];

  it.each(orders(ranked))(
    'one per node (its own anti-affinity): nodes in the order %o, %o, %o',
    (...order) => {
      const p = placer({ affinity: ONE_PER_NODE }, layout);
      expect([...p.place([...order, ...others], 'long-task', 1)]).toEqual([['b', 1]]);
      expect([...p.place([...order, ...others], 'long-task', 2)]).toEqual([
        ['b', 1],
        ['a', 1],
      ]);
      expect([...p.place([...order, ...others], 'long-task', 10)]).toEqual([
        ['b', 1],
        ['a', 1],
        ['c', 1],
      ]);
    },
  );

  it("kept off a node by a running pod's anti-affinity: each placed replica takes its room for the next", () => {
    const p = placer({}, layout);
    // b 4 → 3, then b 3 over a 2, then the tie 2–2 goes to a by name, and so on.
    expect([...p.place([...ranked, ...others], 'long-task', 6)]).toEqual([
      ['b', 4],
      ['a', 2],
    ]);
    expect([...p.place([...ranked, ...others], 'long-task', 100)]).toEqual([
      ['b', 4],
      ['a', 2],
      ['c', 1],
    ]);
    expect(p.slots([...ranked, ...others], 'long-task', 100)).toBe(7);
  });
});

describe('placerOf: why a node takes no replica', () => {
  const layout = layoutOf(
    [
      filterNode('a', 'long-task'),
      filterNode('guarded', 'long-task'),
      filterNode('cordoned', 'long-task', { unschedulable: true }),
      filterNode('u1', 'unused'),
    ],
    [
      keepsOff('guard', 'guarded', SELF),
      pod('old-1', { nodeName: 'u1', labels: SELF }),
      pod('old-2', { nodeName: 'u1', labels: SELF }),
    ],
  );
  const spread = {
    nodeSelector: { [KEY]: 'long-task' },
    topologySpreadConstraints: [
      {
        maxSkew: 1,
        topologyKey: HOSTNAME,
        whenUnsatisfiable: 'DoNotSchedule',
        labelSelector: { matchLabels: SELF },
      },
    ],
  };
  it.each<[string, unknown, NodeCapacity, string[]]>([
    ['a node the layout does not know', {}, node('gone', 'long-task', 4), ['node not found']],
    ['a cordoned node', {}, node('cordoned', 'long-task', 4), [REFUSAL.unschedulable]],
    ['a node without a free GPU', {}, node('a', 'long-task', 0), ['Insufficient nvidia.com/gpu']],
    [
      "a node a running pod's anti-affinity closes",
      {},
      node('guarded', 'long-task', 4),
      [REFUSAL.existingAntiAffinity],
    ],
    ['a node that takes it', {}, node('a', 'long-task', 4), []],
    [
      'no node matches an empty node affinity term',
      {
        affinity: {
          nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{}] } },
        },
      },
      node('a', 'long-task', 4),
      [REFUSAL.nodeAffinity],
    ],
    // u1 joins the pool as a member: a domain of the spread, its two replicas over the others' 0.
    [
      'a node moved into the pool whose pods would break the spread',
      spread,
      node('u1', 'unused', 4),
      [REFUSAL.spread],
    ],
    ['a node of the pool within the spread', spread, node('a', 'long-task', 4), []],
  ])('%s', (_name, spec, n, want) => {
    expect(placer(spec, layout).refusals(n, 'long-task')).toEqual(want);
  });
});
