import { describe, expect, it } from 'vitest';
import type { ScalingInput } from '../types.js';
import { algorithm, baseInput, factsOf, policyNoWindows, sample } from '../../../test/scaling/support.js';
import { desiredReplicas } from './sizing.js';

/** Ready pods at `utils`, limits lo..hi. */
const at = (utils: number[], lo = 1, hi = 20): ScalingInput => ({
  ...baseInput(utils),
  algorithm: algorithm({ minReplicas: lo, maxReplicas: hi }),
});

describe('desiredReplicas: how far a decision goes', () => {
  it.each<[string, ScalingInput, 'step' | 'load', number, 'up' | 'down', number]>([
    ['StepUpOneStep', at([95, 95, 95]), 'step', 1, 'up', 4],
    ['StepUpBoundedByMaxReplicas', at([95, 95, 95], 1, 4), 'step', 2, 'up', 4],
    ['StepDownOneStep', at([10, 10, 10]), 'step', 1, 'down', 2],
    ['StepDownNeverBelowMinReplicas', at([10, 10, 10], 2), 'step', 3, 'down', 2],
    // ceil(3 × 95 / 55) = 6: the HPA formula at the band's middle.
    ['LoadUpToWhatTheLoadNeeds', at([95, 95, 95]), 'load', 1, 'up', 6],
    // ceil(5 × 10 / 55) = 1.
    ['LoadDownToWhatTheLoadNeeds', at([10, 10, 10, 10, 10]), 'load', 1, 'down', 1],
  ])('%s', (_name, input, sizing, step, direction, want) => {
    expect(desiredReplicas(factsOf(input, policyNoWindows({ sizing, step })), direction)).toBe(want);
  });

  it('load sizing up counts only the sampled pods (a Ready pod without a sample adds no load)', () => {
    // Two of three sampled at 100: ceil(2 × 100 / 55) = 4, not ceil(3 × 100 / 55) = 6.
    const input = {
      ...at([100, 100, 100]),
      samples: [0, 1].map((i) => sample(`resnet50-infer-7d9f-${i}`, 100)),
    };
    expect(desiredReplicas(factsOf(input, policyNoWindows({ sizing: 'load' })), 'up')).toBe(4);
  });

  it('load sizing takes the policy target when it has one', () => {
    // ceil(3 × 95 / 95) = 3, at least one step: 4.
    const p = policyNoWindows({ sizing: 'load', targetUtilization: 95 });
    expect(desiredReplicas(factsOf(at([95, 95, 95]), p), 'up')).toBe(4);
  });
});
