/**
 * The simulated scheduler applies the filters the real one does beyond GPUs and selectors (issue
 * 39 item 4): every resource against allocatable minus requests (cpu, memory, ephemeral storage,
 * the pod count), sidecars counted, required pod anti-affinity and affinity (also against pods
 * bound earlier in the same round), topology spread (DoNotSchedule). Each row failed before (the
 * simulator placed by free GPUs alone), except the boundary rows marked "fits".
 */
import { describe, expect, it } from 'vitest';
import { defaultControllers } from './index.js';
import { gpuNode, gpuPodSpec, Harness } from '../../../test/sim-behaviour/harness.js';
import type { KubeObject } from '../types.js';
import { placePod } from './scheduler.js';
import { schedulerView } from './scheduler-view.js';

const APP = { app: 'web' };
function pod(spec: Record<string, unknown>, name = 'p', labels: Record<string, string> = APP): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'ns', labels },
    spec,
    status: { phase: 'Pending' },
  };
}
const bound = (
  node: string,
  spec: Record<string, unknown> = gpuPodSpec(1),
  name = `on-${node}`,
  labels = APP,
) => ({
  ...pod({ ...spec, nodeName: node }, name, labels),
  status: { phase: 'Running' },
});
function kubeletNode(
  name: string,
  alloc: Record<string, string>,
  labels: Record<string, string> = {},
): KubeObject {
  const n = gpuNode(name, 4, labels);
  const allocatable = {
    cpu: '8',
    memory: '32Gi',
    pods: '110',
    'ephemeral-storage': '100Gi',
    'nvidia.com/gpu': '4',
    ...alloc,
  };
  return { ...n, status: { ...n.status, allocatable, capacity: allocatable } };
}
const withResources = (r: Record<string, string>, extra: Record<string, unknown> = {}) => {
  const s = gpuPodSpec(1, extra) as { containers: { resources: { limits: Record<string, string> } }[] };
  s.containers[0]!.resources.limits = { ...s.containers[0]!.resources.limits, ...r };
  return s as unknown as Record<string, unknown>;
};
const ANTI = {
  affinity: {
    podAntiAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: [
        { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: APP } },
      ],
    },
  },
};
const place = (p: KubeObject, nodes: KubeObject[], running: KubeObject[] = []) => {
  const got = placePod(p, schedulerView(nodes, running), 'LeastAllocated');
  return got.node ?? got.message;
};

describe('NodeResourcesFit on every resource', () => {
  it.each([
    ['cpu one core short', { cpu: '9' }, {}, /1 Insufficient cpu/],
    ['cpu exactly allocatable: fits', { cpu: '8' }, {}, 'a'],
    ['memory short', { memory: '33Gi' }, {}, /1 Insufficient memory/],
    ['ephemeral storage short', { 'ephemeral-storage': '101Gi' }, {}, /1 Insufficient ephemeral-storage/],
    ['no pod slot left', {}, { pods: '0' }, /1 Too many pods/],
  ])('%s', (_n, requests, alloc, want) => {
    const got = place(pod(withResources(requests)), [kubeletNode('a', alloc)]);
    if (want instanceof RegExp) expect(got).toMatch(want);
    else expect(got).toBe(want);
  });

  it('cpu held by a pod bound there counts; a sidecar counts beside the app container', () => {
    const sidecar = {
      ...withResources({ cpu: '3' }),
      initContainers: [{ name: 's', restartPolicy: 'Always', resources: { limits: { cpu: '2' } } }],
    };
    // 8 cores: the running pod holds 3 + 2 (its sidecar), 3 are left.
    expect(place(pod(withResources({ cpu: '3' })), [kubeletNode('a', {})], [bound('a', sidecar)])).toBe('a');
    expect(place(pod(withResources({ cpu: '4' })), [kubeletNode('a', {})], [bound('a', sidecar)])).toMatch(
      /0\/1 nodes are available: 1 Insufficient cpu\. preemption: 0\/1 nodes are available: 1 No preemption victims found for incoming pod\./,
    );
  });
});

describe('InterPodAffinity and PodTopologySpread', () => {
  it('required anti-affinity: the node running a matching pod refuses, the other takes it', () => {
    const nodes = [gpuNode('a', 8), gpuNode('b', 1)];
    expect(place(pod(gpuPodSpec(1, ANTI)), nodes, [bound('a')])).toBe('b');
    expect(place(pod(gpuPodSpec(1, ANTI)), nodes, [bound('a'), bound('b', gpuPodSpec(0))])).toMatch(
      /0\/2 nodes are available: 2 node\(s\) didn't match pod anti-affinity rules\./,
    );
  });

  it("a running pod's anti-affinity keeps a matching newcomer off its node", () => {
    const got = place(pod(gpuPodSpec(1)), [gpuNode('a', 8)], [bound('a', gpuPodSpec(1, ANTI))]);
    expect(got).toMatch(/1 node\(s\) didn't satisfy existing pods anti-affinity rules/);
  });

  it('zone spread, maxSkew 1: the emptier zone takes the pod; exactly at the skew fits', () => {
    const spread = (maxSkew: number) =>
      gpuPodSpec(1, {
        topologySpreadConstraints: [
          {
            maxSkew,
            topologyKey: 'zone',
            whenUnsatisfiable: 'DoNotSchedule',
            labelSelector: { matchLabels: APP },
          },
        ],
      });
    const nodes = [gpuNode('a', 8, { zone: 'z1' }), gpuNode('b', 1, { zone: 'z2' })];
    // a has more free GPUs (LeastAllocated would pick it), but z1 is one ahead.
    expect(place(pod(spread(1)), nodes, [bound('a')])).toBe('b');
    expect(place(pod(spread(2)), nodes, [bound('a')])).toBe('a');
  });

  it('a Deployment of 3 with one replica per node on 2 nodes: the third stays Pending with the scheduler words', () => {
    const h = new Harness(defaultControllers());
    h.apply('nodes', gpuNode('a', 4), gpuNode('b', 4));
    h.apply('deployments', {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'ns' },
      spec: {
        replicas: 3,
        selector: { matchLabels: APP },
        template: { metadata: { labels: APP }, spec: gpuPodSpec(1, ANTI) },
      },
    });
    h.advance(1);
    const pods = h.store.list('pods', 'ns');
    expect(
      pods
        .filter((p) => p.spec.nodeName)
        .map((p) => p.spec.nodeName)
        .sort(),
    ).toEqual(['a', 'b']);
    const pending = pods.filter((p) => !p.spec.nodeName);
    expect(pending).toHaveLength(1);
    const cond = (pending[0]!.status.conditions as { type: string; reason: string; message: string }[]).find(
      (c) => c.type === 'PodScheduled',
    )!;
    expect([cond.reason, cond.message]).toEqual([
      'Unschedulable',
      // The plugin checks the pod's own anti-affinity before the running pods'.
      "0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.",
    ]);
  });
});
