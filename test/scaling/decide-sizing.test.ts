import { describe, expect, it } from 'vitest';
import { decide } from '../../src/scaling/decide.js';
import type { ScalingInput } from '../../src/scaling/types.js';
import { algorithm, baseInput, node, policyNoWindows } from './support.js';

const NOW = new Date('2026-11-30T12:00:00Z');

describe('decide with scaling.sizing', () => {
  it.each<[string, 'step' | 'load', ScalingInput, string, number]>([
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
  ])('%s', (_name, sizing, input, action, to) => {
    const d = decide(input, policyNoWindows({ sizing }), NOW);
    expect(d.action).toBe(action);
    expect(d.replicas.to).toBe(to);
  });
});
