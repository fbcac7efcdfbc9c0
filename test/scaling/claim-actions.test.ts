/**
 * The pod changes a pass's scaling decisions ask of a standby set: claims of Ready standbys on a
 * scale-up (each pod once in a pass), give-backs with the newest standby ReplicaSet's hash on a
 * scale-down, a delete when there is none; never a pod that is not Ready, being deleted, of another
 * set or namespace. A standby is known by its owner chain (Pod → ReplicaSet → the standby
 * Deployment, `controller: true` at each step), a claimed pod by the mark gpuops's claim wrote, not
 * by labels: each case beside its valid neighbour.
 */
import { describe, expect, it } from 'vitest';
import type { PodInfo, ReplicaSetInfo } from '../../src/cluster/types.js';
import {
  currentStandbyHash,
  outstandingClaims,
  standbyActions,
} from '../../src/scaling/rules/claim-actions.js';
import type { ScalingDecision } from '../../src/scaling/types.js';
import { STANDBY_SET as SET } from '../support/standby-policy.js';

/** The standby Deployment's ReplicaSets: `aaa111` (revision 1) and `bbb222` (revision 2, current). */
const rs = (
  hash: string,
  revision: number,
  o: Partial<ReplicaSetInfo> & { deployment?: string } = {},
): ReplicaSetInfo => ({
  namespace: 'algorithms',
  name: `${o.deployment ?? 'gpuops-standby-llm'}-${hash}`,
  uid: `rs-${hash}`,
  owner: { kind: 'Deployment', name: o.deployment ?? 'gpuops-standby-llm', controller: true, uid: 'd-1' },
  revision,
  replicas: 2,
  ...o,
});
const RS = [rs('aaa111', 1), rs('bbb222', 2), rs('ccc333', 3, { deployment: 'other' })];
/** The name the standby ReplicaSet gives its pods, `gpuops-standby-llm-<hash>-<suffix>`. */
const NAME = (suffix: string, hash = 'bbb222') => `gpuops-standby-llm-${hash}-${suffix}`;
/** The controller ownerReference the ReplicaSet controller writes. */
const ownedBy = (replicaSet: string, uid = `rs-${replicaSet.split('-').pop()}`): PodInfo['owner'] => ({
  kind: 'ReplicaSet',
  name: replicaSet,
  controller: true,
  uid,
});

const pod = (name: string, labels: Record<string, string>, o: Partial<PodInfo> = {}): PodInfo =>
  ({
    namespace: 'algorithms',
    name,
    uid: `uid-${name}`,
    labels,
    nodeName: 'gpu-1',
    phase: 'Running',
    ready: true,
    terminating: false,
    algorithm: labels['gpuops.dev/algorithm'] ?? null,
    owner: null,
    ...o,
  }) as PodInfo;
/** A standby of the current ReplicaSet, as the controllers make it. */
const standby = (suffix: string, o: Partial<PodInfo> = {}) =>
  pod(
    NAME(suffix),
    { 'gpuops.dev/standby': 'llm', 'pod-template-hash': 'bbb222' },
    { owner: ownedBy('gpuops-standby-llm-bbb222'), ...o },
  );
/** A pod gpuops claimed from the set for `alg` (released: no owner; marked with its own uid). */
const claimed = (suffix: string, alg: string, o: Partial<PodInfo> = {}) => {
  const name = NAME(suffix, 'aaa111');
  return pod(
    name,
    { 'gpuops.dev/claimed-from': 'llm', 'gpuops.dev/algorithm': alg, 'app.kubernetes.io/name': alg },
    { claimedUid: `uid-${name}`, ...o },
  );
};
const decision = (algorithm: string, from: number, to: number): ScalingDecision => ({
  algorithm,
  action: to > from ? 'scale-up' : to < from ? 'scale-down' : 'hold',
  replicas: { from, to },
  utilization: 50,
  nodes: [],
  reason: 'AboveMax',
  message: '',
});

