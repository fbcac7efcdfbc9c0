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
  claimedByAlgorithm,
  currentStandbyHash,
  planStandby,
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
    expect(claimedByAlgorithm([SET], { pods: [other], replicaSets: RS }).get('bert')).toBeUndefined();
  });

  it('a claimed pod being deleted is no replica of its algorithm', () => {
    const pods = [{ ...claimed('c-a', 'bert'), terminating: true }, claimed('c-b', 'bert'), standby('s-a')];
    const mine = claimedByAlgorithm([SET], { pods, replicaSets: RS }).get('bert') ?? [];
    expect(mine.map((p) => p.name)).toEqual([NAME('c-b', 'aaa111')]);
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

describe("planStandby: the Deployment's part of a decision whose `from` counts the claimed pods", () => {
  const at = (pods: PodInfo[]) => ({ pods, replicaSets: RS });
  it.each([
    // [case, decision (from counts the claims), claims of bert, Ready standbys, split: claimed claim giveBack deployment]
    ['up 1 → 2, two Ready: one claim, Deployment +0', decision('bert', 1, 2), 0, 2, [0, 1, 0, 0]],
    ['up 1 → 4, two Ready: two claims, Deployment +1', decision('bert', 1, 4), 0, 2, [0, 2, 0, 1]],
    ['up 1 → 3, none Ready: Deployment +2', decision('bert', 1, 3), 0, 0, [0, 0, 0, 2]],
    ['up 2 → 3 with one claimed, one Ready: one claim', decision('bert', 2, 3), 1, 1, [1, 1, 0, 0]],
    ['a hold with claims: nothing moves', decision('bert', 3, 3), 2, 2, [2, 0, 0, 0]],
    ['down 3 → 2 with one claimed: it goes back, Deployment +0', decision('bert', 3, 2), 1, 0, [1, 0, 1, 0]],
    ['down 4 → 1 with two claimed: both back, Deployment −1', decision('bert', 4, 1), 2, 2, [2, 0, 2, -1]],
    ['down 3 → 2, none claimed: Deployment −1', decision('bert', 3, 2), 0, 1, [0, 0, 0, -1]],
  ] as const)('%s', (_, d, claims, ready, [claimed_, claim, giveBack, deployment]) => {
    const pods = [
      ...['c1', 'c2'].slice(0, claims).map((n) => claimed(n, 'bert')),
      ...['s1', 's2'].slice(0, ready).map((n) => standby(n)),
    ];
    const plan = planStandby([d], [SET], at(pods));
    expect(plan.decisions[0]!.standby).toEqual({
      set: 'llm',
      claimed: claimed_,
      claim,
      giveBack,
      deployment,
    });
    expect(plan.actions.filter((a) => a.kind === 'claim')).toHaveLength(claim);
    expect(plan.actions.filter((a) => a.kind === 'give-back')).toHaveLength(giveBack);
    // Git's replicas (from − claimed + deployment) plus the claimed pods left are the decision's `to`.
    expect(d.replicas.from - claimed_ + deployment + claimed_ + claim - giveBack).toBe(d.replicas.to);
  });
  it('counts the claimed pods it is given (the ones `from` counted), not every one the cluster shows', () => {
    const cluster = at([claimed('c1', 'bert'), standby('s1')]);
    const plan = planStandby([decision('bert', 2, 1)], [SET], cluster, new Map([['bert', []]]));
    expect(plan.decisions[0]!.standby).toEqual({
      set: 'llm',
      claimed: 0,
      claim: 0,
      giveBack: 0,
      deployment: -1,
    });
    expect(plan.actions).toEqual([]);
  });
  it("an algorithm in no set goes as it is; claims of llama or another namespace are not bert's", () => {
    const d = [decision('bert', 1, 2), decision('gpt', 1, 2)];
    const OTHER_NS = { ...claimed('x1', 'bert'), namespace: 'other' };
    const plan = planStandby(d, [SET], at([claimed('l1', 'llama'), OTHER_NS, standby('s1')]));
    expect(plan.decisions[0]!.standby).toEqual({
      set: 'llm',
      claimed: 0,
      claim: 1,
      giveBack: 0,
      deployment: 0,
    });
    expect(plan.decisions[1]).toBe(d[1]);
    expect(planStandby(d, [], at([claimed('c1', 'bert')])).decisions).toEqual(d);
    expect([...claimedByAlgorithm([SET], at([claimed('l1', 'llama'), OTHER_NS])).keys()]).toEqual(['llama']);
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
    // A replica of bert only when it is gpuops's claim.
    expect(claimedByAlgorithm([SET], { pods: [p], replicaSets: RS }).get('bert')?.length ?? 0).toBe(
      want ? 1 : 0,
    );
    // With no standby ReplicaSet to give back to, deleted only when it is gpuops's claim.
    const gone = standbyActions([decision('bert', 2, 1)], [SET], { pods: [p], replicaSets: [] });
    expect(gone.map((a) => a.kind)).toEqual(want && !o.owner ? ['delete'] : []);
  });
});
