/**
 * One owner of `spec.replicas` (issue 41 kind 4): an HPA gpuops did not write, or the one a KEDA
 * ScaledObject made, that targets an algorithm's Deployment holds gpuops's scaling of it, with a
 * reason naming the other owner. Rows marked "failed before" scaled the Deployment up beside the
 * other autoscaler.
 */
import { readFileSync } from 'node:fs';
import type { V1Pod, V2HorizontalPodAutoscaler } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { reduceAutoscaler } from '../../src/cluster/autoscalers.js';
import { buildSnapshot } from '../../src/cluster/snapshot.js';
import { decideScaling } from '../../src/scaling/decide-scaling.js';
import type { Policy, ResolvedAlgorithm } from '../../src/definitions/types.js';

const defaults = parse(
  readFileSync(new URL('../../policies/default.yaml', import.meta.url), 'utf8'),
) as Policy;
const NOW = new Date('2026-03-01T10:00:00Z');
const alg: ResolvedAlgorithm = {
  name: 'resnet50-infer',
  namespace: 'algorithms',
  spec: { image: 'registry.example.com/ml/resnet50:1.4.2', resources: { gpus: 1 } },
  scaling: { minReplicas: 1, maxReplicas: 6, utilization: { min: 30, max: 80 } },
  benchmark: { args: undefined, runs: 1, timeoutSeconds: 1800 },
  placement: 'short-task',
  source: { file: 'algorithms/resnet50-infer.yaml', line: 1 },
};

const hpa = (o: {
  name: string;
  namespace?: string;
  target?: string;
  kind?: string;
  managed?: boolean;
  scaledObject?: string;
}): V2HorizontalPodAutoscaler => ({
  apiVersion: 'autoscaling/v2',
  kind: 'HorizontalPodAutoscaler',
  metadata: {
    name: o.name,
    namespace: o.namespace ?? 'algorithms',
    labels: o.managed
      ? { 'app.kubernetes.io/managed-by': 'gpuops', 'gpuops.dev/algorithm': 'resnet50-infer' }
      : {},
    ...(o.scaledObject
      ? {
          ownerReferences: [
            {
              apiVersion: 'keda.sh/v1alpha1',
              kind: 'ScaledObject',
              name: o.scaledObject,
              uid: 'so',
              controller: true,
            },
          ],
        }
      : {}),
  },
  spec: {
    scaleTargetRef: {
      apiVersion: 'apps/v1',
      kind: o.kind ?? 'Deployment',
      name: o.target ?? 'resnet50-infer',
    },
    maxReplicas: 10,
  },
});

const replica = (name: string): V1Pod =>
  ({
    metadata: {
      name,
      namespace: 'algorithms',
      uid: name,
      labels: { 'app.kubernetes.io/managed-by': 'gpuops', 'gpuops.dev/algorithm': 'resnet50-infer' },
      ownerReferences: [
        { kind: 'ReplicaSet', name: 'resnet50-infer-7d9f6c5b8', apiVersion: 'apps/v1', uid: 'rs' },
      ],
      creationTimestamp: new Date('2026-03-01T08:00:00Z'),
    },
    spec: {
      nodeName: 'gpu-s1',
      containers: [{ name: 'main', resources: { limits: { 'nvidia.com/gpu': '1' } } }],
    },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
  }) as V1Pod;

function decide(hpas: V2HorizontalPodAutoscaler[], engine: 'gpuops' | 'hpa' = 'gpuops') {
  const policy = { ...defaults, spec: { ...defaults.spec, scaling: { ...defaults.spec.scaling, engine } } };
  const node = {
    metadata: { name: 'gpu-s1', labels: { 'gpuops.dev/pool': 'short-task' } },
    status: {
      conditions: [{ type: 'Ready', status: 'True' }],
      allocatable: { 'nvidia.com/gpu': '8' },
      capacity: { 'nvidia.com/gpu': '8' },
    },
  };
  const pods = [replica('r1'), replica('r2')];
  const snapshot = { ...buildSnapshot([node], pods, NOW), autoscalers: hpas.map(reduceAutoscaler) };
  return decideScaling({
    algorithms: [
      {
        algorithm: alg,
        pool: 'short-task',
        replicas: 2,
        hpa: engine === 'hpa' ? { currentReplicas: 2, desiredReplicas: 2, maxReplicas: 6 } : null,
      },
    ],
    snapshot,
    reading: {
      ok: true,
      errors: [],
      evaluatedAt: NOW.getTime(),
      series: pods.map((p, i) => ({
        metric: 'DCGM_FI_DEV_GPU_UTIL',
        labels: {
          gpu: '0',
          UUID: `GPU-${i}`,
          Hostname: 'gpu-s1',
          namespace: 'algorithms',
          pod: p.metadata!.name!,
        },
        value: 95,
        timestamp: NOW.getTime() - 5_000,
      })),
    },
    recent: [],
    policy,
    now: NOW,
  }).decisions[0]!;
}

describe('another autoscaler on the Deployment', () => {
  it('the HPA a KEDA ScaledObject made: hold OtherAutoscaler naming the ScaledObject (failed before)', () => {
    const d = decide([hpa({ name: 'keda-hpa-resnet50', scaledObject: 'resnet50' })]);
    expect([d.action, d.reason, d.replicas]).toEqual(['hold', 'OtherAutoscaler', { from: 2, to: 2 }]);
    expect(d.message).toContain(
      'HorizontalPodAutoscaler algorithms/keda-hpa-resnet50 (made by KEDA ScaledObject algorithms/resnet50) scales Deployment algorithms/resnet50-infer',
    );
  });

  it('a plain HPA a person wrote: held, named (failed before)', () => {
    const d = decide([hpa({ name: 'resnet50-infer-hpa' })]);
    expect([d.action, d.reason]).toEqual(['hold', 'OtherAutoscaler']);
    expect(d.message).toContain('HorizontalPodAutoscaler algorithms/resnet50-infer-hpa scales');
  });

  it("an HPA labelled as gpuops's under engine gpuops (gpuops writes none then): held (failed before)", () => {
    expect(decide([hpa({ name: 'resnet50-infer', managed: true })]).reason).toBe('OtherAutoscaler');
  });

  it.each([
    ['another Deployment', hpa({ name: 'x', target: 'bert-infer' })],
    ['the same name in another namespace', hpa({ name: 'x', namespace: 'team-a' })],
    ['a StatefulSet of the same name', hpa({ name: 'x', kind: 'StatefulSet' })],
  ])('across the boundary: an HPA of %s is no other owner; gpuops scales up', (_n, h) => {
    expect([decide([h]).action, decide([h]).reason]).toEqual(['scale-up', 'AboveMax']);
  });

  it("across the boundary: with engine hpa gpuops's own HPA is no other owner", () => {
    expect(decide([hpa({ name: 'resnet50-infer', managed: true })], 'hpa').reason).not.toBe(
      'OtherAutoscaler',
    );
  });
});
