import { describe, expect, it } from 'vitest';
import { headroomReplicas } from './headroom-replicas.js';

describe('headroomReplicas: ceil((L + β·√L) / (gpus × max))', () => {
  it.each<[string, number, number, number, number, number, number, number]>([
    // name, load GPUs, β, GPUs per pod, max %, minReplicas, maxReplicas, want
    ['NoLoadAsksForMinReplicas', 0, 2, 1, 80, 1, 20, 1],
    ['NoLoadKeepsAHigherMinReplicas', 0, 2, 1, 80, 3, 20, 3],
    ['NegativeLoadCountsAsNone', -1, 2, 1, 80, 1, 20, 1],
    // 3.2 GPUs at 80 % per replica: exactly 4 replicas at max, not 5 (float noise forgiven).
    ['ExactlyAtMaxNeedsExactlyTheReplicas', 3.2, 0, 1, 80, 1, 20, 4],
    ['JustAboveMaxNeedsOneMore', 3.21, 0, 1, 80, 1, 20, 5],
    // (4 + 2·√4) / 0.8 = 10 exactly; 4.01 GPUs: (4.01 + 2·2.0025) / 0.8 = 10.02 → 11.
    ['HeadroomLandingOnAWholeCountTakesIt', 4, 2, 1, 80, 1, 20, 10],
    ['HeadroomJustPastAWholeCountRoundsUp', 4.01, 2, 1, 80, 1, 20, 11],
    // (4 + 1·2) / 0.8 = 7.5 → 8; (1 + 1) / 0.8 = 2.5 → 3: √ of the load, not of the replicas.
    ['SquareRootRoundsUp', 4, 1, 1, 80, 1, 20, 8],
    ['SquareRootOfOneGpu', 1, 1, 1, 80, 1, 20, 3],
    // Below 1 GPU √L > L: 0.25 GPUs + 1·0.5 = 0.75 / 0.8 → 1.
    ['BelowOneGpuTheRootIsLargerThanTheLoad', 0.25, 1, 1, 80, 1, 20, 1],
    ['BelowOneGpuTheRootCanAskForTwo', 0.36, 1, 1, 80, 1, 20, 2],
    ['BetaZeroIsTheHpaAtMax', 10, 0, 1, 80, 1, 20, 13],
    ['NegativeBetaCountsAsZero', 10, -1, 1, 80, 1, 20, 13],
    // Pods of 2 GPUs at 80 %: 1.6 GPUs each; (4 + 0) / 1.6 = 2.5 → 3.
    ['PodsOfTwoGpus', 4, 0, 2, 80, 1, 20, 3],
    ['ZeroGpusPerPodCountsAsOne', 4, 0, 0, 80, 1, 20, 5],
    ['BoundedByMaxReplicas', 100, 1, 1, 80, 1, 8, 8],
    ['MaxReplicasExactlyReachedStays', 6.4, 0, 1, 80, 1, 8, 8],
    ['AMaxOfZeroAsksForMaxReplicasUnderLoad', 1, 1, 1, 0, 1, 8, 8],
    ['AMaxOfZeroWithoutLoadAsksForMinReplicas', 0, 1, 1, 0, 2, 8, 2],
  ])('%s', (_name, load, beta, gpus, max, lo, hi, want) => {
    expect(headroomReplicas(load, beta, gpus, max, lo, hi)).toBe(want);
  });
});
