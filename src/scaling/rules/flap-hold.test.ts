import { describe, expect, it } from 'vitest';
import type { Policy } from '../../definitions/types.js';
import type { ScalingInput } from '../types.js';
import {
  algorithm,
  baseInput,
  brief,
  factsOf,
  policy,
  policyNoWindows,
  scalingRecord,
  secondsAgo,
} from '../../../test/scaling/support.js';
import { headroom } from './headroom.js';
import { flapHold } from './flap-hold.js';

/** Ready pods at `utils` (one GPU each), limits lo..hi, two free GPUs on the pool. */
const at = (utils: number[], lo = 1, hi = 20): ScalingInput => ({
  ...baseInput(utils),
  algorithm: algorithm({ minReplicas: lo, maxReplicas: hi }),
});
/** Headroom at β (default 1) with the hysteresis band `margin` and the flap hold `hold` seconds. */
const hp = (margin: number, hold = 0, beta = 1): Policy =>
  policyNoWindows({
    sizing: 'headroom',
    headroomFactor: beta,
    headroomDownMargin: margin,
    headroomFlapHoldSeconds: hold,
  });
const run = (input: ScalingInput, p: Policy) => headroom(factsOf(input, p));
const downAgo = (s: number, from = 5, to = 3) =>
  scalingRecord(secondsAgo(s), 'scale-down', 'HeadroomSpare', from, to, 10);

describe('headroom hysteresis: down only below the target at β + margin', () => {
  it.each<[string, number[], Policy, string]>([
    // 5 × 10 % = 0.5 GPUs. β 1: (0.5 + 0.71) / 0.8 = 1.5 → 2; β 2: (0.5 + 1.41) / 0.8 = 2.4 → 3.
    ['NoMarginGoesToTheTarget', [10, 10, 10, 10, 10], hp(0), 'scale-down HeadroomSpare 2'],
    ['TheMarginStopsShortOfIt', [10, 10, 10, 10, 10], hp(1), 'scale-down HeadroomSpare 3'],
    // 3 × 45 % = 1.35 GPUs: β 1 (1.35 + 1.16) / 0.8 = 3.1 → 4 > 3 scales up, margin or not.
    ['UpIsSizedAtBetaAlone', [45, 45, 45], hp(1), 'scale-up HeadroomShort 4'],
    // 4 × 40 % = 1.6 GPUs: β 1 needs 3.6 → 4; β 2: (1.6 + 2.53) / 0.8 = 5.2 → 6 ≥ 4 holds.
    ['InsideTheBandHolds', [40, 40, 40, 40], hp(1), 'hold WithinRange 4'],
    // 4 × 20 % = 0.8 GPUs: β 2 (0.8 + 1.79) / 0.8 = 3.24 → 4 = 4 holds (the band's edge) ...
    ['TargetAtBetaPlusMarginEqualToReplicasHolds', [20, 20, 20, 20], hp(1), 'hold WithinRange 4'],
    // ... 4 × 15 % = 0.6 GPUs: (0.6 + 1.55) / 0.8 = 2.7 → 3 < 4 scales down.
    ['OneBelowTheBandEdgeScalesDown', [15, 15, 15, 15], hp(1), 'scale-down HeadroomSpare 3'],
    // No load: β + margin asks for minReplicas as β does.
    ['NoLoadGoesToMinReplicas', [0, 0, 0], hp(3), 'scale-down HeadroomSpare 1'],
    // Exactly at max with β 0 + margin 0: 4 × 80 % = 3.2 GPUs needs exactly 4.
    ['ExactlyAtMaxWithNoBandHolds', [80, 80, 80, 80], hp(0, 0, 0), 'hold WithinRange 4'],
  ])('%s', (_name, utils, p, want) => {
    expect(brief(run(at(utils), p))).toBe(want);
  });

  it('names both sizes in a scale-down, and the limits it sits at', () => {
    const v = run(at([10, 10, 10, 10, 10]), hp(1));
    expect(v.message).toBe(
      'load 0.5 GPU(s) over 5 of 5 Ready pod(s) + 1×√0.5 headroom needs 2 replica(s) at max 80%; at the scale-down margin 2×√0.5 headroom needs 3 replica(s) at max 80%; scaling 5 → 3',
    );
    // At minReplicas 3 with a load that needs 1 at β + margin: at the limit, not in the band.
    expect(brief(run(at([0, 0, 0], 3), hp(1)))).toBe('hold AtMinReplicas 3');
    expect(brief(run(at([90, 90, 90], 1, 3), hp(1)))).toBe('hold AtMaxReplicas 3');
  });

  it('the recorded scale-down window re-derives each pass at β + margin', () => {
    const p = policyNoWindows({
      sizing: 'headroom',
      headroomFactor: 1,
      headroomDownMargin: 1,
      scaleDown: { stabilizationWindowSeconds: 300 },
    });
    const opens = scalingRecord(secondsAgo(300), 'hold', 'WithinRange', 5, 5, 10);
    // A hold 100 s ago at 5 × 20 % = 1 GPU: β 1 recommended 3 (2.5); at β 2, (1 + 2) / 0.8 = 3.75 → 4.
    const mid = scalingRecord(secondsAgo(100), 'hold', 'WithinRange', 5, 5, 20);
    const v = run({ ...at([10, 10, 10, 10, 10]), recent: [opens, mid] }, p);
    expect(brief(v)).toBe('scale-down HeadroomSpare 4');
  });
});

