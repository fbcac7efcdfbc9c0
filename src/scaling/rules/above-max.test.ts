import { describe, expect, it } from 'vitest';
import type { ScalingInput } from '../types.js';
import { algorithm, baseInput, brief, factsOf, node, pod } from '../../../test/scaling/support.js';
import { atMaxReplicas, scaleUpOnCapacity } from './above-max.js';

const unbound = (name: string) =>
  pod(name, { nodeName: null, ready: false, phase: 'Pending', unschedulable: true });
/** Three Ready pods at 95 %, room for `room` pods of 1 GPU in the pool. */
const hot = (room: number, o: Partial<ScalingInput> = {}): ScalingInput => ({
  ...baseInput([95, 95, 95]),
  poolNodes: [node('lt-1', 'long-task', room)],
  ...o,
});

describe('atMaxReplicas', () => {
  it.each<[number, string]>([
    [3, 'hold AtMaxReplicas 3'],
    [4, 'null'],
  ])('maxReplicas %s with 3 replicas → %s', (maxReplicas, want) => {
    expect(brief(atMaxReplicas(factsOf({ ...hot(1), algorithm: algorithm({ maxReplicas }) })))).toBe(want);
  });
  it('says the limit', () => {
    expect(atMaxReplicas(factsOf({ ...hot(1), algorithm: algorithm({ maxReplicas: 3 }) }))?.message).toBe(
      'utilisation 95% over 3 of 3 Ready pod(s) > max 80%, but replicas 3 are at maxReplicas 3',
    );
  });
});

describe('scaleUpOnCapacity: free GPUs of the pool, else unused nodes', () => {
  it.each<[string, ScalingInput, number, string]>([
    ['ExactlyOneSlotScalesUp', hot(1), 4, 'scale-up AboveMax 4'],
    ['NoSlotMovesANode', hot(0), 4, 'relabel RelabelUnusedNode 4'],
    ['BoundedByTheSlots', hot(2), 6, 'scale-up AboveMax 5'],
    [
      // Four replicas, one not bound: room for one is taken by it, so nodes move for both.
      'AnUnboundReplicaTakesTheRoomFirst',
      hot(1, { replicas: 4, pods: [...baseInput([95, 95, 95]).pods, unbound('u0')] }),
      5,
      'relabel RelabelUnusedNode 5',
    ],
    [
      // The moved node holds one pod: it goes to the unbound replica; nothing is added.
      'AMovedNodeFirstHoldsTheUnbound',
      hot(0, {
        replicas: 4,
        pods: [...baseInput([95, 95, 95]).pods, unbound('u0')],
        unusedNodes: [node('u', 'unused', 1)],
      }),
      5,
      'relabel RelabelUnusedNode 4',
    ],
  ])('%s', (_name, input, to, want) => {
    expect(brief(scaleUpOnCapacity(factsOf(input), to))).toBe(want);
  });

  it.each<[string, ScalingInput, number, string]>([
    [
      'Room',
      hot(1),
      4,
      'utilisation 95% over 3 of 3 Ready pod(s) > max 80%; scaling 3 → 4 on pool long-task',
    ],
    [
      'Bounded',
      hot(2),
      6,
      'utilisation 95% over 3 of 3 Ready pod(s) > max 80%; scaling 3 → 5 on pool long-task (bounded by free GPUs: room for 2 more pod(s) of 1 GPU(s))',
    ],
  ])('message: %s', (_name, input, to, message) => {
    expect(scaleUpOnCapacity(factsOf(input), to).message).toBe(message);
  });
});
