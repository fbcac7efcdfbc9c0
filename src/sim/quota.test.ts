/**
 * ResourceQuota admission in the simulator (so a refused replica reads as one, not as one
 * starting): a pod past a quota is refused with kube-apiserver's 403 words, and the ReplicaSet
 * controller reports it as the `ReplicaFailure` condition (`FailedCreate`), as a real cluster's
 * does. Failed before: the sim served no ResourceQuota and created every replica.
 */
import { describe, expect, it } from 'vitest';
import { defaultControllers } from './controllers/index.js';
import { gpuNode, gpuPodSpec, Harness } from '../../test/sim-behaviour/harness.js';
import { SimApiError, type KubeObject } from './types.js';

const quota = (gpus: string, extra: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ResourceQuota',
  metadata: { name: 'gpu-quota', namespace: 'algorithms' },
  spec: { hard: { 'requests.nvidia.com/gpu': gpus, ...extra } },
});
const deployment = (replicas: number): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'algorithms' },
  spec: {
    replicas,
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: gpuPodSpec(1) },
  },
});
const failure = (rs: KubeObject) =>
  ((rs.status?.conditions ?? []) as { type: string; status: string; reason: string; message: string }[]).find(
    (c) => c.type === 'ReplicaFailure',
  );

describe('ResourceQuota admission', () => {
  it('the third replica of a 2-GPU quota is refused and the ReplicaSet says so; raising the quota lets it in', () => {
    const h = new Harness(defaultControllers());
    h.apply('nodes', gpuNode('a', 8));
    h.apply('resourcequotas', quota('2'));
    h.apply('deployments', deployment(3));
    h.advance(1);
    expect(h.store.list('pods', 'algorithms')).toHaveLength(2);
    const [rs] = h.store.list('replicasets', 'algorithms');
    const cond = failure(rs!)!;
    expect([cond.status, cond.reason]).toEqual(['True', 'FailedCreate']);
    expect(cond.message).toMatch(
      /^pods "web-[a-z0-9-]+" is forbidden: exceeded quota: gpu-quota, requested: requests\.nvidia\.com\/gpu=1, used: requests\.nvidia\.com\/gpu=2, limited: requests\.nvidia\.com\/gpu=2$/,
    );
    const q = h.store.get('resourcequotas', 'algorithms', 'gpu-quota')!;
    h.store.update('resourcequotas', { ...q, spec: { hard: { 'requests.nvidia.com/gpu': '3' } } });
    h.advance(1);
    expect(h.store.list('pods', 'algorithms')).toHaveLength(3);
    expect(failure(h.store.list('replicasets', 'algorithms')[0]!)).toBeUndefined();
  });

  it('exactly at the limit is admitted; one past it is refused with a 403', () => {
    const h = new Harness(defaultControllers());
    h.apply('resourcequotas', quota('2', { pods: '10', 'requests.cpu': '1' }));
    const pod = (name: string, cpu: string): KubeObject => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: 'algorithms' },
      spec: {
        containers: [{ name: 'c', resources: { requests: { cpu }, limits: { 'nvidia.com/gpu': '1' } } }],
      },
    });
    h.store.create('pods', pod('p1', '500m'));
    h.store.create('pods', pod('p2', '500m'));
    let err: unknown;
    try {
      h.store.create('pods', pod('p3', '1m'));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SimApiError);
    expect((err as SimApiError).code).toBe(403);
    expect((err as SimApiError).message).toBe(
      'pods "p3" is forbidden: exceeded quota: gpu-quota, requested: requests.cpu=1m,requests.nvidia.com/gpu=1, used: requests.cpu=1,requests.nvidia.com/gpu=2, limited: requests.cpu=1,requests.nvidia.com/gpu=2',
    );
  });

  it('finished pods no longer count', () => {
    const h = new Harness([]);
    h.apply('resourcequotas', quota('1'));
    h.store.create('pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'done', namespace: 'algorithms' },
      spec: gpuPodSpec(1),
      status: { phase: 'Succeeded' },
    });
    expect(() =>
      h.store.create('pods', {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'next', namespace: 'algorithms' },
        spec: gpuPodSpec(1),
      }),
    ).not.toThrow();
  });
});
