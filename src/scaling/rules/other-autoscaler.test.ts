import { describe, expect, it } from 'vitest';
import type { ScalingInput } from '../types.js';
import { baseInput, brief, factsOf } from '../../../test/scaling/support.js';
import { otherAutoscaler } from './other-autoscaler.js';

const withOthers = (otherAutoscalers: string[] | undefined): ScalingInput => ({
  ...baseInput([]),
  replicas: 3,
  ...(otherAutoscalers ? { otherAutoscalers } : {}),
});

describe('otherAutoscaler: one owner of spec.replicas', () => {
  it.each<[string, string[] | undefined, string]>([
    ['NoneListedIsNone', undefined, 'null'],
    ['AnEmptyListIsNone', [], 'null'],
    ['AnHpaHolds', ['HorizontalPodAutoscaler algorithms/x'], 'hold OtherAutoscaler 3'],
  ])('%s', (_name, others, want) => {
    expect(brief(otherAutoscaler(factsOf(withOthers(others))))).toBe(want);
  });

  it('names every other autoscaler, the Deployment and the replicas it leaves', () => {
    const v = otherAutoscaler(
      factsOf(withOthers(['HorizontalPodAutoscaler algorithms/a', 'ScaledObject algorithms/b'])),
    );
    expect(v?.message).toBe(
      'HorizontalPodAutoscaler algorithms/a, ScaledObject algorithms/b scales Deployment algorithms/resnet50-infer; gpuops leaves its replicas (3) to it, one owner of spec.replicas, until that autoscaler is removed',
    );
  });
});
