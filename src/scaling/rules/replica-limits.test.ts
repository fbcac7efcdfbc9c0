import { describe, expect, it } from 'vitest';
import type { ScalingInput } from '../types.js';
import type { Policy } from '../../definitions/types.js';
import { algorithm, baseInput, brief, factsOf, policyNoWindows } from '../../../test/scaling/support.js';
import { replicaLimits } from './replica-limits.js';

/** Three replicas in Git against limits lo..hi. */
const limits = (lo: number, hi: number, utils = [50, 50, 50]): ScalingInput => ({
  ...baseInput(utils),
  algorithm: algorithm({ minReplicas: lo, maxReplicas: hi }),
});
/** The same without any sample. */
const noSamples = (lo: number, hi: number): ScalingInput => ({ ...limits(lo, hi), samples: [] });

describe('replicaLimits: back inside minReplicas..maxReplicas at once', () => {
  it.each<[string, ScalingInput, Policy, string]>([
    ['OneBelowMinReplicasScalesUpToIt', limits(4, 8), policyNoWindows(), 'scale-up BelowMinReplicas 4'],
    ['ExactlyMinReplicasIsInside', limits(3, 8), policyNoWindows(), 'null'],
    ['ExactlyMaxReplicasIsInside', limits(1, 3), policyNoWindows(), 'null'],
    ['OneAboveMaxReplicasScalesDownToIt', limits(1, 2), policyNoWindows(), 'scale-down AboveMaxReplicas 2'],
    ['WithoutDataStill', noSamples(5, 8), policyNoWindows(), 'scale-up BelowMinReplicas 5'],
    ['TheHpaClampsItsOwn', limits(4, 8), policyNoWindows({ engine: 'hpa' }), 'null'],
    ['TheHpaClampsItsOwnAbove', limits(1, 2), policyNoWindows({ engine: 'hpa' }), 'null'],
  ])('%s', (_name, input, p, want) => {
    expect(brief(replicaLimits(factsOf(input, p)))).toBe(want);
  });

  it('says the count, the limit and the utilisation', () => {
    expect(replicaLimits(factsOf(noSamples(4, 8)))?.message).toBe(
      'replicas 3 in Git are below minReplicas 4; scaling 3 → 4 (utilisation n/a)',
    );
    expect(replicaLimits(factsOf(limits(1, 2, [95, 95, 96])))?.message).toBe(
      'replicas 3 in Git are above maxReplicas 2; scaling 3 → 2 (utilisation 95.3%)',
    );
  });
});
