/**
 * One owner of `spec.replicas` (issue 41 kind 4): an HPA gpuops did not write, or the one a KEDA
 * ScaledObject made, that targets an algorithm's Deployment holds gpuops's scaling of it, with a
 * reason naming the other owner. Rows marked "failed before" scaled the Deployment up beside the
 * other autoscaler.
 */
import { readFileSync } from 'node:fs';
import type { V2HorizontalPodAutoscaler } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { reduceAutoscaler } from '../../src/cluster/autoscalers.js';
import type { Policy } from '../../src/definitions/types.js';
import { decideOne, replica } from './one-deployment.js';

const defaults = parse(
  readFileSync(new URL('../../policies/default.yaml', import.meta.url), 'utf8'),
) as Policy;
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

function decide(hpas: V2HorizontalPodAutoscaler[], engine: 'gpuops' | 'hpa' = 'gpuops') {
  const policy = { ...defaults, spec: { ...defaults.spec, scaling: { ...defaults.spec.scaling, engine } } };
  return decideOne({
    policy,
    pods: [replica('r1'), replica('r2')],
    replicas: 2,
    utilization: 95,
    autoscalers: hpas.map(reduceAutoscaler),
    hpa: engine === 'hpa' ? { currentReplicas: 2, desiredReplicas: 2, maxReplicas: 6 } : null,
  });
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
