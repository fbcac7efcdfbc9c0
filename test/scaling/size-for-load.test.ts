import { describe, expect, it } from 'vitest';
import { replicasNeeded, sizeForLoad, type SizeInput } from '../../src/scaling/size-for-load.js';

const base: SizeInput = {
  direction: 'up',
  from: 2,
  pods: 2,
  utilization: 90,
  min: 30,
  max: 80,
  step: 1,
  minReplicas: 1,
  maxReplicas: 20,
};

describe('replicasNeeded (HPA formula at the middle of the band, 55 %)', () => {
  it.each([
    ['ExactlyAtTarget', 3, 55, 3],
    ['JustAboveTarget', 3, 55.1, 4],
    ['SaturatedDoubles', 4, 100, 8],
    ['IdleNeedsNone', 5, 0, 0],
    ['HalfTarget', 10, 27.5, 5],
  ])('%s', (_name, pods, u, want) => {
    expect(replicasNeeded(pods, u, 30, 80)).toBe(want);
  });

  it.each([
    ['ZeroTargetKeepsThePods', 3, 50, 0, 0, 3],
    ['TargetJustAboveZeroSizes', 3, 50, 0, 0.2, 1500],
  ])('%s', (_name, pods, u, min, max, want) => {
    expect(replicasNeeded(pods, u, min, max)).toBe(want);
  });
});

describe('sizeForLoad', () => {
  it.each<[string, Partial<SizeInput>, number]>([
    ['UpOneStepWhenJustAboveMax', { from: 10, pods: 10, utilization: 81 }, 15],
    ['UpAtLeastOneStep', { from: 2, pods: 2, utilization: 56 }, 3],
    ['UpSizesABigJumpAtOnce', { from: 1, pods: 1, utilization: 100 }, 2],
    ['UpFromSaturatedFour', { from: 4, pods: 4, utilization: 100 }, 8],
    ['UpBoundedByMaxReplicas', { from: 18, pods: 18, utilization: 100, maxReplicas: 20 }, 20],
    ['UpCountsOnlySampledPods', { from: 6, pods: 3, utilization: 100 }, 7],
    ['DownToWhatTheLoadNeeds', { direction: 'down', from: 10, pods: 10, utilization: 11 }, 2],
    ['DownAtLeastOneStep', { direction: 'down', from: 3, pods: 3, utilization: 29 }, 2],
    [
      'DownNeverBelowOneForAnyLoad',
      { direction: 'down', from: 4, pods: 4, utilization: 0, minReplicas: 0 },
      1,
    ],
    ['DownBoundedByMinReplicas', { direction: 'down', from: 5, pods: 5, utilization: 1, minReplicas: 3 }, 3],
    ['DownBigStep', { direction: 'down', from: 10, pods: 10, utilization: 5, step: 4 }, 1],
    ['StepZeroIsOneStep', { from: 2, pods: 2, utilization: 56, step: 0 }, 3],
    ['NoPodsCountAsOne', { from: 2, pods: 0, utilization: 50, min: 1, max: 1 }, 20],
  ])('%s', (_name, patch, want) => {
    expect(sizeForLoad({ ...base, ...patch })).toBe(want);
  });
});