const brief = (a: { kind: string; algorithm: string; pod: string }) =>
  `${a.kind} ${a.pod.replace(/^gpuops-standby-llm-\w+-/, '')} → ${a.algorithm}`;

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
      standby('s-g', { labels: { 'gpuops.dev/standby': 'other' } }),
    ];
    const actions = standbyActions(decisions, [SET], { pods, replicaSets: RS });
    expect(actions.map(brief)).toEqual(expected);
    for (const a of actions) {
      expect(a.expect).toEqual({ 'gpuops.dev/standby': 'llm' });
      expect(a.uid).toBe(`uid-${a.pod}`);
      expect(a.annotations).toEqual({ 'gpuops.dev/claimed-uid': a.uid });
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
    const actions = standbyActions([decision('bert', from, to)], [SET], { pods, replicaSets: RS });
    expect(actions.map(brief)).toEqual(expected);
    for (const a of actions) {
      expect(a.labels).toMatchObject({
        'pod-template-hash': 'bbb222',
        'gpuops.dev/standby': 'llm',
        'gpuops.dev/algorithm': null,
      });
      expect(a.annotations).toEqual({ 'gpuops.dev/claimed-uid': null });
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
    const actions = standbyActions([decision('bert', 1, 3)], [SET], { pods, replicaSets: RS });
    expect(actions.map(brief)).toEqual(['claim s-a → bert', 'claim s-b → bert']);
  });

  it('never claims a standby that is not Running, even with a stale Ready condition', () => {
    const pods = [standby('s-a', { phase: 'Failed' }), standby('s-b', { phase: 'Pending' }), standby('s-c')];
    const actions = standbyActions([decision('bert', 1, 3)], [SET], { pods, replicaSets: RS });
    expect(actions.map(brief)).toEqual(['claim s-c → bert']);
  });

  it('gives back claimed pods by name and never one being deleted', () => {
    const pods = [
      claimed('c-c', 'bert'),
      { ...claimed('c-a', 'bert'), terminating: true },
      claimed('c-b', 'bert'),
      claimed('c-d', 'bert'),
    ];
    const replicaSets = RS;
    const actions = standbyActions([decision('bert', 4, 2)], [SET], { pods, replicaSets });
    expect(actions.map(brief)).toEqual(['give-back c-b → bert', 'give-back c-c → bert']);
  });

  it("never gives back a pod claimed from another set, nor counts it as the algorithm's claim", () => {
    const other = pod('o-a', {
      'gpuops.dev/claimed-from': 'vision',
      'gpuops.dev/algorithm': 'bert',
      'app.kubernetes.io/name': 'bert',
    });
    const replicaSets = RS;
    expect(standbyActions([decision('bert', 3, 1)], [SET], { pods: [other], replicaSets })).toEqual([]);
    const d = outstandingClaims([decision('bert', 1, 2)], [SET], { pods: [other], replicaSets: RS });
    expect(d.map((x) => `${x.replicas.from} → ${x.replicas.to}`)).toEqual(['1 → 2']);
  });

  it('a claimed pod being deleted does not count as a claim already made', () => {
    const pods = [{ ...claimed('c-a', 'bert'), terminating: true }, standby('s-a')];
    const d = outstandingClaims([decision('bert', 1, 2)], [SET], { pods, replicaSets: RS });
    expect(d.map((x) => `${x.replicas.from} → ${x.replicas.to}`)).toEqual(['1 → 2']);
  });
});

