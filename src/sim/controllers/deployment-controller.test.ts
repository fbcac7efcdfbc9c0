import { describe, expect, it } from 'vitest';
import { Harness, gpuNode, gpuPodSpec } from '../../../test/sim-behaviour/harness.js';
import { LoadModel } from '../load-model.js';
import type { KubeObject } from '../types.js';
import { defaultControllers } from './index.js';
import { podTemplateHash } from './names.js';

const T0 = '2026-12-01T10:00:00Z';

function deployment(
  name: string,
  replicas: number | undefined,
  image = 'registry.example.com/ml/serve:1',
): KubeObject {
  const labels = { app: name, 'gpuops.dev/algorithm': name };
  const spec = gpuPodSpec(1);
  (spec.containers as { image: string }[])[0]!.image = image;
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'algorithms' },
    spec: {
      ...(replicas === undefined ? {} : { replicas }),
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels }, spec },
    },
  };
}

function setup(config = {}): Harness {
  const h = new Harness(defaultControllers({ garbageCollection: true, ...config }), T0);
  h.apply('nodes', gpuNode('gpu-1', 4), gpuNode('gpu-2', 4));
  return h;
}

const podsOf = (h: Harness, app: string) =>
  h.store.list('pods', 'algorithms').filter((p) => p.metadata.labels?.app === app);

function scale(h: Harness, name: string, replicas: number): void {
  const d = h.store.get('deployments', 'algorithms', name)!;
  d.spec.replicas = replicas;
  h.store.update('deployments', d);
  h.settle();
}

describe('Deployment and ReplicaSet controllers', () => {
  it('creates the ReplicaSet <deploy>-<template hash> and its running pods, with status', () => {
    const h = setup();
    h.apply('deployments', deployment('infer', 3));
    const d = h.store.get('deployments', 'algorithms', 'infer')!;
    const hash = podTemplateHash(d.spec.template);
    const rs = h.store.get('replicasets', 'algorithms', `infer-${hash}`)!;
    expect(rs.metadata.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'Deployment', name: 'infer', uid: d.metadata.uid }),
    ]);
    expect(rs.spec.replicas).toBe(3);
    const pods = podsOf(h, 'infer');
    expect(pods).toHaveLength(3);
    for (const p of pods) {
      expect(p.metadata.name).toMatch(new RegExp(`^infer-${hash}-[a-z0-9]{5}$`));
      expect(p.metadata.labels).toMatchObject({ 'pod-template-hash': hash, 'gpuops.dev/algorithm': 'infer' });
      expect(p.status.phase).toBe('Running');
    }
    expect(d.status).toMatchObject({
      observedGeneration: 1,
      replicas: 3,
      readyReplicas: 3,
      availableReplicas: 3,
      updatedReplicas: 3,
    });
    expect(d.status.conditions.find((c: { type: string }) => c.type === 'Progressing')).toMatchObject({
      reason: 'NewReplicaSetAvailable',
    });
    expect(rs.status).toMatchObject({ replicas: 3, readyReplicas: 3 });
  });

  it('defaults to one replica when spec.replicas is absent (HPA engine)', () => {
    const h = setup();
    h.apply('deployments', deployment('hpa-owned', undefined));
    expect(podsOf(h, 'hpa-owned')).toHaveLength(1);
  });

  it('scales up, and down removing the newest pods first', () => {
    const h = setup();
    h.apply('deployments', deployment('svc', 2));
    const first = podsOf(h, 'svc').map((p) => p.metadata.name);
    h.advance(60);
    scale(h, 'svc', 5);
    expect(podsOf(h, 'svc')).toHaveLength(5);
    h.advance(60);
    scale(h, 'svc', 2);
    expect(
      podsOf(h, 'svc')
        .map((p) => p.metadata.name)
        .sort(),
    ).toEqual(first.sort());
    expect(h.store.get('deployments', 'algorithms', 'svc')!.status).toMatchObject({
      replicas: 2,
      readyReplicas: 2,
      observedGeneration: 3,
    });
  });

  it('pods beyond free GPUs stay Pending and count as unavailable', () => {
    const h = setup();
    h.apply('deployments', deployment('wide', 10));
    const phases = podsOf(h, 'wide')
      .map((p) => p.status.phase)
      .sort();
    expect(phases.filter((p) => p === 'Running')).toHaveLength(8);
    expect(phases.filter((p) => p === 'Pending')).toHaveLength(2);
    expect(h.store.get('deployments', 'algorithms', 'wide')!.status).toMatchObject({
      replicas: 10,
      readyReplicas: 8,
      unavailableReplicas: 2,
    });
  });

  it('rolls a template change out to a new ReplicaSet and removes the old pods', () => {
    const h = setup();
    h.apply('deployments', deployment('roll', 3));
    const d = h.store.get('deployments', 'algorithms', 'roll')!;
    const oldHash = podTemplateHash(d.spec.template);
    d.spec.template.spec.containers[0].image = 'registry.example.com/ml/serve:2';
    h.store.update('deployments', d);
    h.settle();
    const newHash = podTemplateHash(d.spec.template);
    expect(newHash).not.toBe(oldHash);
    const pods = podsOf(h, 'roll');
    expect(pods).toHaveLength(3);
    expect(
      pods.every((p) => p.metadata.labels?.['pod-template-hash'] === newHash && p.status.phase === 'Running'),
    ).toBe(true);
    expect(h.store.get('replicasets', 'algorithms', `roll-${oldHash}`)!.spec.replicas).toBe(0);
    const status = h.store.get('deployments', 'algorithms', 'roll')!.status;
    expect(status).toMatchObject({ replicas: 3, updatedReplicas: 3, observedGeneration: 2 });
    expect(
      h.store.get('deployments', 'algorithms', 'roll')!.metadata.annotations?.[
        'deployment.kubernetes.io/revision'
      ],
    ).toBe('2');
  });

  it('a rollout never takes more than one GPU beyond the desired count (surge 1 of 1 replica)', () => {
    const h = new Harness(defaultControllers({ garbageCollection: true }), T0);
    h.apply('nodes', gpuNode('only', 1));
    h.apply('deployments', deployment('tight', 1));
    const d = h.store.get('deployments', 'algorithms', 'tight')!;
    d.spec.template.spec.containers[0].image = 'registry.example.com/ml/serve:2';
    h.store.update('deployments', d);
    h.settle();
    // the new pod cannot be scheduled while the old one holds the only GPU: the rollout waits
    const pods = podsOf(h, 'tight');
    expect(pods.map((p) => p.status.phase).sort()).toEqual(['Pending', 'Running']);
    expect(h.store.get('deployments', 'algorithms', 'tight')!.status.readyReplicas).toBe(1);
  });

  it('garbage-collects ReplicaSets and pods of a deleted Deployment, but never dump pods with unknown owners', () => {
    const h = setup();
    h.apply('pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'video-decode-5c9d7-2xq8w',
        namespace: 'media',
        ownerReferences: [
          {
            apiVersion: 'apps/v1',
            kind: 'ReplicaSet',
            name: 'video-decode-5c9d7',
            uid: 'u-1',
            controller: true,
          },
        ],
      },
      spec: { ...gpuPodSpec(1), nodeName: 'gpu-1' },
      status: { phase: 'Running' },
    });
    h.apply('deployments', deployment('gone', 2));
    h.store.delete('deployments', 'algorithms', 'gone');
    h.settle();
    expect(h.store.list('replicasets', 'algorithms')).toEqual([]);
    expect(podsOf(h, 'gone')).toEqual([]);
    expect(h.store.get('pods', 'media', 'video-decode-5c9d7-2xq8w')).toBeDefined();
  });
});

