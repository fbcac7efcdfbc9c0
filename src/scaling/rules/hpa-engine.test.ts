import { describe, expect, it } from 'vitest';
import type { HpaState, ScalingInput } from '../types.js';
import type { Policy } from '../../definitions/types.js';
import {
  algorithm,
  baseInput,
  brief,
  factsOf,
  node,
  pod,
  policyNoWindows,
  scalingRecord,
  secondsAgo,
} from '../../../test/scaling/support.js';
import { hpaEngine } from './hpa-engine.js';

const hpa = policyNoWindows({ engine: 'hpa' });
const state = (currentReplicas: number, maxReplicas: number): HpaState => ({
  currentReplicas,
  desiredReplicas: currentReplicas,
  maxReplicas,
});
const pending = (name: string) =>
  pod(name, { nodeName: null, phase: 'Pending', ready: false, unschedulable: true });
/** Three Ready pods at `u` %, the HPA at `current` of max 3, room for `room` pods. */
const atMax = (u: number, room: number, current = 3): ScalingInput => ({
  ...baseInput([u, u, u]),
  hpa: state(current, 3),
  poolNodes: [node('lt-1', 'long-task', room)],
});
/** Three Ready pods and `n` Pending ones, room for `room`. */
const withPending = (n: number, room: number): ScalingInput => ({
  ...baseInput([60, 60, 60]),
  replicas: 3 + n,
  pods: [...baseInput().pods, ...Array.from({ length: n }, (_, i) => pending(`p-${i}`))],
  poolNodes: [node('lt-1', 'long-task', room)],
});

describe('hpaEngine: the HPA owns replicas, gpuops grows the pool', () => {
  it.each<[string, ScalingInput, Policy, string]>([
    ['EngineGpuopsIsNotThisRulesCase', baseInput([95]), policyNoWindows(), 'null'],
    ['NoUtilisationIsNoDatasCase', { ...baseInput([95]), samples: [] }, hpa, 'null'],
    ['BelowItsMaximumOwnsReplicas', atMax(95, 0, 2), hpa, 'hold HPAOwnsReplicas 3'],
    ['AtItsMaximumExactlyMaxOwnsReplicas', atMax(80, 0), hpa, 'hold HPAOwnsReplicas 3'],
    ['AtItsMaximumAboveMaxWithNoRoomMovesANode', atMax(80.1, 0), hpa, 'relabel RelabelUnusedNode 3'],
    ['AtItsMaximumWithExactlyOneSlotHolds', atMax(95, 1), hpa, 'hold HPAOwnsReplicas 3'],
    ['PendingWithExactlyTheirRoomHolds', withPending(2, 2), hpa, 'hold HPAOwnsReplicas 5'],
    ['PendingWithOneSlotShortMovesANode', withPending(2, 1), hpa, 'relabel RelabelUnusedNode 5'],
    [
      'AMoveWaitsForTheScaleUpCooldown',
      { ...atMax(95, 0), recent: [scalingRecord(secondsAgo(10), 'relabel', 'RelabelUnusedNode', 3, 3, 95)] },
      policyNoWindows({ engine: 'hpa', scaleUp: { cooldownSeconds: 120 } }),
      'hold CooldownActive 3',
    ],
    [
      'NoHpaStateUsesGitAndTheSpec',
      {
        ...baseInput([95, 95, 95]),
        algorithm: algorithm({ maxReplicas: 3 }),
        poolNodes: [node('lt-1', 'long-task', 0)],
      },
      hpa,
      'relabel RelabelUnusedNode 3',
    ],
  ])('%s', (_name, input, p, want) => {
    expect(brief(hpaEngine(factsOf(input, p)))).toBe(want);
  });

  it.each<[string, ScalingInput, string]>([
    ['Owns', atMax(95, 0, 2), 'the HPA owns replicas (2, max 3); utilisation 95% over 3 of 3 Ready pod(s)'],
    [
      'AtMaxWithRoom',
      atMax(95, 1),
      'the HPA sits at its maximum of 3 replicas with utilisation 95% > max 80%, but pool long-task has room for 1 pod(s); the HPA owns replicas',
    ],
    [
      'PendingWithRoom',
      withPending(2, 2),
      '2 pod(s) Pending for lack of GPUs, but pool long-task has room for 2 pod(s); the HPA owns replicas',
    ],
  ])('message: %s', (_name, input, message) => {
    expect(hpaEngine(factsOf(input, hpa))?.message).toBe(message);
  });

  it('moves as many unused nodes as the Pending pods need, by name', () => {
    const input = {
      ...withPending(2, 0),
      unusedNodes: [node('u-c', 'unused', 1), node('u-a', 'unused', 1), node('u-b', 'unused', 1)],
    };
    expect(hpaEngine(factsOf(input, hpa))?.nodes).toEqual(['u-a', 'u-b']);
  });
});
