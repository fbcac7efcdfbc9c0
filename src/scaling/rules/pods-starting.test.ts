import { describe, expect, it } from 'vitest';
import type { ScalingInput } from '../types.js';
import {
  algorithm,
  baseInput,
  brief,
  factsOf,
  pod,
  policyNoWindows,
  secondsAgo,
} from '../../../test/scaling/support.js';
import { podsStarting } from './pods-starting.js';

/** Ready pods at `utils`, plus `starting` bound pods not Ready, plus `notCreated` replicas in Git only. */
function withStarting(
  utils: number[],
  starting: number,
  notCreated = 0,
  extra: Parameters<typeof pod>[1] = {},
): ScalingInput {
  const b = baseInput(utils);
  const pods = [
    ...b.pods,
    ...Array.from({ length: starting }, (_, i) =>
      pod(`s${i}`, { ready: false, startedAt: secondsAgo(60), ...extra }),
    ),
  ];
  return { ...b, algorithm: algorithm({ maxReplicas: 20 }), pods, replicas: pods.length + notCreated };
}

describe('podsStarting: replicas on their way carry their share', () => {
  it.each<[string, ScalingInput, string]>([
    ['NothingArriving', withStarting([90, 90, 90], 0), 'null'],
    ['AStartingPodCarriesTheLoad', withStarting([90, 90, 90], 1), 'hold PodsStarting 4'],
    // 4 × 100 / 5 = 80 = max: in band, holds.
    ['SpreadExactlyMaxHolds', withStarting([100, 100, 100, 100], 1), 'hold PodsStarting 5'],
    ['SpreadJustAboveMaxGoesOn', withStarting([100, 100, 100, 100.5], 1), 'null'],
    ['AReplicaNotCreatedYetIsArriving', withStarting([90, 90, 90], 0, 1), 'hold PodsStarting 4'],
    [
      'AnUnschedulablePodIsNotArriving',
      withStarting([90, 90, 90], 1, 0, { unschedulable: true, nodeName: null, phase: 'Pending' }),
      'null',
    ],
    // scaling.podStartupSeconds (default 300): starting only below the bound.
    [
      'UnreadyJustInsideTheBoundIsArriving',
      withStarting([90, 90, 90], 1, 0, { startedAt: secondsAgo(299.999) }),
      'hold PodsStarting 4',
    ],
    ['UnreadyAtTheBoundIsStuck', withStarting([90, 90, 90], 1, 0, { startedAt: secondsAgo(300) }), 'null'],
    [
      'UnreadyJustPastTheBoundIsStuck',
      withStarting([90, 90, 90], 1, 0, { startedAt: secondsAgo(300.001) }),
      'null',
    ],
    [
      'UnboundJustInsideTheBoundFromItsCreationIsArriving',
      withStarting([90, 90, 90], 1, 0, {
        nodeName: null,
        phase: 'Pending',
        startedAt: null,
        createdAt: secondsAgo(299),
      }),
      'hold PodsStarting 4',
    ],
    [
      'UnboundPastTheBoundFromItsCreationIsStuck',
      withStarting([90, 90, 90], 1, 0, {
        nodeName: null,
        phase: 'Pending',
        startedAt: null,
        createdAt: secondsAgo(301),
      }),
      'null',
    ],
  ])('%s', (_name, input, want) => {
    expect(brief(podsStarting(factsOf(input), 'why'))).toBe(want);
  });

  it('a terminating pod is not arriving (nor a replica)', () => {
    const input = withStarting([90, 90, 90], 1, 0, { terminating: true });
    input.replicas = 3;
    expect(podsStarting(factsOf(input), 'why')).toBeNull();
  });

  it('a policy bound of 3600 s keeps an hour-old unready pod arriving', () => {
    const input = withStarting([90, 90, 90], 1, 0, { startedAt: secondsAgo(1800) });
    expect(brief(podsStarting(factsOf(input), 'why'))).toBe('null');
    expect(brief(podsStarting(factsOf(input, policyNoWindows({ podStartupSeconds: 3600 })), 'why'))).toBe(
      'hold PodsStarting 4',
    );
  });

  it('says how many start and the spread', () => {
    expect(podsStarting(factsOf(withStarting([90, 90, 90], 1)), 'why')?.message).toBe(
      'why, but 1 replica(s) are starting: with them Ready it is 67.5% ≤ max 80%; replicas stay at 4',
    );
  });
});
