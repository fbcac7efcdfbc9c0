import { describe, expect, it } from 'vitest';
import { decideOne } from '../../src/scaling/decide-one.js';
import type { ScalingInput } from '../../src/scaling/types.js';
import { algorithm, baseInput, node, policyNoWindows } from './support.js';

const NOW = new Date('2026-11-30T12:00:00Z');

describe('decide with scaling.sizing', () => {
  it.each<[string, 'step' | 'load' | 'headroom', ScalingInput, string, number]>([
    ['LoadSizesAScaleDownToWhatTheLoadNeeds', 'load', baseInput([10, 10, 10, 10, 10]), 'scale-down', 1],
    ['StepScalesTheSameLoadDownOneStep', 'step', baseInput([10, 10, 10, 10, 10]), 'scale-down', 4],
    [
      'LoadSizesAScaleUpByTheHpaFormula',
      'load',
      {
        ...baseInput([95, 95, 95]),
        algorithm: algorithm({ maxReplicas: 20 }),
        poolNodes: [node('lt-1', 'long-task', 8)],
      },
      'scale-up',
      6,
    ],
    [
      'StepScalesTheSameLoadUpOneStep',
      'step',
      {
        ...baseInput([95, 95, 95]),
        algorithm: algorithm({ maxReplicas: 20 }),
        poolNodes: [node('lt-1', 'long-task', 8)],
      },
      'scale-up',
      4,
    ],
    ['LoadStillBoundedByFreeGpusOfThePool', 'load', baseInput([90, 95, 100]), 'scale-up', 5],
    ['LoadWithinTheBandHolds', 'load', baseInput([50, 60, 70]), 'hold', 3],
    // 1.8 GPUs: (1.8 + √1.8) / 0.8 = 3.9 → 4, inside the band: headroom replaces it.
    ['HeadroomScalesUpInsideTheBand', 'headroom', baseInput([50, 60, 70]), 'scale-up', 4],
    // 5 × 10 % = 0.5 GPUs: (0.5 + 0.71) / 0.8 → 2, below min, in one decision.
    ['HeadroomScalesDownToItsTarget', 'headroom', baseInput([10, 10, 10, 10, 10]), 'scale-down', 2],
    ['HeadroomStillBoundedByFreeGpusOfThePool', 'headroom', baseInput([90, 95, 100]), 'scale-up', 5],
  ])('%s', (_name, sizing, input, action, to) => {
    const d = decideOne(input, policyNoWindows({ sizing }), NOW);
    expect(d.action).toBe(action);
    expect(d.replicas.to).toBe(to);
  });

  it('headroom comes after the HPA engine and the replica limits', () => {
    const hpa = decideOne(
      baseInput([10, 10, 10]),
      policyNoWindows({ sizing: 'headroom', engine: 'hpa' }),
      NOW,
    );
    expect(hpa.reason).toBe('HPAOwnsReplicas');
    const over = { ...baseInput([10, 10, 10]), algorithm: algorithm({ maxReplicas: 2 }) };
    expect(decideOne(over, policyNoWindows({ sizing: 'headroom' }), NOW).reason).toBe('AboveMaxReplicas');
  });
});