describe('currentStandbyHash: the newest ReplicaSet of the standby Deployment', () => {
  const hashOf = (replicaSets: ReplicaSetInfo[]) => currentStandbyHash(SET, replicaSets);
  it.each([
    ['the highest revision, whatever the order', [rs('bbb222', 2), rs('aaa111', 1)], 'bbb222'],
    ['a revision stated beats none', [{ ...rs('nnn000', 0), revision: null }, rs('aaa111', 1)], 'aaa111'],
    ['no revision at all: the first listed', [{ ...rs('nnn000', 0), revision: null }], 'nnn000'],
    [
      'one of another namespace is not its',
      [rs('aaa111', 1), { ...rs('zzz999', 9), namespace: 'vision' }],
      'aaa111',
    ],
    [
      'one owned by another kind is not its',
      [
        rs('aaa111', 1),
        {
          ...rs('zzz999', 9),
          owner: { kind: 'StatefulSet', name: 'gpuops-standby-llm', controller: true, uid: 'd-1' },
        },
      ],
      'aaa111',
    ],
    ['a bare ReplicaSet is not its', [rs('aaa111', 1), { ...rs('zzz999', 9), owner: null }], 'aaa111'],
    ['a name not <deployment>-<hash>: none', [{ ...rs('x', 3), name: 'hand-made' }], null],
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
    const mine = pods.filter((p) => names.some((n) => p.name.endsWith(`-${n}`)) || p.algorithm !== 'bert');
    const out = outstandingClaims([d], [SET], { pods: mine, replicaSets: RS }).map(
      (x) => `${x.replicas.from} → ${x.replicas.to}`,
    );
    expect(out).toEqual(want === null ? [] : [want]);
  });
  it.each([
    // [case, decision, claims of bert, maxReplicas, expected (from → to) or none]
    ['1 → 4, max 7: room for all 3 (Git 4 + 3 claims = 7)', decision('bert', 1, 4), [], 7, '1 → 4'],
    ['1 → 4, max 6: Git 4 + 2 claims = 6', decision('bert', 1, 4), [], 6, '1 → 3'],
    ['1 → 4, max 5: Git 4 + claims ≤ 5, one claim', decision('bert', 1, 4), [], 5, '1 → 2'],
    ['1 → 4, max 4: at the max, no claim', decision('bert', 1, 4), [], 4, null],
    ['1 → 4, max 6, one claim: Git 4 + 1 + 1 more ≤ 6', decision('bert', 1, 4), ['c1'], 6, '2 → 3'],
    ['1 → 4, max 5, one claim: 4 + 1 = 5, no more', decision('bert', 1, 4), ['c1'], 5, null],
  ] as const)('capped at maxReplicas: %s', (_, d, names, max, want) => {
    const mine = pods.filter((p) => names.some((n) => p.name.endsWith(`-${n}`)) || p.algorithm !== 'bert');
    const out = outstandingClaims([d], [SET], { pods: mine, replicaSets: RS }, new Map([['bert', max]]));
    expect(out.map((x) => `${x.replicas.from} → ${x.replicas.to}`)).toEqual(want === null ? [] : [want]);
  });
  it('counts only claims of that algorithm, set and namespace; an algorithm in no set goes as it is', () => {
    const d = [decision('bert', 1, 2), decision('gpt', 1, 2)];
    const at = (pods: PodInfo[]) => ({ pods, replicaSets: RS });
    expect(outstandingClaims(d, [SET], at([claimed('l1', 'llama'), OTHER_NS, standby('s1')]))).toEqual(d);
    expect(outstandingClaims(d, [SET], at([claimed('c1', 'bert')]))).toEqual([d[1]]);
    expect(outstandingClaims(d, [], at([claimed('c1', 'bert')]))).toEqual(d);
  });
  it('a scale-up already covered claims no standby in standbyActions', () => {
    const cluster = { pods: [claimed('c1', 'bert'), standby('s1')], replicaSets: RS };
    const d = outstandingClaims([decision('bert', 1, 2)], [SET], cluster);
    expect(standbyActions(d, [SET], cluster)).toEqual([]);
    const more = outstandingClaims([decision('bert', 1, 3)], [SET], cluster);
    expect(standbyActions(more, [SET], cluster).map(brief)).toEqual(['claim s1 → bert']);
  });
});

