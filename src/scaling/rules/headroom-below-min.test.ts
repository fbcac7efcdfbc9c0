import { describe, expect, it } from 'vitest';
import type { Policy } from '../../definitions/types.js';
import type { PodSample, ScalingInput } from '../types.js';
import {
  brief,
  factsOf,
  policyNoWindows,
  scalingRecord,
  secondsAgo,
  evenLoad,
} from '../../../test/scaling/support.js';
import { downBeta, recommendationOf } from '../history.js';
import { headroom } from './headroom.js';

const load = evenLoad;
/** The shipped band: β 1, margin 0.25 (min 30 %, max 80 %), no windows, no flap hold. */
const shipped = (extra: Parameters<typeof policyNoWindows>[0] = {}): Policy =>
  policyNoWindows({ sizing: 'headroom', headroomFactor: 1, headroomDownMargin: 0.25, ...extra });
const run = (input: ScalingInput, p: Policy = shipped()) => headroom(factsOf(input, p));

// Up target ceil((L + √L) / 0.8); in band the scale-down target is ceil((L + 1.25·√L) / 0.8).
describe('headroom below min: down to the up target (the band holds only counts above it)', () => {
  it.each<[string, number, number, string]>([
    // 0.25 GPU on 2 pods (12.5 %): up (0.25 + 0.5) / 0.8 = 0.94 → 1; at β + margin 1.09 → 2.
    ['AQuarterGpuOnTwoGoesToOne', 0.25, 2, 'scale-down HeadroomSpare 1'],
    ['AQuarterGpuOnOneStays', 0.25, 1, 'hold WithinRange 1'],
    // The up target's boundary, L + √L = 0.8 at L = 0.275: 0.27 → 0.99 → 1, 0.28 → 1.01 → 2.
    ['JustBelowTheUpBoundaryGoesToOne', 0.27, 2, 'scale-down HeadroomSpare 1'],
    ['JustAboveTheUpBoundaryStaysOnTwo', 0.28, 2, 'hold WithinRange 2'],
    // 1 GPU: up (1 + 1) / 0.8 = 2.5 → 3 (β + margin: 2.8 → 3, the same).
    ['OneGpuOnFourGoesToThree', 1, 4, 'scale-down HeadroomSpare 3'],
    ['OneGpuOnThreeStays', 1, 3, 'hold WithinRange 3'],
    // 4 pods at the min boundary: 1.15 GPUs (28.75 %) up 2.78 → 3 (β + margin 3.1 → 4) ...
    ['BelowMinOnFourGoesToTheUpTarget', 1.15, 4, 'scale-down HeadroomSpare 3'],
    ['JustBelowMinGoesToTheUpTarget', 1.196, 4, 'scale-down HeadroomSpare 3'],
    // ... 1.2 GPUs is exactly 30 % = min, in band: β + margin (1.2 + 1.37) / 0.8 = 3.2 → 4 holds.
    ['ExactlyAtMinTheBandHolds', 1.2, 4, 'hold WithinRange 4'],
    // 1.5 GPUs: up (1.5 + 1.22) / 0.8 = 3.4 → 4; β + margin 3.8 → 4.
    ['OneAndAHalfAtMinOnFiveGoesToFour', 1.5, 5, 'scale-down HeadroomSpare 4'],
    ['OneAndAHalfBelowMinOnSixGoesToFour', 1.5, 6, 'scale-down HeadroomSpare 4'],
    ['OneAndAHalfOnFourStays', 1.5, 4, 'hold WithinRange 4'],
  ])('%s', (_name, gpus, pods, want) => {
    expect(brief(run(load(gpus, pods)))).toBe(want);
  });

  it('says that below min no margin applies', () => {
    expect(run(load(0.25, 2)).message).toBe(
      'load 0.3 GPU(s) over 2 of 2 Ready pod(s) + 1×√0.3 headroom needs 1 replica(s) at max 80%; utilisation 12.5% is below min 30%, so no margin; scaling 2 → 1',
    );
  });

  it('the source window sizes its highest load on its side of min', () => {
    const p = shipped({ scaleDown: { stabilizationWindowSeconds: 300 } });
    const windowed = (max: number): ScalingInput => {
      const input = load(1.15, 4);
      const samples: PodSample[] = input.samples.map((x) => ({
        ...x,
        window: { max, coveredSeconds: 300 },
      }));
      return { ...input, samples };
    };
    // Highest 4 × 29.9 % = 1.196 GPUs, below min: at β 3 < 4 goes; 4 × 30 % in band at β + margin 4 holds.
    expect(brief(run(windowed(29.9), p))).toBe('scale-down HeadroomSpare 3');
    expect(brief(run(windowed(30), p))).toBe('hold StabilizationWindow 4');
  });

  it('recommendationOf re-derives a pass at β below min and at β + margin from min on', () => {
    const b = {
      min: 30,
      max: 80,
      minReplicas: 1,
      maxReplicas: 20,
      step: 1,
      sizing: 'headroom',
      headroomFactor: 1,
      headroomDownMargin: 0.25,
    } as const;
    const rec = (u: number) =>
      recommendationOf(scalingRecord(secondsAgo(1), 'hold', 'WithinRange', 4, 4, u), b);
    expect(rec(29.9)).toBe(3); // 1.196 GPUs at β 1: 2.86 → 3
    expect(rec(30)).toBe(4); // 1.2 GPUs at β 1.25: 3.21 → 4
    expect(
      recommendationOf(scalingRecord(secondsAgo(1), 'hold', 'WithinRange', 4, 4, 30), {
        ...b,
        headroomDownMargin: undefined,
      }),
    ).toBe(3);
  });
});

describe('downBeta: the β a scale-down sizes at, by the side of min its load is on', () => {
  const bounds = { min: 30, max: 80, minReplicas: 1, maxReplicas: 20, step: 1 };
  it.each<[string, Partial<Parameters<typeof downBeta>[0]>, number, number]>([
    ['BelowMinNoMargin', { headroomFactor: 1, headroomDownMargin: 0.25 }, 29.99, 1],
    ['ExactlyMinTakesTheMargin', { headroomFactor: 1, headroomDownMargin: 0.25 }, 30, 1.25],
    ['AboveMinTakesTheMargin', { headroomFactor: 1.5, headroomDownMargin: 0.5 }, 79, 2],
    ['AbsentFactorsCountZero', {}, 50, 0],
  ])('%s', (_name, over, utilization, want) => {
    expect(downBeta({ ...bounds, ...over }, utilization)).toBe(want);
  });
});
