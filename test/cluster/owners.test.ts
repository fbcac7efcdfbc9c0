/**
 * `ownerIndex`: a pod's Deployment by its owner chain (Pod → ReplicaSet → Deployment), with the
 * Deployment controller's naming when ReplicaSets were not read; and each Deployment's current
 * ReplicaSet (its newest revision).
 */
import { describe, expect, it } from 'vitest';
import { ownerIndex } from '../../src/cluster/owners.js';
import type { PodInfo, ReplicaSetInfo } from '../../src/cluster/types.js';

type PodOwner = Pick<PodInfo, 'namespace' | 'owner' | 'labels'>;
const pod = (
  owner: PodInfo['owner'],
  labels: Record<string, string> = {},
  namespace = 'algorithms',
): PodOwner => ({
  namespace,
  owner,
  labels,
});
const rs = (
  name: string,
  deployment: string | null,
  revision: number | null = 1,
  namespace = 'algorithms',
): ReplicaSetInfo => ({
  namespace,
  name,
  owner: deployment ? { kind: 'Deployment', name: deployment } : null,
  revision,
  replicas: 1,
});
const RS = (name: string) => ({ kind: 'ReplicaSet', name });

describe('deploymentOf', () => {
  const read = ownerIndex([
    rs('resnet50-infer-7d9f6c5b8', 'resnet50-infer'),
    rs('resnet50-infer-shadow-5c4d8', 'resnet50-infer-shadow'),
    rs('resnet50-infer-a1b2c', 'copy-of-resnet'), // named like resnet's, owned by another
    rs('bare-rs', null),
  ]);
  const named = ownerIndex(undefined);

  it.each<[string, ReturnType<typeof ownerIndex>, PodOwner, string | null]>([
    ['its ReplicaSet’s Deployment', read, pod(RS('resnet50-infer-7d9f6c5b8')), 'resnet50-infer'],
    [
      'a shadow Deployment’s pod is the shadow’s',
      read,
      pod(RS('resnet50-infer-shadow-5c4d8')),
      'resnet50-infer-shadow',
    ],
    ['the ReplicaSet’s owner wins over its name', read, pod(RS('resnet50-infer-a1b2c')), 'copy-of-resnet'],
    ['a bare ReplicaSet makes it nobody’s', read, pod(RS('bare-rs')), null],
    [
      'the same name in another namespace is not that ReplicaSet (naming gives it)',
      read,
      pod(RS('bare-rs'), {}, 'other'),
      'bare',
    ],
    [
      'a ReplicaSet not read: by the Deployment controller’s naming',
      read,
      pod(RS('late-deploy-9f8e7')),
      'late-deploy',
    ],
    [
      'a Job’s pod is no Deployment’s',
      read,
      pod({ kind: 'Job', name: 'gpuops-bench-resnet50-infer-1' }),
      null,
    ],
    ['a bare pod is no Deployment’s', read, pod(null), null],
    [
      'no ReplicaSets read: the name less -<pod-template-hash>',
      named,
      pod(RS('resnet50-infer-7d9f6c5b8'), { 'pod-template-hash': '7d9f6c5b8' }),
      'resnet50-infer',
    ],
    [
      'no ReplicaSets read: a shadow stays the shadow’s',
      named,
      pod(RS('resnet50-infer-shadow-5c4d8'), { 'pod-template-hash': '5c4d8' }),
      'resnet50-infer-shadow',
    ],
    [
      'no ReplicaSets read, no hash label: the part before the last dash',
      named,
      pod(RS('resnet50-infer-7d9f')),
      'resnet50-infer',
    ],
    [
      'no ReplicaSets read, a hash label the name does not end with: nobody’s',
      named,
      pod(RS('resnet50-infer-7d9f'), { 'pod-template-hash': 'zzz' }),
      null,
    ],
    ['no ReplicaSets read, a name without a dash: nobody’s', named, pod(RS('plain')), null],
  ])('%s', (_name, index, p, want) => {
    expect(index.deploymentOf(p)).toBe(want);
  });
});

describe('currentReplicaSet: the newest revision of the Deployment', () => {
  it.each<[string, ReplicaSetInfo[], string | null]>([
    ['the higher revision', [rs('a-1', 'a', 1), rs('a-2', 'a', 2)], 'a-2'],
    ['whatever the order', [rs('a-2', 'a', 2), rs('a-1', 'a', 1)], 'a-2'],
    ['a revision beats none', [rs('a-x', 'a', null), rs('a-1', 'a', 1)], 'a-1'],
    ['another Deployment’s ReplicaSet is not it', [rs('b-9', 'b', 9)], null],
    ['another namespace’s is not it', [rs('a-9', 'a', 9, 'other')], null],
  ])('%s', (_name, sets, want) => {
    expect(ownerIndex(sets).currentReplicaSet('algorithms', 'a')).toBe(want);
  });

  it('without ReplicaSets there is no current one', () => {
    expect(ownerIndex(undefined).currentReplicaSet('algorithms', 'a')).toBeNull();
  });
});