describe('HPA controller', () => {
  function hpa(name: string, min: number, max: number, target: string): KubeObject {
    return {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name, namespace: 'algorithms' },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name },
        minReplicas: min,
        maxReplicas: max,
        metrics: [
          {
            type: 'Pods',
            pods: {
              metric: { name: 'DCGM_FI_DEV_GPU_UTIL' },
              target: { type: 'AverageValue', averageValue: target },
            },
          },
        ],
      },
    };
  }

  it('sets replicas from the load model between min and max and reports status', () => {
    const load = new LoadModel();
    const h = setup({ loadModel: load });
    load.setLoad('auto', 150); // 1.5 GPUs of work
    h.apply('deployments', deployment('auto', undefined));
    h.apply('horizontalpodautoscalers', hpa('auto', 1, 5, '60'));
    // 1 pod at 100 % (capped) vs target 60 → ceil(1 × 100/60) = 2
    expect(h.store.get('deployments', 'algorithms', 'auto')!.spec.replicas).toBe(2);
    h.advance(15);
    // 2 pods at 75 % → ceil(2 × 75/60) = 3; then 3 pods at 50 % → within? 50/60 = 0.83 → ceil(3 × 0.83) = 3
    expect(h.store.get('deployments', 'algorithms', 'auto')!.spec.replicas).toBe(3);
    h.advance(15);
    expect(h.store.get('deployments', 'algorithms', 'auto')!.spec.replicas).toBe(3);
    const s = h.store.get('horizontalpodautoscalers', 'algorithms', 'auto')!.status;
    expect(s).toMatchObject({ currentReplicas: 3, desiredReplicas: 3 });
    expect(s.currentMetrics[0].pods.current.averageValue).toBe('50');

    load.setLoad('auto', 1000);
    h.advance(15);
    h.advance(15);
    const at = h.store.get('horizontalpodautoscalers', 'algorithms', 'auto')!.status;
    expect(at.desiredReplicas).toBe(5);
    expect(at.conditions.find((c: { type: string }) => c.type === 'ScalingLimited')).toMatchObject({
      status: 'True',
      reason: 'TooManyReplicas',
    });

    load.setLoad('auto', 10);
    h.advance(15);
    expect(h.store.get('deployments', 'algorithms', 'auto')!.spec.replicas).toBe(5); // scale-down stabilisation
    h.advance(300);
    expect(h.store.get('deployments', 'algorithms', 'auto')!.spec.replicas).toBe(1);
  });

  it('without metrics only enforces minReplicas and never scales down', () => {
    const h = setup();
    h.apply('deployments', deployment('nometric', 4));
    h.apply('horizontalpodautoscalers', hpa('nometric', 2, 6, '60'));
    h.advance(600);
    expect(h.store.get('deployments', 'algorithms', 'nometric')!.spec.replicas).toBe(4);
    const s = h.store.get('horizontalpodautoscalers', 'algorithms', 'nometric')!.status;
    expect(s.conditions.find((c: { type: string }) => c.type === 'ScalingActive')).toMatchObject({
      status: 'False',
      reason: 'FailedGetPodsMetric',
    });
  });
});
