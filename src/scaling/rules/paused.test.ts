import { describe, expect, it } from 'vitest';
import type { ScalingInput } from '../types.js';
import type { Policy } from '../../definitions/types.js';
import { algorithm, baseInput, brief, factsOf, policyNoWindows } from '../../../test/scaling/support.js';
import { paused } from './paused.js';

const zero = (minReplicas: number): ScalingInput => ({
  ...baseInput([]),
  algorithm: algorithm({ minReplicas }),
  replicas: 0,
});

describe('paused: a Deployment a person scaled to zero', () => {
  it.each<[string, ScalingInput, Policy, string]>([
    ['ZeroReplicasWithMinOneIsPaused', zero(1), policyNoWindows(), 'hold ScaledToZero 0'],
    ['ZeroReplicasWithMinZeroIsNotPaused', zero(0), policyNoWindows(), 'null'],
    ['OneReplicaIsDecidedNormally', { ...zero(1), replicas: 1 }, policyNoWindows(), 'null'],
    ['WithTheHpaZeroIsTheHpasBusiness', zero(1), policyNoWindows({ engine: 'hpa' }), 'null'],
  ])('%s', (_name, input, p, want) => {
    expect(brief(paused(factsOf(input, p)))).toBe(want);
  });

  it('names minReplicas and how to resume', () => {
    expect(paused(factsOf(zero(2)))?.message).toBe(
      'replicas are 0 in Git (minReplicas 2): a Deployment scaled to zero is paused by a person, as the HPA treats it; scaling resumes once replicas are above 0',
    );
  });
});
