import { describe, expect, it } from 'vitest';
import type { ScalingInput } from '../types.js';
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
import { noData } from './no-data.js';

const pending = (name: string, o = {}) =>
  pod(name, { nodeName: null, phase: 'Pending', ready: false, unschedulable: true, ...o });
/** One replica in Git, its pod Pending, no sample; pool room for `room` pods of 1 GPU. */
const waiting = (room: number, o: Partial<ScalingInput> = {}): ScalingInput => ({
  ...baseInput([]),
  replicas: 1,
  pods: [pending('p0')],
  poolNodes: [node('lt-1', 'long-task', room)],
  ...o,
});

describe('noData: no utilisation is never 0 %', () => {
  it.each<[string, ScalingInput, Policy, string]>([
    ['AUtilisationIsNotThisRulesCase', baseInput([10]), policyNoWindows(), 'null'],
    ['NoSampleHolds', { ...baseInput([10, 10]), samples: [] }, policyNoWindows(), 'hold NoData 2'],
    ['PendingWithNoRoomMovesANode', waiting(0), policyNoWindows(), 'relabel RelabelUnusedNode 1'],
    ['PendingWithExactlyTheRoomWaitsForTheScheduler', waiting(1), policyNoWindows(), 'hold NoData 1'],
    [
      'APendingPodNotUnschedulableIsNoEvidence',
      waiting(0, { pods: [pending('p0', { unschedulable: false })] }),
      policyNoWindows(),
      'hold NoData 1',
    ],
    [
      'AnUnschedulablePodAlreadyBoundIsNoEvidence',
      waiting(0, { pods: [pending('p0', { nodeName: 'lt-1' })] }),
      policyNoWindows(),
      'hold NoData 1',
    ],
    [
      'PendingWaitsForTheScaleUpCooldown',
      waiting(0, { recent: [scalingRecord(secondsAgo(10), 'relabel', 'RelabelUnusedNode', 1, 1, null)] }),
      policyNoWindows({ scaleUp: { cooldownSeconds: 120 } }),
      'hold CooldownActive 1',
    ],
    [
      'PendingWithNoUnusedNodeWithRoomIsNoCapacity',
      waiting(0, { algorithm: algorithm({ gpus: 16 }) }),
      policyNoWindows(),
      'hold NoCapacity 1',
    ],
    [
      'PendingNeedsNoSample',
      waiting(0, { pods: [pending('p0'), pod('r1', { ready: true })], replicas: 2, samples: [] }),
      policyNoWindows(),
      'relabel RelabelUnusedNode 2',
    ],
  ])('%s', (_name, input, p, want) => {
    expect(brief(noData(factsOf(input, p)))).toBe(want);
  });

  it.each<[string, ScalingInput, string]>([
    [
      'NoneReady',
      { ...baseInput([50, 50]), pods: baseInput([50, 50]).pods.map((p) => ({ ...p, ready: false })) },
      'none of its 2 counted pod(s) is Ready, so no GPU sample can count; utilisation unknown, replicas stay at 2',
    ],
    [
      'NoSeriesNamesThem',
      { ...baseInput([50]), samples: [] },
      'no usable GPU sample for any of 1 Ready pod(s) (no series of the source names them); utilisation unknown, replicas stay at 1',
    ],
    [
      'SeriesDropped',
      { ...baseInput([50]), samples: [], dropped: 'Stale: 1 (oldest 300 s)' },
      'no usable GPU sample for any of 1 Ready pod(s) (series dropped: Stale: 1 (oldest 300 s)); utilisation unknown, replicas stay at 1',
    ],
    [
      'TheSourceFailed',
      { ...baseInput([50]), samples: [], noDataMessage: 'no GPU metrics (Unreachable): x' },
      'no GPU metrics (Unreachable): x; utilisation unknown, replicas stay at 1',
    ],
    [
      'PendingNamesWhatHasNoRoom',
      waiting(0, {
        pods: [pending('p0'), pending('p1')],
        replicas: 2,
        algorithm: algorithm({ gpus: 2 }),
        unusedNodes: [node('u', 'unused', 4)],
      }),
      "2 pod(s) Pending: pool long-task has no room for 2 more pod(s) of 2 GPU(s); pool long-task has no room for a pod of 2 GPU(s), moving unused node(s) u (NVIDIA-A100-SXM4-80GB, 4 GPUs: smallest unused node of the pool's product that fits 2 replicas) into it; replicas stay at 2",
    ],
  ])('message: %s', (_name, input, message) => {
    expect(noData(factsOf(input))?.message).toBe(message);
  });
});
