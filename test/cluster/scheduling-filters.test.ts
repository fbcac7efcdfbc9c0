/**
 * kube-scheduler's filter plugins as `src/cluster/scheduling/` implements them, row by row, each
 * boundary from both sides: NodeUnschedulable, TaintToleration, NodeAffinity, NodeResourcesFit,
 * InterPodAffinity and PodTopologySpread (the rows follow the plugins' own tests in
 * kubernetes/kubernetes `pkg/scheduler/framework/plugins/*`).
 */
import { describe, expect, it } from 'vitest';
import {
  interPodRefusal,
  interPodState,
  type PlacedPod,
} from '../../src/cluster/scheduling/inter-pod-affinity.js';
import { nodeRefusal, type FilterNode } from '../../src/cluster/scheduling/node-filters.js';
import { podConstraintsOf, type PodConstraints } from '../../src/cluster/scheduling/pod-constraints.js';
import { resourceRefusals } from '../../src/cluster/scheduling/resource-fit.js';
import { nodeSelectorTermsMatch, selectorMatches } from '../../src/cluster/scheduling/selectors.js';
import {
  addSpreadPod,
  spreadRefusal,
  spreadState,
  type SpreadPod,
} from '../../src/cluster/scheduling/topology-spread.js';

const APP = { app: 'web' };
const node = (
  name: string,
  labels: Record<string, string> = {},
  o: Partial<FilterNode> = {},
): FilterNode => ({
  name,
  labels: { 'kubernetes.io/hostname': name, ...labels },
  taints: [],
  ...o,
});
const pod = (spec: unknown, labels: Record<string, string> = APP, ns = 'default'): PodConstraints =>
  podConstraintsOf(ns, labels, spec);

describe('selectors', () => {
  it.each([
    ['null selects nothing', null, {}, false],
    ['{} selects everything', {}, { a: '1' }, true],
    ['matchLabels equal', { matchLabels: { a: '1' } }, { a: '1' }, true],
    ['matchLabels differ', { matchLabels: { a: '1' } }, { a: '2' }, false],
    ['In listed', { matchExpressions: [{ key: 'a', operator: 'In', values: ['1', '2'] }] }, { a: '2' }, true],
    [
      'NotIn on absent key holds',
      { matchExpressions: [{ key: 'a', operator: 'NotIn', values: ['1'] }] },
      {},
      true,
    ],
    [
      'DoesNotExist with key',
      { matchExpressions: [{ key: 'a', operator: 'DoesNotExist' }] },
      { a: '' },
      false,
    ],
    [
      'Gt is no label operator',
      { matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] },
      { a: '5' },
      false,
    ],
  ])('label selector: %s', (_n, sel, labels, want) => {
    expect(selectorMatches(sel, labels)).toBe(want);
  });

  it.each([
    ['Gt strictly greater: 5 > 4', 'Gt', '4', '5', true],
    ['Gt at the value: 4 > 4 fails', 'Gt', '4', '4', false],
    ['Lt strictly less: 3 < 4', 'Lt', '4', '3', true],
    ['Lt not an integer fails', 'Lt', '4', 'x', false],
  ])('node selector: %s', (_n, operator, value, label, want) => {
    const terms = [{ matchExpressions: [{ key: 'n', operator, values: [value] }] }];
    expect(nodeSelectorTermsMatch(terms, { name: 'a', labels: { n: label } })).toBe(want);
  });

  it('an empty term matches nothing; terms are ORed; matchFields reads metadata.name', () => {
    expect(nodeSelectorTermsMatch([{}], { name: 'a', labels: {} })).toBe(false);
    const byName = [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['b'] }] }];
    expect(
      nodeSelectorTermsMatch([{ matchExpressions: [{ key: 'x', operator: 'Exists' }] }, ...byName], {
        name: 'b',
        labels: {},
      }),
    ).toBe(true);
    expect(nodeSelectorTermsMatch(byName, { name: 'a', labels: {} })).toBe(false);
  });
});

