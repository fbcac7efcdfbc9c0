/**
 * The pod changes a pass's scaling decisions ask of a standby set, read from the cluster's labels:
 * claims of Ready standbys on a scale-up (each pod once in a pass), give-backs with the newest
 * standby ReplicaSet's hash on a scale-down, a delete when there is none; never a pod that is not
 * Ready, being deleted, of another set or namespace.
 */
import { describe, expect, it } from 'vitest';
import type { PodInfo, ReplicaSetInfo } from '../../src/cluster/types.js';
import type { StandbySet } from '../../src/definitions/types.js';
import { standbyActions } from '../../src/scaling/rules/claim-actions.js';
import type { ScalingDecision } from '../../src/scaling/types.js';

const SET: StandbySet = {
  name: 'llm',
  pool: 'short-task',
  namespace: 'algorithms',
  image: 'registry.example.com/ml/multi-model:2.1',
  algorithms: ['bert', 'llama'],
  gpus: 1,
  port: 8000,
  readinessPath: '/ready',
  wakePath: '/wake',
  claimSeconds: 5,
};

const pod = (name: string, labels: Record<string, string>, o: Partial<PodInfo> = {}): PodInfo =>
  ({
    namespace: 'algorithms',
    name,
    uid: name,
    labels,
    nodeName: 'gpu-1',
    phase: 'Running',
    ready: true,
    terminating: false,
    algorithm: labels['gpuops.dev/algorithm'] ?? null,
    ...o,
  }) as PodInfo;
const standby = (name: string, o: Partial<PodInfo> = {}) => pod(name, { 'gpuops.dev/standby': 'llm' }, o);
const claimed = (name: string, alg: string) =>
  pod(name, { 'gpuops.dev/claimed-from': 'llm', 'gpuops.dev/algorithm': alg, 'app.kubernetes.io/name': alg });
const decision = (algorithm: string, from: number, to: number): ScalingDecision => ({
  algorithm,
  action: to > from ? 'scale-up' : to < from ? 'scale-down' : 'hold',
  replicas: { from, to },
  utilization: 50,
  nodes: [],
  reason: 'AboveMax',
  message: '',
});
const rs = (name: string, revision: number, owner = 'gpuops-standby-llm'): ReplicaSetInfo => ({
  namespace: 'algorithms',
  name,
  owner: { kind: 'Deployment', name: owner },
  revision,
  replicas: 2,
});

const brief = (a: { kind: string; algorithm: string; pod: string }) => `${a.kind} ${a.pod} → ${a.algorithm}`;

describe('standby actions of a pass', () => {
  it.each([
    ['one up, two Ready: one claim', [decision('bert', 1, 2)], ['claim s-a → bert']],
    [
      'three up, two Ready: two claims (the rest is cold)',
      [decision('bert', 1, 4)],
      ['claim s-a → bert', 'claim s-b → bert'],
    ],
    ['a hold: none', [decision('bert', 2, 2)], []],
    ['an algorithm in no set: none', [decision('resnet', 1, 3)], []],
    [
      'two algorithms share the Ready pods, each taken once',
      [decision('bert', 1, 2), decision('llama', 1, 3)],
      ['claim s-a → bert', 'claim s-b → llama'],
    ],
  ] as const)('%s', (_, decisions, expected) => {
    const pods = [
      standby('s-a'),
      standby('s-b'),
      standby('s-c', { ready: false }),
      standby('s-d', { terminating: true }),
      standby('s-e', { phase: 'Pending', ready: false, nodeName: null }),
      standby('s-f', { namespace: 'vision' }),
      pod('s-g', { 'gpuops.dev/standby': 'other' }),
    ];
    const actions = standbyActions(decisions, [SET], { pods, replicaSets: [] });
    expect(actions.map(brief)).toEqual(expected);
    for (const a of actions) {
      expect(a.expect).toEqual({ 'gpuops.dev/standby': 'llm' });
      expect(a.wake).toEqual({ port: 8000, path: '/wake', timeoutSeconds: 5 });
      expect(a.labels).toMatchObject({ 'gpuops.dev/standby': null, 'gpuops.dev/algorithm': a.algorithm });
    }
  });

  it.each([
    ['one down, two claimed: one give-back', 3, 2, ['give-back c-a → bert']],
    [
      'three down, two claimed: two give-backs (the rest from the Deployment)',
      4,
      1,
      ['give-back c-a → bert', 'give-back c-b → bert'],
    ],
  ] as const)('%s, to the newest standby ReplicaSet', (_, from, to, expected) => {
    const pods = [claimed('c-a', 'bert'), claimed('c-b', 'bert'), claimed('c-c', 'llama')];
    const replicaSets = [
      rs('gpuops-standby-llm-aaa111', 1),
      rs('gpuops-standby-llm-bbb222', 2),
      rs('other-ccc333', 3, 'other'),
    ];
    const actions = standbyActions([decision('bert', from, to)], [SET], { pods, replicaSets });
    expect(actions.map(brief)).toEqual(expected);
    for (const a of actions) {
      expect(a.labels).toMatchObject({
        'pod-template-hash': 'bbb222',
        'gpuops.dev/standby': 'llm',
        'gpuops.dev/algorithm': null,
      });
      expect(a.expect).toEqual({ 'gpuops.dev/claimed-from': 'llm', 'gpuops.dev/algorithm': 'bert' });
    }
  });

  it('with no standby ReplicaSet left, a claimed pod is deleted', () => {
    const actions = standbyActions([decision('bert', 2, 1)], [SET], {
      pods: [claimed('c-a', 'bert')],
      replicaSets: [],
    });
    expect(actions.map(brief)).toEqual(['delete c-a → bert']);
  });
});