describe('flapHold: no scale-up within headroomFlapHoldSeconds of a scale-down', () => {
  const up = at([50, 50, 50]); // 1.5 GPUs at β 1 needs 4 > 3
  it.each<[string, ScalingInput['recent'], number, string]>([
    ['NoScaleDownRecordedScalesUp', [], 300, 'scale-up HeadroomShort 4'],
    ['AScaleDownOneSecondInsideHolds', [downAgo(299)], 300, 'hold WouldFlap 3'],
    ['AScaleDownExactlyTheHoldAgoIsOver', [downAgo(300)], 300, 'scale-up HeadroomShort 4'],
    [
      'ARecentScaleUpDoesNotHold',
      [scalingRecord(secondsAgo(10), 'scale-up', 'HeadroomShort', 2, 3, 90)],
      300,
      'scale-up HeadroomShort 4',
    ],
    ['AScaleDownAfterNowDoesNotCount', [downAgo(-10)], 300, 'scale-up HeadroomShort 4'],
    ['ZeroSecondsIsOff', [downAgo(1)], 0, 'scale-up HeadroomShort 4'],
    // A record without counts (a NoData hold) or one that kept the count is no scale-down.
    [
      'ARecordWithoutATargetCountDoesNotHold',
      [scalingRecord(secondsAgo(10), 'hold', 'NoData', 5, null, null)],
      300,
      'scale-up HeadroomShort 4',
    ],
    [
      'ARecordThatKeptTheCountDoesNotHold',
      [scalingRecord(secondsAgo(10), 'hold', 'WithinRange', 5, 5, 50)],
      300,
      'scale-up HeadroomShort 4',
    ],
    ['AScaleDownRightNowHolds', [downAgo(0)], 300, 'hold WouldFlap 3'],
  ])('%s', (_name, recent, hold, want) => {
    expect(brief(run({ ...up, recent }, hp(0, hold)))).toBe(want);
  });

  it.each<[string, number, string]>([
    // 3 pods at 98.9 % are held; at exactly 99 % (saturated) the load is not served: scale up.
    ['JustBelowSaturatedHolds', 98.9, 'hold WouldFlap 3'],
    ['SaturatedScalesUpInsideTheHold', 99, 'scale-up HeadroomShort 5'],
  ])('%s', (_name, u, want) => {
    expect(brief(run({ ...at([u, u, u]), recent: [downAgo(10)] }, hp(0, 300)))).toBe(want);
  });

  it('says when the replicas went down, and leaves a scale-down alone', () => {
    const f = factsOf({ ...up, recent: [downAgo(120, 6, 3)] }, hp(0, 300));
    expect(flapHold(f, 'why')?.message).toBe(
      'why, but replicas went 6 → 3 120s ago; no scale-up within 300s of a scale-down (headroomFlapHoldSeconds: no flap)',
    );
    expect(brief(run({ ...at([10, 10, 10, 10, 10]), recent: [downAgo(10)] }, hp(0, 300)))).toBe(
      'scale-down HeadroomSpare 2',
    );
  });

  it.each<[string, ScalingInput['recent']]>([
    ['OlderFirst', [downAgo(250, 6, 5), downAgo(100, 5, 4)]],
    ['NewerFirst', [downAgo(100, 5, 4), downAgo(250, 6, 5)]],
  ])('the newest scale-down counts, whatever the order of the records: %s', (_name, recent) => {
    // Hold 200 s: the one 100 s ago holds; the one 250 s ago alone would not.
    const f = factsOf({ ...up, recent }, hp(0, 200));
    expect(flapHold(f, 'why')?.message).toBe(
      'why, but replicas went 5 → 4 100s ago; no scale-up within 200s of a scale-down (headroomFlapHoldSeconds: no flap)',
    );
  });

  it('the shipped policy has the band (margin 0.25) and the hold (300 s) on', () => {
    const s = policy().spec.scaling;
    expect([s.headroomDownMargin, s.headroomFlapHoldSeconds]).toEqual([0.25, 300]);
  });
});
