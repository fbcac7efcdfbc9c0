import { describe, expect, it } from 'vitest';
import type { ScalingInput } from '../types.js';
import type { Policy } from '../../definitions/types.js';
import {
  algorithm,
  baseInput,
  brief,
  factsOf,
  pod,
  policyNoWindows,
  sample,
} from '../../../test/scaling/support.js';
import { belowMin, scaledDown } from './below-min.js';

/** Ready pods at `utils` with band min..max. */
const low = (
  utils: number[],
  o: { min?: number; max?: number; minReplicas?: number } = {},
): ScalingInput => ({
  ...baseInput(utils),
  algorithm: algorithm({ min: o.min ?? 30, max: o.max ?? 80, minReplicas: o.minReplicas ?? 1 }),
});

describe('belowMin: whether and how far to scale down', () => {
  it.each<[string, ScalingInput, Policy, string]>([
    ['AtMinReplicasHolds', low([5, 5, 5], { minReplicas: 3 }), policyNoWindows(), 'hold AtMinReplicas 3'],
    ['OneAboveMinReplicasGoesOn', low([5, 5, 5], { minReplicas: 2 }), policyNoWindows(), 'to 2'],
    [
      'BelowMinReplicasHoldsToo',
      low([5, 5, 5], { minReplicas: 4 }),
      policyNoWindows(),
      'hold AtMinReplicas 3',
    ],
    [
      'AReadyPodWithoutASampleHolds',
      { ...low([10, 10, 10]), samples: [sample('resnet50-infer-7d9f-0', 10)] },
      policyNoWindows(),
      'hold InsufficientSamples 3',
    ],
    // 20 % on two pods, max 40: one pod would run at exactly 40 % (in band) → scales.
    ['PredictedExactlyMaxScales', low([20, 20], { max: 40 }), policyNoWindows(), 'to 1'],
    ['PredictedJustAboveMaxWouldFlap', low([20.5, 20.5], { max: 40 }), policyNoWindows(), 'hold WouldFlap 2'],
    ['TheTargetIsTheSizingRules', low([10, 10, 10, 10, 10]), policyNoWindows({ sizing: 'load' }), 'to 1'],
    [
      // Two Ready at 10 % of four replicas: the prediction spreads the Ready pods' load only.
      'PredictionCountsTheReadyPods',
      {
        ...low([10, 10]),
        replicas: 4,
        pods: [...baseInput([10, 10]).pods, pod('s0', { ready: false }), pod('s1', { ready: false })],
      },
      policyNoWindows({ sizing: 'load' }),
      'to 1',
    ],
  ])('%s', (_name, input, p, want) => {
    expect(brief(belowMin(factsOf(input, p)))).toBe(want);
  });

  it.each<[string, ScalingInput, string]>([
    [
      'AtMinReplicas',
      low([5, 5, 5], { minReplicas: 3 }),
      'utilisation 5% over 3 of 3 Ready pod(s) < min 30%, but replicas 3 are at minReplicas 3',
    ],
    [
      'InsufficientSamples',
      { ...low([10, 10, 10]), samples: [sample('resnet50-infer-7d9f-0', 10)], dropped: 'Stale: 2' },
      'utilisation 10% over 1 of 3 Ready pod(s) < min 30%, but only 1 of 3 Ready pod(s) have a sample (series dropped: Stale: 2); never scale down on partial data (the HPA never scales down on missing metrics)',
    ],
    [
      'WouldFlap',
      low([29, 29, 29], { max: 40 }),
      'utilisation 29% over 3 of 3 Ready pod(s) < min 30%, but 3 → 2 would put it at 43.5% > max 40%',
    ],
  ])('message: %s', (_name, input, message) => {
    const v = belowMin(factsOf(input));
    expect('message' in v ? v.message : null).toBe(message);
  });
});

describe('scaledDown: the scale-down every rule let through', () => {
  it.each<[string, { to: number; because?: string; note?: string }, string]>([
    ['Plain', { to: 2 }, 'utilisation 20% over 3 of 3 Ready pod(s) < min 30%; scaling 3 → 2 (predicted 30%)'],
    [
      'WithWhyAndANote',
      { to: 1, because: ', and so', note: ' (not 0)' },
      'utilisation 20% over 3 of 3 Ready pod(s) < min 30%, and so; scaling 3 → 1 (not 0) (predicted 60%)',
    ],
  ])('%s', (_name, t, message) => {
    const v = scaledDown(factsOf(baseInput([10, 20, 30])), t);
    expect([v.action, v.reason, v.to, v.message]).toEqual(['scale-down', 'BelowMin', t.to, message]);
  });
});