describe('NodeUnschedulable, TaintToleration, NodeAffinity (first failing filter names the node)', () => {
  const gpuTaint = { key: 'nvidia.com/gpu', effect: 'NoSchedule' as const };
  it.each([
    ['a cordoned node', {}, node('a', {}, { unschedulable: true }), 'node(s) were unschedulable'],
    [
      'a cordoned node, pod tolerating the cordon',
      {
        tolerations: [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' }],
      },
      node('a', {}, { unschedulable: true }),
      null,
    ],
    [
      'an untolerated NoSchedule taint',
      {},
      node('a', {}, { taints: [gpuTaint] }),
      'node(s) had untolerated taint {nvidia.com/gpu: }',
    ],
    [
      'a PreferNoSchedule taint never filters',
      {},
      node('a', {}, { taints: [{ key: 'x', effect: 'PreferNoSchedule' }] }),
      null,
    ],
    [
      'the GPU taint tolerated with Exists',
      { tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }] },
      node('a', {}, { taints: [gpuTaint] }),
      null,
    ],
    [
      'Equal with another value does not tolerate',
      { tolerations: [{ key: 'team', operator: 'Equal', value: 'a', effect: 'NoExecute' }] },
      node('a', {}, { taints: [{ key: 'team', value: 'b', effect: 'NoExecute' }] }),
      'node(s) had untolerated taint {team: b}',
    ],
    [
      'nodeSelector label missing',
      { nodeSelector: { pool: 'short' } },
      node('a'),
      "node(s) didn't match Pod's node affinity/selector",
    ],
    ['nodeSelector label equal', { nodeSelector: { pool: 'short' } }, node('a', { pool: 'short' }), null],
    [
      'required node affinity term not matched',
      {
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [{ matchExpressions: [{ key: 'gpu', operator: 'In', values: ['A100'] }] }],
            },
          },
        },
      },
      node('a', { gpu: 'T4' }),
      "node(s) didn't match Pod's node affinity/selector",
    ],
  ])('%s', (_n, spec, n, want) => {
    expect(nodeRefusal(pod(spec), n)).toBe(want);
  });
});

describe('NodeResourcesFit', () => {
  it.each([
    [
      'exactly enough of everything fits',
      { cpu: 4000, memory: 16, 'ephemeral-storage': 10 },
      { pods: 1, cpu: 4000, memory: 16, 'ephemeral-storage': 10 },
      [],
    ],
    ['one millicore short', { cpu: 4000 }, { pods: 1, cpu: 3999 }, ['Insufficient cpu']],
    ['no pod slot left', { cpu: 1 }, { pods: 0, cpu: 10 }, ['Too many pods']],
    [
      'ephemeral storage the node does not list',
      { 'ephemeral-storage': 1 },
      { pods: 1 },
      ['Insufficient ephemeral-storage'],
    ],
    [
      'an extended resource one short',
      { 'nvidia.com/gpu': 2 },
      { pods: 1, 'nvidia.com/gpu': 1 },
      ['Insufficient nvidia.com/gpu'],
    ],
    ['a resource asked 0 of never refuses', { 'example.com/fpga': 0 }, { pods: 1 }, []],
  ])('%s', (_n, request, free, want) => {
    expect(resourceRefusals(request, free)).toEqual(want);
  });
});

