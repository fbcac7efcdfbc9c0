import { describe, expect, it } from 'vitest';
import type { PodInfo } from '../cluster/types.js';
import { pod } from '../../test/scaling/support.js';
import { countedPods, surgePods } from './counted-pods.js';

const at = (name: string, rs: string, createdAt: string, o: Partial<PodInfo> = {}) =>
  pod(name, { rs, createdAt, ...o });
const names = (pods: PodInfo[]) => pods.map((p) => p.name);

describe('countedPods and surgePods: which live pods are the replicas', () => {
  it.each<[string, PodInfo[], number, string | null, string[], string[]]>([
    [
      'ReadyFirst',
      [at('a', 'rs1', '2025-01-01T00:00:00Z', { ready: false }), at('b', 'rs1', '2025-01-02T00:00:00Z')],
      1,
      'rs1',
      ['b'],
      ['a'],
    ],
    [
      'ThenTheCurrentReplicaSets',
      [at('old', 'rs1', '2025-01-01T00:00:00Z'), at('new', 'rs2', '2025-01-02T00:00:00Z')],
      1,
      'rs2',
      ['new'],
      ['old'],
    ],
    [
      // Not told: the owner of the newest pod is the current ReplicaSet.
      'TheNewestPodsReplicaSetWhenNotTold',
      [
        at('n2', 'rs2', '2025-01-03T00:00:00Z'),
        at('o1', 'rs1', '2025-01-01T00:00:00Z'),
        at('n1', 'rs2', '2025-01-02T00:00:00Z'),
      ],
      2,
      null,
      ['n1', 'n2'],
      ['o1'],
    ],
    [
      // Two pods created at the same instant: the first seen stays the newest.
      'ATieForNewestKeepsTheFirst',
      [at('x', 'rs1', '2025-01-02T00:00:00Z'), at('y', 'rs2', '2025-01-02T00:00:00Z')],
      1,
      null,
      ['x'],
      ['y'],
    ],
    [
      'ThenOldestFirst',
      [at('late', 'rs1', '2025-01-02T00:00:00Z'), at('early', 'rs1', '2025-01-01T00:00:00Z')],
      1,
      'rs1',
      ['early'],
      ['late'],
    ],
    [
      'ThenByName',
      [
        at('c', 'rs1', '2025-01-01T00:00:00Z'),
        at('a', 'rs1', '2025-01-01T00:00:00Z'),
        at('b', 'rs1', '2025-01-01T00:00:00Z'),
      ],
      2,
      'rs1',
      ['a', 'b'],
      ['c'],
    ],
    [
      'NoReplicaSetOwnerNoCurrent',
      [
        at('b', 'rs1', '2025-01-01T00:00:00Z', { owner: null }),
        at('a', 'rs1', '2025-01-02T00:00:00Z', { owner: null }),
      ],
      1,
      null,
      ['b'],
      ['a'],
    ],
    [
      'TerminatingAndFinishedPodsAreNeither',
      [
        at('gone', 'rs1', '2025-01-01T00:00:00Z', { terminating: true }),
        at('done', 'rs1', '2025-01-01T00:00:00Z', { phase: 'Succeeded' }),
        at('dead', 'rs1', '2025-01-01T00:00:00Z', { phase: 'Failed' }),
        at('live', 'rs1', '2025-01-01T00:00:00Z'),
      ],
      2,
      'rs1',
      ['live'],
      [],
    ],
    ['NegativeReplicasCountsNone', [at('a', 'rs1', '2025-01-01T00:00:00Z')], -1, 'rs1', [], ['a']],
  ])('%s', (_name, pods, replicas, current, counted, surge) => {
    expect(names(countedPods(pods, replicas, current))).toEqual(counted);
    expect(names(surgePods(pods, replicas, current))).toEqual(surge);
  });
});
