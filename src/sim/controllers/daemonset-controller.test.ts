import { describe, expect, it } from 'vitest';
import { Harness, gpuNode } from '../../../test/sim-behaviour/harness.js';
import type { KubeObject } from '../types.js';
import { REVISION_LABEL, maxUnavailable } from './daemonset-controller.js';
import { defaultControllers } from './index.js';
import { podTemplateHash } from './names.js';

const POOL = 'gpuops.dev/pool';
const GPU_TOLERATION = { key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' };

/** A DaemonSet on the nodes whose pool is one of `pools`, tolerating the GPU taint unless told not to. */
function daemonSet(
  pools: string[],
  o: { tolerate?: boolean; nodeSelector?: Record<string, string>; image?: string } = {},
): KubeObject {
  const labels = { app: 'prepull' };
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'prepull', namespace: 'algorithms' },
    spec: {
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          ...(o.nodeSelector ? { nodeSelector: o.nodeSelector } : {}),
          affinity: {
            nodeAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: {
                nodeSelectorTerms: [{ matchExpressions: [{ key: POOL, operator: 'In', values: pools }] }],
              },
            },
          },
          tolerations: o.tolerate === false ? [] : [GPU_TOLERATION],
          containers: [{ name: 'pause', image: o.image ?? 'registry.k8s.io/pause:3.10' }],
        },
      },
    },
  };
}

function setup(): Harness {
  const h = new Harness(defaultControllers({ garbageCollection: true }), '2026-12-01T10:00:00Z');
  h.apply(
    'nodes',
    gpuNode('gpu-long', 4, { [POOL]: 'long-task' }),
    gpuNode('gpu-unused', 4, { [POOL]: 'unused' }),
    gpuNode('gpu-short', 4, { [POOL]: 'short-task' }),
    gpuNode('gpu-none', 4),
  );
  return h;
}

/** Node → phase of the DaemonSet's pods, sorted by node. */
function podsByNode(h: Harness): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of h.store.list('pods', 'algorithms'))
    out[p.spec.nodeName ?? `unbound:${p.metadata.name}`] = p.status?.phase ?? '';
  return out;
}

function relabel(h: Harness, node: string, pool: string | null): void {
  const n = h.store.get('nodes', undefined, node)!;
  const labels = { ...n.metadata.labels };
  if (pool === null) delete labels[POOL];
  else labels[POOL] = pool;
  n.metadata.labels = labels;
  h.store.update('nodes', n);
  h.settle();
}

describe('DaemonSet controller', () => {
  it('runs one pod on each node that matches its affinity, bound by the scheduler, with status', () => {
    const h = setup();
    h.apply('daemonsets', daemonSet(['long-task', 'unused']));
    expect(podsByNode(h)).toEqual({ 'gpu-long': 'Running', 'gpu-unused': 'Running' });
    const ds = h.store.get('daemonsets', 'algorithms', 'prepull')!;
    const pod = h.store.list('pods', 'algorithms').find((p) => p.spec.nodeName === 'gpu-long')!;
    expect(pod.metadata.name).toMatch(/^prepull-[a-z0-9]{5}$/);
    expect(pod.metadata.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'DaemonSet', name: 'prepull', uid: ds.metadata.uid, controller: true }),
    ]);
    expect(pod.metadata.labels?.[REVISION_LABEL]).toBe(podTemplateHash(ds.spec.template));
    // Pinned to its node by name, as the real controller does since Kubernetes 1.12.
    expect(pod.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution).toEqual({
      nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['gpu-long'] }] }],
    });
    expect(ds.status).toEqual({
      desiredNumberScheduled: 2,
      currentNumberScheduled: 2,
      numberMisscheduled: 0,
      numberReady: 2,
      numberAvailable: 2,
      numberUnavailable: 0,
      updatedNumberScheduled: 2,
      observedGeneration: 1,
    });
  });

  it('honours taints: without a toleration of the GPU taint no GPU node gets a pod', () => {
    const h = setup();
    h.apply('daemonsets', daemonSet(['long-task', 'unused'], { tolerate: false }));
    expect(podsByNode(h)).toEqual({});
    expect(h.store.get('daemonsets', 'algorithms', 'prepull')!.status.desiredNumberScheduled).toBe(0);
  });

  it('honours the nodeSelector beside the affinity', () => {
    const h = setup();
    h.apply(
      'daemonsets',
      daemonSet(['long-task', 'unused'], { nodeSelector: { 'kubernetes.io/hostname': 'gpu-unused' } }),
    );
    expect(podsByNode(h)).toEqual({ 'gpu-unused': 'Running' });
  });

  it('keeps a pod on a cordoned node and gives one to a cordoned node that joins (its added tolerations)', () => {
    const h = setup();
    const cordoned = gpuNode('gpu-cordoned', 4, { [POOL]: 'unused' }, { unschedulable: true });
    h.apply('nodes', cordoned);
    h.apply('daemonsets', daemonSet(['unused']));
    expect(podsByNode(h)).toEqual({ 'gpu-unused': 'Running', 'gpu-cordoned': 'Running' });
  });

  it('follows the nodes: a node that leaves the pool loses its pod, one that joins gets one', () => {
    const h = setup();
    h.apply('daemonsets', daemonSet(['long-task', 'unused']));
    relabel(h, 'gpu-unused', 'short-task');
    expect(podsByNode(h)).toEqual({ 'gpu-long': 'Running' });
    relabel(h, 'gpu-none', 'unused');
    expect(podsByNode(h)).toEqual({ 'gpu-long': 'Running', 'gpu-none': 'Running' });
    expect(h.store.get('daemonsets', 'algorithms', 'prepull')!.status.desiredNumberScheduled).toBe(2);
  });

  it('puts a pod back when one is deleted, and replaces the pods of an older template', () => {
    const h = setup();
    h.apply('daemonsets', daemonSet(['long-task', 'unused']));
    const first = h.store.list('pods', 'algorithms').find((p) => p.spec.nodeName === 'gpu-long')!;
    h.store.delete('pods', 'algorithms', first.metadata.name);
    h.settle();
    expect(podsByNode(h)).toEqual({ 'gpu-long': 'Running', 'gpu-unused': 'Running' });
    const ds = h.store.get('daemonsets', 'algorithms', 'prepull')!;
    ds.spec.template.spec.containers[0].image = 'registry.k8s.io/pause:3.11';
    h.store.update('daemonsets', ds);
    h.settle();
    const pods = h.store.list('pods', 'algorithms');
    expect(pods.map((p) => p.spec.containers[0].image)).toEqual([
      'registry.k8s.io/pause:3.11',
      'registry.k8s.io/pause:3.11',
    ]);
    expect(h.store.get('daemonsets', 'algorithms', 'prepull')!.status.updatedNumberScheduled).toBe(2);
  });

  it.each<[string, unknown, number, number]>([
    ['absent: 1', undefined, 10, 1],
    ['a count', 3, 10, 3],
    ['10 % of 10 nodes', '10%', 10, 1],
    ['10 % of 11 nodes rounds up', '10%', 11, 2],
    ['at least 1', '10%', 0, 1],
  ])('maxUnavailable %s', (_name, value, desired, want) => {
    const ds = daemonSet(['unused']);
    if (value !== undefined)
      ds.spec.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: value } };
    expect(maxUnavailable(ds, desired)).toBe(want);
  });
});
