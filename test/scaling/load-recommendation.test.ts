import { describe, expect, it } from 'vitest';
import { decideOne } from '../../src/scaling/decide-one.js';
import { recommendationOf, type RecommendationBounds } from '../../src/scaling/history.js';
import { replicasNeeded, sizeForLoad } from '../../src/scaling/size-for-load.js';
import type { ScalingAction, ScalingInput } from '../../src/scaling/types.js';
import type { DecisionRecord } from '../../src/store/types.js';
import { algorithm, baseInput, node, policyNoWindows, scalingRecord } from './support.js';

const NOW = new Date('2026-12-01T04:00:00Z');
const ago = (s: number) => new Date(NOW.getTime() - s * 1000).toISOString();
const rec = (s: number, action: ScalingAction, reason: string, from: number, to: number, u: number | null) =>
  scalingRecord(ago(s), action, reason, from, to, u);

const LOAD: RecommendationBounds = {
  min: 30,
  max: 80,
  minReplicas: 1,
  maxReplicas: 20,
  step: 1,
  sizing: 'load',
};

describe('recommendationOf with load sizing: a hold recommended the replicas its load needed', () => {
  it.each<[string, DecisionRecord, Partial<RecommendationBounds>, number | null]>([
    // The HPA formula at the band's middle (55 %): 10 pods × 40 % need ceil(7.27) = 8.
    ['WithinRangeBelowTargetRecommendsFewer', rec(60, 'hold', 'WithinRange', 10, 10, 40), {}, 8],
    ['WithinRangeExactlyAtTargetRecommendsTheSame', rec(60, 'hold', 'WithinRange', 10, 10, 55), {}, 10],
    ['WithinRangeJustAboveTargetRecommendsOneMore', rec(60, 'hold', 'WithinRange', 10, 10, 55.1), {}, 11],
    ['CooldownHoldRecommendsItsLoad', rec(60, 'hold', 'CooldownActive', 10, 10, 11), {}, 2],
    ['StabilisationHoldRecommendsItsLoad', rec(60, 'hold', 'StabilizationWindow', 10, 10, 22), {}, 4],
    ['PodsStartingHoldRecommendsItsLoad', rec(60, 'hold', 'PodsStarting', 4, 4, 100), {}, 8],
    ['WouldFlapHoldRecommendsItsLoad', rec(60, 'hold', 'WouldFlap', 2, 2, 28), {}, 2],
    ['BoundedByMaxReplicas', rec(60, 'hold', 'CooldownActive', 15, 15, 100), {}, 20],
    ['BoundedByMinReplicas', rec(60, 'hold', 'WithinRange', 4, 4, 0), { minReplicas: 2 }, 2],
    // A target of its own (scaling.targetUtilization): 10 pods × 60 % at 60 % need 10; at 60.1 % 11.
    ['TargetOfItsOwnExactlyMet', rec(60, 'hold', 'WithinRange', 10, 10, 60), { target: 60 }, 10],
    ['TargetOfItsOwnJustExceeded', rec(60, 'hold', 'WithinRange', 10, 10, 60.1), { target: 60 }, 11],
    // Partial data, a limit or no data recommended staying (never a scale-down on them).
    ['InsufficientSamplesRecommendsStaying', rec(60, 'hold', 'InsufficientSamples', 10, 10, 5), {}, 10],
    ['AtMaxReplicasRecommendsStaying', rec(60, 'hold', 'AtMaxReplicas', 20, 20, 100), {}, 20],
    ['NoUtilisationRecommendsStaying', rec(60, 'hold', 'WithinRange', 10, 10, null), {}, 10],
    [
      'NoReplicaCountIsNoRecommendation',
      { ...rec(60, 'hold', 'WithinRange', 1, 1, 40), replicasFrom: null },
      {},
      null,
    ],
    ['AChangeRecommendedItsTarget', rec(60, 'scale-up', 'AboveMax', 3, 6, 95), {}, 6],
    // Step sizing keeps the step rule: an in-band hold recommended staying.
    [
      'StepSizingWithinRangeRecommendsStaying',
      rec(60, 'hold', 'WithinRange', 10, 10, 40),
      { sizing: 'step' },
      10,
    ],
    [
      'StepSizingCooldownBelowMinOneStepDown',
      rec(60, 'hold', 'CooldownActive', 10, 10, 11),
      { sizing: 'step' },
      9,
    ],
  ])('%s', (_name, record, bounds, want) => {
    expect(recommendationOf(record, { ...LOAD, ...bounds })).toBe(want);
  });
});

