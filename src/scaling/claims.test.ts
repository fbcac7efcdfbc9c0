import { describe, expect, it } from 'vitest';
import { baseInput, node, pod } from '../../test/scaling/support.js';
import { claimsOf, place } from './claims.js';
import type { NodeCapacity, ScalingDecision } from './types.js';

const ONE_GPU = { gpus: 1, cpuMillis: 0, memoryBytes: 0 };
const claimed = (claims: ReturnType<typeof place>) => claims.map((c) => `${c.node}×${c.pods}`);

describe('place: most free GPUs first, ties by name', () => {
  it.each<[string, NodeCapacity[], number, string[]]>([
    ['ATieGoesToTheFirstName', [node('a', 'long-task', 2), node('b', 'long-task', 2)], 1, ['a×1']],
    ['ATieGoesToTheFirstNameInAnyOrder', [node('b', 'long-task', 2), node('a', 'long-task', 2)], 1, ['a×1']],
    [
      'MostFreeFirstUntilItIsNoLonger',
      [node('a', 'long-task', 1), node('b', 'long-task', 3)],
      3,
      ['b×2', 'a×1'],
    ],
    ['WhatFitsNowhereClaimsNothing', [node('a', 'long-task', 1)], 3, ['a×1']],
  ])('%s', (_name, nodes, count, want) => {
    expect(claimed(place(nodes, ONE_GPU, count))).toEqual(want);
  });
});

describe('claimsOf: the unbound replicas and surge pods of a decision take room', () => {
  const hold = { action: 'hold', replicas: { from: 2, to: 2 }, nodes: [] } as unknown as ScalingDecision;
  it.each<[string, ReturnType<typeof pod>[], string[]]>([
    ['AllBoundClaimNothing', [pod('p0', { nodeName: 'lt-1' }), pod('p1', { nodeName: 'lt-1' })], []],
    [
      // The surge pod not bound yet takes a GPU when it gets one; the bound one already holds its own.
      'AnUnboundSurgePodClaimsABoundOneDoesNot',
      [
        pod('p0', { nodeName: 'lt-1' }),
        pod('p1', { nodeName: 'lt-1' }),
        pod('s0', { nodeName: null, ready: false, phase: 'Pending' }),
        pod('s1', { nodeName: 'lt-1', ready: false }),
      ],
      ['lt-1×1'],
    ],
    [
      'AnUnboundReplicaClaims',
      [pod('p0', { nodeName: 'lt-1' }), pod('p1', { nodeName: null, ready: false })],
      ['lt-1×1'],
    ],
  ])('%s', (_name, pods, want) => {
    const input = { ...baseInput([]), replicas: 2, pods, poolNodes: [node('lt-1', 'long-task', 4)] };
    expect(claimed(claimsOf(input, hold))).toEqual(want);
  });
});
