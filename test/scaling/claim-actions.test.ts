/**
 * The pod changes a pass's scaling decisions ask of a standby set, read from the cluster's labels:
 * claims of Ready standbys on a scale-up (each pod once in a pass), give-backs with the newest
 * standby ReplicaSet's hash on a scale-down, a delete when there is none; never a pod that is not
 * Ready, being deleted, of another set or namespace.
 */
import { describe, expect, it } from 'vitest';
import type { PodInfo, ReplicaSetInfo } from '../../src/cluster/types.js';
import type { StandbySet } from '../../src/definitions/types.js';
import {
  currentStandbyHash,
  outstandingClaims,
  standbyActions,
} from '../../src/scaling/rules/claim-actions.js';
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

describe('which pods a pass may claim or give back', () => {
  it('claims Ready standbys by name, whatever order the cluster lists them in', () => {
    const pods = [standby('s-c'), standby('s-a'), standby('s-b')];
    const actions = standbyActions([decision('bert', 1, 3)], [SET], { pods });
    expect(actions.map(brief)).toEqual(['claim s-a → bert', 'claim s-b → bert']);
  });

  it('never claims a standby that is not Running, even with a stale Ready condition', () => {
    const pods = [standby('s-a', { phase: 'Failed' }), standby('s-b', { phase: 'Pending' }), standby('s-c')];
    const actions = standbyActions([decision('bert', 1, 3)], [SET], { pods });
    expect(actions.map(brief)).toEqual(['claim s-c → bert']);
  });

  it('gives back claimed pods by name and never one being deleted', () => {
    const pods = [
      claimed('c-c', 'bert'),
      { ...claimed('c-a', 'bert'), terminating: true },
      claimed('c-b', 'bert'),
      claimed('c-d', 'bert'),
    ];
    const replicaSets = [rs('gpuops-standby-llm-bbb222', 2)];
    const actions = standbyActions([decision('bert', 4, 2)], [SET], { pods, replicaSets });
    expect(actions.map(brief)).toEqual(['give-back c-b → bert', 'give-back c-c → bert']);
  });

  it("never gives back a pod claimed from another set, nor counts it as the algorithm's claim", () => {
    const other = pod('o-a', {
      'gpuops.dev/claimed-from': 'vision',
      'gpuops.dev/algorithm': 'bert',
      'app.kubernetes.io/name': 'bert',
    });
    const replicaSets = [rs('gpuops-standby-llm-bbb222', 2)];
    expect(standbyActions([decision('bert', 3, 1)], [SET], { pods: [other], replicaSets })).toEqual([]);
    const d = outstandingClaims([decision('bert', 1, 2)], [SET], [other]);
    expect(d.map((x) => `${x.replicas.from} → ${x.replicas.to}`)).toEqual(['1 → 2']);
  });

  it('a claimed pod being deleted does not count as a claim already made', () => {
    const pods = [{ ...claimed('c-a', 'bert'), terminating: true }, standby('s-a')];
    const d = outstandingClaims([decision('bert', 1, 2)], [SET], pods);
    expect(d.map((x) => `${x.replicas.from} → ${x.replicas.to}`)).toEqual(['1 → 2']);
  });
});

describe('currentStandbyHash: the newest ReplicaSet of the standby Deployment', () => {
  const hashOf = (replicaSets: ReplicaSetInfo[]) => currentStandbyHash(SET, replicaSets);
  it.each([
    [
      'the highest revision, whatever the order',
      [rs('gpuops-standby-llm-bbb222', 2), rs('gpuops-standby-llm-aaa111', 1)],
      'bbb222',
    ],
    [
      'a revision stated beats none',
      [{ ...rs('gpuops-standby-llm-nnn000', 0), revision: null }, rs('gpuops-standby-llm-aaa111', 1)],
      'aaa111',
    ],
    [
      'no revision at all: the first listed',
      [{ ...rs('gpuops-standby-llm-nnn000', 0), revision: null }],
      'nnn000',
    ],
    [
      'one of another namespace is not its',
      [rs('gpuops-standby-llm-aaa111', 1), { ...rs('gpuops-standby-llm-zzz999', 9), namespace: 'vision' }],
      'aaa111',
    ],
    [
      'one owned by another kind is not its',
      [
        rs('gpuops-standby-llm-aaa111', 1),
        { ...rs('gpuops-standby-llm-zzz999', 9), owner: { kind: 'StatefulSet', name: 'gpuops-standby-llm' } },
      ],
      'aaa111',
    ],
    [
      'a bare ReplicaSet is not its',
      [rs('gpuops-standby-llm-aaa111', 1), { ...rs('gpuops-standby-llm-zzz999', 9), owner: null }],
      'aaa111',
    ],
    ['a name not <deployment>-<hash>: none', [rs('hand-made', 3)], null],
    ['none: none', [], null],
  ] as const)('%s', (_, replicaSets, want) => {
    expect(hashOf([...replicaSets])).toBe(want);
  });
});

describe('outstandingClaims: a scale-up counts the pods the algorithm already claimed', () => {
  const pods = [claimed('c1', 'bert'), claimed('c2', 'bert'), claimed('l1', 'llama'), standby('s1')];
  const OTHER_NS = { ...claimed('x1', 'bert'), namespace: 'other' };
  it.each([
    // [decision, claims of bert, expected decisions (from → to) or none]
    ['1 → 2, no claim yet: as it is', decision('bert', 1, 2), [], '1 → 2'],
    ['1 → 2, one claim already: covered, left out', decision('bert', 1, 2), ['c1'], null],
    ['1 → 3, one claim: one more wanted', decision('bert', 1, 3), ['c1'], '2 → 3'],
    ['1 → 3, two claims: covered', decision('bert', 1, 3), ['c1', 'c2'], null],
    ['1 → 4, two claims: one more', decision('bert', 1, 4), ['c1', 'c2'], '3 → 4'],
    ['a hold with claims: as it is (never a give-back)', decision('bert', 2, 2), ['c1'], '2 → 2'],
    ['a scale-down with claims: as it is', decision('bert', 3, 2), ['c1'], '3 → 2'],
  ] as const)('%s', (_, d, names, want) => {
    const mine = pods.filter((p) => names.includes(p.name as never) || p.algorithm !== 'bert');
    const out = outstandingClaims([d], [SET], mine).map((x) => `${x.replicas.from} → ${x.replicas.to}`);
    expect(out).toEqual(want === null ? [] : [want]);
  });
  it('counts only claims of that algorithm, set and namespace; an algorithm in no set goes as it is', () => {
    const d = [decision('bert', 1, 2), decision('gpt', 1, 2)];
    expect(outstandingClaims(d, [SET], [claimed('l1', 'llama'), OTHER_NS, standby('s1')])).toEqual(d);
    expect(outstandingClaims(d, [SET], [claimed('c1', 'bert')])).toEqual([d[1]]);
    expect(outstandingClaims(d, [], [claimed('c1', 'bert')])).toEqual(d);
  });
  it('a scale-up already covered claims no standby in standbyActions', () => {
    const cluster = { pods: [claimed('c1', 'bert'), standby('s1')] };
    const d = outstandingClaims([decision('bert', 1, 2)], [SET], cluster.pods);
    expect(standbyActions(d, [SET], cluster)).toEqual([]);
    const more = outstandingClaims([decision('bert', 1, 3)], [SET], cluster.pods);
    expect(standbyActions(more, [SET], cluster).map(brief)).toEqual(['claim s1 → bert']);
  });
});