describe('replicasNeeded and sizeForLoad with a target of their own', () => {
  it.each([
    ['AtTheTarget', 10, 60, 60, 10],
    ['JustAboveTheTarget', 10, 60.1, 60, 11],
    ['BelowTheTarget', 10, 30, 60, 5],
    ['NoTargetIsTheBandMiddle', 10, 60, undefined, 11],
  ])('%s', (_name, pods, u, target, want) => {
    expect(replicasNeeded(pods, u, 30, 80, target)).toBe(want);
  });
  it.each<['up' | 'down', number, number | undefined, number]>([
    ['up', 90, 60, 15],
    ['up', 90, undefined, 17],
    ['down', 20, 60, 4],
    ['down', 20, undefined, 4],
    ['down', 24, 60, 4],
    ['down', 24.1, 60, 5],
  ])('%s from 10 at %s %% (target %s) → %s', (direction, utilization, target, want) => {
    expect(
      sizeForLoad({
        direction,
        from: 10,
        pods: 10,
        utilization,
        min: 30,
        max: 80,
        step: 1,
        minReplicas: 1,
        maxReplicas: 20,
        target,
      }),
    ).toBe(want);
  });
});

/** Ten Ready pods at `u` %, ten replicas, room for ten more. */
function tenAt(u: number, recent: DecisionRecord[]): ScalingInput {
  return {
    ...baseInput(Array.from({ length: 10 }, () => u)),
    algorithm: algorithm({ maxReplicas: 20 }),
    poolNodes: [node('lt-1', 'long-task', 10)],
    recent,
  };
}

describe('decide: scale-down stabilisation on the load each pass of the window needed (load sizing)', () => {
  const window = { scaleDown: { stabilizationWindowSeconds: 300 } };
  it.each<[string, ScalingInput, object, string, string, number]>([
    [
      // Before: an in-band hold recommended 10 and the window held the scale-down at 10 for as long
      // as any pass was in the band. Now it recommended ceil(10 × 40 / 55) = 8.
      'InBandPassesOfTheWindowNeededFewer',
      tenAt(20, [rec(400, 'hold', 'WithinRange', 10, 10, 40), rec(200, 'hold', 'WithinRange', 10, 10, 40)]),
      { sizing: 'load', ...window },
      'scale-down',
      'BelowMin',
      8,
    ],
    [
      'AnInBandPassJustAboveTheTargetHolds',
      tenAt(20, [rec(400, 'hold', 'WithinRange', 10, 10, 40), rec(200, 'hold', 'WithinRange', 10, 10, 55.1)]),
      { sizing: 'load', ...window },
      'hold',
      'StabilizationWindow',
      10,
    ],
    [
      'AnInBandPassExactlyAtTheTargetHolds',
      tenAt(20, [rec(400, 'hold', 'WithinRange', 10, 10, 40), rec(200, 'hold', 'WithinRange', 10, 10, 55)]),
      { sizing: 'load', ...window },
      'hold',
      'StabilizationWindow',
      10,
    ],
    [
      'TheTargetOfThePolicySizesTheWindow',
      tenAt(20, [rec(400, 'hold', 'WithinRange', 10, 10, 40), rec(200, 'hold', 'WithinRange', 10, 10, 48)]),
      { sizing: 'load', targetUtilization: 60, ...window },
      'scale-down',
      'BelowMin',
      8,
    ],
    [
      'AnOlderPassOutsideTheWindowDoesNotCount',
      tenAt(20, [rec(400, 'hold', 'WithinRange', 10, 10, 70), rec(200, 'hold', 'WithinRange', 10, 10, 40)]),
      { sizing: 'load', ...window },
      'scale-down',
      'BelowMin',
      8,
    ],
    [
      'PartialDataInTheWindowStillHolds',
      tenAt(20, [
        rec(400, 'hold', 'WithinRange', 10, 10, 40),
        rec(200, 'hold', 'InsufficientSamples', 10, 10, 5),
      ]),
      { sizing: 'load', ...window },
      'hold',
      'StabilizationWindow',
      10,
    ],
    [
      'StepSizingStillHoldsOnAnInBandPass',
      tenAt(20, [rec(400, 'hold', 'WithinRange', 10, 10, 40), rec(200, 'hold', 'WithinRange', 10, 10, 40)]),
      { sizing: 'step', ...window },
      'hold',
      'StabilizationWindow',
      10,
    ],
    [
      'ScaleUpSizesForThePolicyTarget',
      tenAt(90, []),
      { sizing: 'load', targetUtilization: 60 },
      'scale-up',
      'AboveMax',
      15,
    ],
    [
      'ScaleUpWithoutATargetSizesForTheBandMiddle',
      tenAt(90, []),
      { sizing: 'load' },
      'scale-up',
      'AboveMax',
      17,
    ],
    [
      'ATargetOfZeroIsTheBandMiddle',
      tenAt(90, []),
      { sizing: 'load', targetUtilization: 0 },
      'scale-up',
      'AboveMax',
      17,
    ],
    [
      'ASmallTargetSizesForItWithinMaxReplicasAndFreeGpus',
      tenAt(90, []),
      { sizing: 'load', targetUtilization: 0.5 },
      'scale-up',
      'AboveMax',
      20,
    ],
  ])('%s', (_name, input, scaling, action, reason, to) => {
    const d = decideOne(input, policyNoWindows(scaling), NOW);
    expect([d.action, d.reason, d.replicas.to]).toEqual([action, reason, to]);
  });
});