describe('InterPodAffinity (required terms)', () => {
  const oneHost = {
    affinity: {
      podAntiAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [
          { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: APP } },
        ],
      },
    },
  };
  const labelsOf = (nodes: FilterNode[]) => (n: string) => nodes.find((x) => x.name === n)?.labels;
  const running = (
    n: string,
    labels: Record<string, string> = APP,
    ns = 'default',
    anti?: PlacedPod['antiAffinity'],
  ): PlacedPod => ({
    namespace: ns,
    labels,
    nodeName: n,
    ...(anti ? { antiAffinity: anti } : {}),
  });
  const nodes = [node('a', { zone: 'z1' }), node('b', { zone: 'z1' }), node('c')];

  it.each([
    [
      'anti-affinity: a node running a matching pod refuses',
      oneHost,
      [running('a')],
      'a',
      "node(s) didn't match pod anti-affinity rules",
    ],
    ['anti-affinity: the node beside it takes the pod', oneHost, [running('a')], 'b', null],
    [
      'anti-affinity: a pod of another namespace does not count',
      oneHost,
      [running('a', APP, 'other')],
      'a',
      null,
    ],
    [
      'anti-affinity: a pod with other labels does not count',
      oneHost,
      [running('a', { app: 'db' })],
      'a',
      null,
    ],
  ])('%s', (_n, spec, placed, target, want) => {
    const s = interPodState(pod(spec), placed, labelsOf(nodes));
    expect(interPodRefusal(s, nodes.find((n) => n.name === target)!.labels)).toBe(want);
  });

  it("a running pod's anti-affinity keeps the incoming pod off its whole zone, not off other zones", () => {
    const anti = [{ topologyKey: 'zone', labelSelector: { matchLabels: APP } }];
    const s = interPodState(pod({}), [running('a', { app: 'db' }, 'default', anti)], labelsOf(nodes));
    expect(interPodRefusal(s, nodes[1]!.labels)).toBe(
      "node(s) didn't satisfy existing pods anti-affinity rules",
    );
    // Node c has no zone label: the term's topology does not reach it.
    expect(interPodRefusal(s, nodes[2]!.labels)).toBeNull();
  });

  it('anti-affinity: a node without the topology label is not refused', () => {
    const spec = {
      affinity: {
        podAntiAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [
            { topologyKey: 'zone', labelSelector: { matchLabels: APP } },
          ],
        },
      },
    };
    const s = interPodState(pod(spec), [running('a')], labelsOf(nodes));
    expect(interPodRefusal(s, nodes[1]!.labels)).toBe("node(s) didn't match pod anti-affinity rules");
    expect(interPodRefusal(s, nodes[2]!.labels)).toBeNull();
  });

  it('affinity: needs a matching pod in the domain; the first pod of a group that selects itself may go anywhere with the label', () => {
    const spec = {
      affinity: {
        podAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [
            { topologyKey: 'zone', labelSelector: { matchLabels: { app: 'cache' } } },
          ],
        },
      },
    };
    const withCache = interPodState(pod(spec), [running('a', { app: 'cache' })], labelsOf(nodes));
    expect(interPodRefusal(withCache, nodes[1]!.labels)).toBeNull(); // same zone as the cache
    expect(interPodRefusal(withCache, nodes[2]!.labels)).toBe("node(s) didn't match pod affinity rules");
    const alone = interPodState(pod(spec), [], labelsOf(nodes));
    expect(interPodRefusal(alone, nodes[0]!.labels)).toBe("node(s) didn't match pod affinity rules");
    const self = interPodState(pod(spec, { app: 'cache' }), [], labelsOf(nodes));
    expect(interPodRefusal(self, nodes[0]!.labels)).toBeNull();
    expect(interPodRefusal(self, nodes[2]!.labels)).toBe("node(s) didn't match pod affinity rules"); // no zone label
  });

  it("namespaceSelector {} looks in every namespace; matchLabelKeys narrow the selector to the pod's own value", () => {
    const all = {
      affinity: {
        podAntiAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [
            {
              topologyKey: 'kubernetes.io/hostname',
              labelSelector: { matchLabels: APP },
              namespaceSelector: {},
            },
          ],
        },
      },
    };
    expect(
      interPodRefusal(
        interPodState(pod(all), [running('a', APP, 'other')], labelsOf(nodes)),
        nodes[0]!.labels,
      ),
    ).not.toBeNull();
    const byHash = {
      affinity: {
        podAntiAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [
            {
              topologyKey: 'kubernetes.io/hostname',
              labelSelector: { matchLabels: APP },
              matchLabelKeys: ['pod-template-hash'],
            },
          ],
        },
      },
    };
    const mine = pod(byHash, { ...APP, 'pod-template-hash': 'v2' });
    expect(
      interPodRefusal(
        interPodState(mine, [running('a', { ...APP, 'pod-template-hash': 'v1' })], labelsOf(nodes)),
        nodes[0]!.labels,
      ),
    ).toBeNull();
    expect(
      interPodRefusal(
        interPodState(mine, [running('a', { ...APP, 'pod-template-hash': 'v2' })], labelsOf(nodes)),
        nodes[0]!.labels,
      ),
    ).not.toBeNull();
  });
});

