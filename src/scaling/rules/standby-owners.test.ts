/**
 * Which pods are a standby set's, row by row: a standby by its owner chain (pod → ReplicaSet →
 * Deployment `gpuops-standby-<set>`, each reference a controller one, in the set's namespace), a
 * claimed pod by the marks the claim wrote (label, its own uid, the generated name) — never by a
 * label alone.
 */
import { describe, expect, it } from 'vitest';
import type { PodInfo, ReplicaSetInfo } from '../../cluster/index.js';
import type { StandbySet } from '../../definitions/index.js';
import { pod } from '../../../test/scaling/support.js';
import { isClaimedPod, isStandbyPod, standbyReplicaSets } from './standby-owners.js';

const SET = { name: 'llm', namespace: 'serving' } as StandbySet;

function rs(o: Partial<ReplicaSetInfo> & { name: string }): ReplicaSetInfo {
  return {
    namespace: 'serving',
    uid: `uid-${o.name}`,
    owner: { kind: 'Deployment', name: 'gpuops-standby-llm', controller: true },
    revision: 1,
    replicas: 1,
    ...o,
  };
}

const MINE = rs({ name: 'gpuops-standby-llm-5c8d' });

/** A pod of the standby ReplicaSet `MINE` unless told. */
function standby(o: Partial<PodInfo> = {}): PodInfo {
  return pod('gpuops-standby-llm-5c8d-x7k2q', {
    namespace: 'serving',
    uid: 'pod-uid-1',
    owner: { kind: 'ReplicaSet', name: MINE.name, controller: true, uid: MINE.uid },
    ...o,
  });
}

/** A pod as the claim leaves it: relabelled, its own uid annotated, released by the ReplicaSet. */
function claimed(o: Partial<PodInfo> = {}): PodInfo {
  return standby({
    labels: { 'gpuops.dev/claimed-from': 'llm' },
    claimedUid: 'pod-uid-1',
    owner: undefined as never,
    ...o,
  });
}

describe('standbyReplicaSets', () => {
  it.each<[string, Partial<ReplicaSetInfo>, boolean]>([
    ['controlled by the set’s Deployment', {}, true],
    ['in another namespace', { namespace: 'other' }, false],
    [
      'owned by a StatefulSet of that name',
      { owner: { kind: 'StatefulSet', name: 'gpuops-standby-llm', controller: true } },
      false,
    ],
    ['owned, not controlled', { owner: { kind: 'Deployment', name: 'gpuops-standby-llm' } }, false],
    [
      'controller: false',
      { owner: { kind: 'Deployment', name: 'gpuops-standby-llm', controller: false } },
      false,
    ],
    [
      'of another set’s Deployment',
      { owner: { kind: 'Deployment', name: 'gpuops-standby-llm2', controller: true } },
      false,
    ],
    ['bare (no owner)', { owner: null }, false],
  ])('%s: %s', (_, change, want) => {
    const r = rs({ name: 'gpuops-standby-llm-5c8d', ...change });
    expect(standbyReplicaSets(SET, [r, rs({ name: 'x', owner: null })])).toEqual(want ? [r] : []);
  });
});

describe('isStandbyPod', () => {
  it.each<[string, Partial<PodInfo>, readonly ReplicaSetInfo[], boolean]>([
    ['controlled by the standby ReplicaSet', {}, [MINE], true],
    ['its ReplicaSet not listed', {}, [], false],
    ['its ReplicaSet not the set’s', {}, [{ ...MINE, owner: null }], false],
    ['in another namespace', { namespace: 'other' }, [MINE, { ...MINE, namespace: 'other' }], false],
    ['the ReplicaSet of that name in another namespace', {}, [{ ...MINE, namespace: 'other' }], false],
    [
      'owned by a Job of that name',
      { owner: { kind: 'Job', name: MINE.name, controller: true } },
      [MINE],
      false,
    ],
    ['owned, not controlled', { owner: { kind: 'ReplicaSet', name: MINE.name } }, [MINE], false],
    ['no owner', { owner: undefined as never }, [MINE], false],
    [
      'another ReplicaSet’s name',
      { owner: { kind: 'ReplicaSet', name: 'gpuops-standby-llm-9f9f', controller: true } },
      [MINE],
      false,
    ],
    [
      'another uid (a ReplicaSet made again under the name)',
      { owner: { kind: 'ReplicaSet', name: MINE.name, controller: true, uid: 'old' } },
      [MINE],
      false,
    ],
    [
      'no uid on the reference',
      { owner: { kind: 'ReplicaSet', name: MINE.name, controller: true } },
      [MINE],
      true,
    ],
    ['no uid on the ReplicaSet (a hand-written dump)', {}, [{ ...MINE, uid: undefined }], true],
  ])('%s', (_, change, replicaSets, want) => {
    expect(isStandbyPod(SET, standby(change), replicaSets)).toBe(want);
  });
});

describe('isClaimedPod', () => {
  it.each<[string, Partial<PodInfo>, boolean]>([
    ['released, with every mark of the claim', {}, true],
    ['still controlled by the standby ReplicaSet (before the release)', { owner: standby().owner }, true],
    [
      'controlled by another ReplicaSet',
      { owner: { kind: 'ReplicaSet', name: 'serve-7d9f', controller: true } },
      false,
    ],
    [
      'owned but not controlled by another',
      { owner: { kind: 'ReplicaSet', name: 'serve-7d9f', controller: false } },
      true,
    ],
    ['in another namespace', { namespace: 'other' }, false],
    ['claimed from another set', { labels: { 'gpuops.dev/claimed-from': 'llm2' } }, false],
    ['without the label', { labels: {} }, false],
    ['another uid annotated (copied from another pod)', { claimedUid: 'pod-uid-0' }, false],
    ['no uid annotated', { claimedUid: undefined }, false],
    ['no uid read, none annotated', { uid: '', claimedUid: '' }, false],
    ['named otherwise', { name: 'serve-7d9f-x7k2q' }, false],
    ['named as the Deployment itself, no suffix', { name: 'gpuops-standby-llm' }, false],
    ['named as another set’s pods', { name: 'gpuops-standby-llm2-5c8d-x7k2q' }, false],
  ])('%s', (_, change, want) => {
    expect(isClaimedPod(SET, claimed(change), [MINE])).toBe(want);
  });
});