describe('a standby is known by its owner chain, not its label', () => {
  const other = { namespace: 'vision' };
  it.each<[string, Partial<PodInfo>, ReplicaSetInfo[], boolean]>([
    ['controlled by the current standby ReplicaSet: claimed', {}, RS, true],
    ['controlled by the older standby ReplicaSet: claimed', { owner: ownedBy(RS[0]!.name) }, RS, true],
    ['no owner (a pod made by hand with the label): not', { owner: null }, RS, false],
    [
      'controller: false on the pod: not',
      { owner: { ...ownedBy(RS[1]!.name)!, controller: false } },
      RS,
      false,
    ],
    ['no controller flag (unknown): not', { owner: { kind: 'ReplicaSet', name: RS[1]!.name } }, RS, false],
    [
      'owned by a Job, not a ReplicaSet: not',
      { owner: { ...ownedBy(RS[1]!.name)!, kind: 'Job' } },
      RS,
      false,
    ],
    ['the ReplicaSet of another Deployment: not', { owner: ownedBy(RS[2]!.name) }, RS, false],
    [
      'a ReplicaSet of the right name, but only in another namespace: not',
      { owner: ownedBy('gpuops-standby-llm-vvv999') },
      [...RS, rs('vvv999', 4, other)],
      false,
    ],
    [
      'in another namespace, its chain there complete: not (the set lives in algorithms)',
      { namespace: 'vision', owner: ownedBy('gpuops-standby-llm-vvv999') },
      [...RS, rs('vvv999', 4, other)],
      false,
    ],
    [
      'a ReplicaSet whose Deployment reference is not controller: not',
      { owner: ownedBy('gpuops-standby-llm-eee555') },
      [...RS, rs('eee555', 5, { owner: { kind: 'Deployment', name: 'gpuops-standby-llm', uid: 'd-1' } })],
      false,
    ],
    [
      'a bare ReplicaSet of the standby name (no owner): not',
      { owner: ownedBy('gpuops-standby-llm-fff666') },
      [...RS, rs('fff666', 6, { owner: null })],
      false,
    ],
    [
      'a ReplicaSet owned by a Deployment of another name: not',
      { owner: ownedBy('gpuops-standby-llm-ggg777') },
      [
        ...RS,
        rs('ggg777', 7, { owner: { kind: 'Deployment', name: 'gpuops-standby-llm2', controller: true } }),
      ],
      false,
    ],
    [
      'the right ReplicaSet by name, another uid (a reference to a deleted one): not',
      { owner: ownedBy(RS[1]!.name, 'rs-gone') },
      RS,
      false,
    ],
    ['no ReplicaSet read (a stored snapshot): not', {}, [], false],
  ])('%s', (_, o, replicaSets, want) => {
    const actions = standbyActions([decision('bert', 1, 2)], [SET], {
      pods: [standby('s-a', o)],
      replicaSets,
    });
    expect(actions.map(brief)).toEqual(want ? ['claim s-a → bert'] : []);
  });
});

describe('a claimed pod is one gpuops claimed: its labels, its own uid as the claim mark, the standby name', () => {
  it.each<[string, Partial<PodInfo>, boolean]>([
    ['released, marked with its uid: given back', {}, true],
    [
      'still controlled by the standby ReplicaSet (before the release): given back',
      { owner: ownedBy(RS[0]!.name) },
      true,
    ],
    ['no claim mark (labels set by hand): left alone', { claimedUid: undefined }, false],
    [
      'the mark of another pod (a copy of a claimed pod): left alone',
      { claimedUid: 'uid-someone-else' },
      false,
    ],
    ['an empty uid: left alone', { uid: '', claimedUid: '' }, false],
    [
      'not named by the standby ReplicaSet: left alone',
      { name: 'bert-by-hand', uid: 'u1', claimedUid: 'u1' },
      false,
    ],
    [
      'named as another set (gpuops-standby-llm2-…): left alone',
      { name: 'gpuops-standby-llm2-hhh-x', uid: 'u2', claimedUid: 'u2' },
      false,
    ],
    [
      "controlled by another ReplicaSet (e.g. bert's own): left alone",
      { owner: ownedBy(RS[2]!.name) },
      false,
    ],
    ['in another namespace: left alone', { namespace: 'vision' }, false],
  ])('%s', (_, o, want) => {
    const p = claimed('c-a', 'bert', o);
    const actions = standbyActions([decision('bert', 2, 1)], [SET], { pods: [p], replicaSets: RS });
    expect(actions.map((a) => a.kind)).toEqual(want ? ['give-back'] : []);
    // Counted against a scale-up only when it is gpuops's claim.
    expect(outstandingClaims([decision('bert', 1, 2)], [SET], { pods: [p], replicaSets: RS })).toHaveLength(
      want ? 0 : 1,
    );
    // With no standby ReplicaSet to give back to, deleted only when it is gpuops's claim.
    const gone = standbyActions([decision('bert', 2, 1)], [SET], { pods: [p], replicaSets: [] });
    expect(gone.map((a) => a.kind)).toEqual(want && !o.owner ? ['delete'] : []);
  });
});