describe('PodTopologySpread (DoNotSchedule)', () => {
  const spread = (maxSkew: number, extra: object = {}) => ({
    topologySpreadConstraints: [
      {
        maxSkew,
        topologyKey: 'zone',
        whenUnsatisfiable: 'DoNotSchedule',
        labelSelector: { matchLabels: APP },
        ...extra,
      },
    ],
  });
  const zones = [node('a', { zone: 'z1' }), node('b', { zone: 'z2' }), node('c', { zone: 'z2' })];
  const on =
    (counts: Record<string, number>, terminating = 0) =>
    (n: string): SpreadPod[] => [
      ...Array.from({ length: counts[n] ?? 0 }, () => ({ namespace: 'default', labels: APP })),
      ...Array.from({ length: n === 'a' ? terminating : 0 }, () => ({
        namespace: 'default',
        labels: APP,
        terminating: true,
      })),
    ];

  it.each([
    [
      'z1 has 1, z2 has 0: maxSkew 1 refuses z1',
      1,
      { a: 1 },
      'a',
      "node(s) didn't match pod topology spread constraints",
    ],
    ['z1 has 1, z2 has 0: maxSkew 1 takes z2', 1, { a: 1 }, 'b', null],
    ['z1 has 1, z2 has 0: maxSkew 2 takes z1 (skew exactly 2)', 2, { a: 1 }, 'a', null],
    [
      'z1 has 2, z2 has 0: maxSkew 2 refuses z1 (skew 3)',
      2,
      { a: 2 },
      'a',
      "node(s) didn't match pod topology spread constraints",
    ],
  ])('%s', (_n, maxSkew, counts, target, want) => {
    const s = spreadState(pod(spread(maxSkew)), zones, on(counts));
    expect(spreadRefusal(s, zones.find((n) => n.name === target)!.labels)).toBe(want);
  });

  it('a terminating pod is not counted', () => {
    const s = spreadState(pod(spread(1)), zones, on({}, 3));
    expect(spreadRefusal(s, zones[0]!.labels)).toBeNull();
  });

  it('a node without the topology label is refused as missing the label', () => {
    const s = spreadState(pod(spread(1)), zones, on({}));
    expect(spreadRefusal(s, { 'kubernetes.io/hostname': 'x' })).toBe(
      "node(s) didn't match pod topology spread constraints (missing required label)",
    );
  });

  it('only nodes matching the node selector are domains (nodeAffinityPolicy Honor); Ignore counts them all', () => {
    const pooled = [node('a', { zone: 'z1', pool: 'p' }), node('b', { zone: 'z2' })];
    const honor = spreadState(pod({ ...spread(1), nodeSelector: { pool: 'p' } }), pooled, on({ a: 1 }));
    expect(spreadRefusal(honor, pooled[0]!.labels)).toBeNull(); // z2 is no domain: z1 alone, skew 1 - 1 + 1
    const ignore = spreadState(
      pod({ ...spread(1, { nodeAffinityPolicy: 'Ignore' }), nodeSelector: { pool: 'p' } }),
      pooled,
      on({ a: 1 }),
    );
    expect(spreadRefusal(ignore, pooled[0]!.labels)).not.toBeNull();
  });

  it('minDomains above the domains counted makes the global minimum 0', () => {
    const two = [node('a', { zone: 'z1' }), node('b', { zone: 'z1' })];
    expect(spreadRefusal(spreadState(pod(spread(1)), two, on({ a: 1 })), two[0]!.labels)).toBeNull();
    expect(
      spreadRefusal(spreadState(pod(spread(1, { minDomains: 2 })), two, on({ a: 1 })), two[0]!.labels),
    ).not.toBeNull();
  });

  it('a replica placed counts for the next one', () => {
    const p = pod(spread(1));
    const s = spreadState(p, zones, on({}));
    expect(spreadRefusal(s, zones[0]!.labels)).toBeNull();
    addSpreadPod(s, zones[0]!, { namespace: 'default', labels: APP });
    expect(spreadRefusal(s, zones[0]!.labels)).not.toBeNull();
    expect(spreadRefusal(s, zones[1]!.labels)).toBeNull();
  });

  it('ScheduleAnyway constraints never filter', () => {
    const p = pod({
      topologySpreadConstraints: [
        {
          maxSkew: 1,
          topologyKey: 'zone',
          whenUnsatisfiable: 'ScheduleAnyway',
          labelSelector: { matchLabels: APP },
        },
      ],
    });
    expect(p.spread).toEqual([]);
  });
});
