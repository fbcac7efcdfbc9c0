/**
 * A replica the API server refuses is no replica starting (issue 41 kind 6): the ReplicaSet's
 * `ReplicaFailure` condition (`FailedCreate`: a ResourceQuota, LimitRange or PodSecurity refusal)
 * holds scaling with that reason. Rows marked "failed before" were `hold PodsStarting` ("1
 * replica(s) are starting") pass after pass, with no time limit.
 */
import { readFileSync } from 'node:fs';
import type { V1Pod, V1ReplicaSet } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import type { Policy } from '../../src/definitions/types.js';
import { decideOne, replica } from './one-deployment.js';

const policy = parse(readFileSync(new URL('../../policies/default.yaml', import.meta.url), 'utf8')) as Policy;
const QUOTA =
  'pods "resnet50-infer-7d9f6c5b8-x2x9z" is forbidden: exceeded quota: gpu-quota, requested: requests.nvidia.com/gpu=1, used: requests.nvidia.com/gpu=2, limited: requests.nvidia.com/gpu=2';
const LIMIT_RANGE =
  'pods "resnet50-infer-7d9f6c5b8-x2x9z" is forbidden: maximum cpu usage per Container is 2, but limit is 4';
const POD_SECURITY =
  'pods "resnet50-infer-7d9f6c5b8-x2x9z" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false';

const replicaSet = (failure?: string): V1ReplicaSet =>
  ({
    metadata: {
      name: 'resnet50-infer-7d9f6c5b8',
      namespace: 'algorithms',
      annotations: { 'deployment.kubernetes.io/revision': '1' },
      ownerReferences: [
        { kind: 'Deployment', name: 'resnet50-infer', apiVersion: 'apps/v1', uid: 'd', controller: true },
      ],
    },
    spec: { replicas: 3, selector: { matchLabels: {} } },
    status: {
      replicas: 2,
      ...(failure
        ? {
            conditions: [
              { type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate', message: failure },
            ],
          }
        : {}),
    },
  }) as V1ReplicaSet;

function decide(pods: V1Pod[], rs: V1ReplicaSet, replicas = 3) {
  return decideOne({ policy, pods, replicas, utilization: 93, replicaSets: [rs] });
}

describe('replicas the API server refuses', () => {
  it.each([
    ['a ResourceQuota (failed before)', QUOTA],
    ['a LimitRange (failed before)', LIMIT_RANGE],
    ['PodSecurity admission (failed before)', POD_SECURITY],
  ])('refused by %s: hold ReplicasRefused naming the refusal, never PodsStarting', (_n, message) => {
    const d = decide([replica('r1'), replica('r2')], replicaSet(message));
    expect([d.action, d.reason, d.replicas]).toEqual(['hold', 'ReplicasRefused', { from: 3, to: 3 }]);
    expect(d.message).toContain(
      `1 of 3 replica(s) not created, the API server refuses them (FailedCreate: ${message})`,
    );
  });

  it('across the boundary: the same missing replica with no ReplicaFailure is still one starting', () => {
    const d = decide([replica('r1'), replica('r2')], replicaSet());
    expect(d.reason).toBe('PodsStarting');
  });

  it('across the boundary: every replica there makes a stale ReplicaFailure no hold', () => {
    const d = decide([replica('r1'), replica('r2'), replica('r3')], replicaSet(QUOTA));
    expect([d.action, d.reason]).toEqual(['scale-up', 'AboveMax']);
  });
});
