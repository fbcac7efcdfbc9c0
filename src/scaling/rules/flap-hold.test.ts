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

describe('headroom hysteresis: in band, down only below the target at β + margin', () => {
  // 9 pods at 295 % = 2.95 GPUs (32.8 %, in band) and 10 at 30 % = 3 GPUs (exactly min: in band).
  const edge = [35, 35, 35, 35, 35, 30, 30, 30, 30];
  const nine = [40, 40, 40, 30, 30, 30, 30, 30, 30];
  const ten = Array<number>(10).fill(30);
  it.each<[string, number[], Policy, string]>([
    // 3 GPUs. β 1: (3 + 1.73) / 0.8 = 5.9 → 6; β 2: (3 + 3.46) / 0.8 = 8.1 → 9.
    ['NoMarginGoesToTheTarget', ten, hp(0), 'scale-down HeadroomSpare 6'],
    ['TheMarginStopsShortOfIt', ten, hp(1), 'scale-down HeadroomSpare 9'],
    // 3 × 45 % = 1.35 GPUs: β 1 (1.35 + 1.16) / 0.8 = 3.1 → 4 > 3 scales up, margin or not.
    ['UpIsSizedAtBetaAlone', [45, 45, 45], hp(1), 'scale-up HeadroomShort 4'],
    // 4 × 40 % = 1.6 GPUs: β 1 needs 3.6 → 4; β 2: (1.6 + 2.53) / 0.8 = 5.2 → 6 ≥ 4 holds.
    ['InsideTheBandHolds', [40, 40, 40, 40], hp(1), 'hold WithinRange 4'],
    // 9 pods, 3 GPUs: β 2 needs 8.1 → 9 = 9 holds (the band's edge) ...
    ['TargetAtBetaPlusMarginEqualToReplicasHolds', nine, hp(1), 'hold WithinRange 9'],
    // ... 2.95 GPUs: (2.95 + 3.44) / 0.8 = 7.99 → 8 < 9 scales down.
    ['OneBelowTheBandEdgeScalesDown', edge, hp(1), 'scale-down HeadroomSpare 8'],
    // No load (below min): the target at β, minReplicas.
    ['NoLoadGoesToMinReplicas', [0, 0, 0], hp(3), 'scale-down HeadroomSpare 1'],
    // Exactly at max with β 0 + margin 0: 4 × 80 % = 3.2 GPUs needs exactly 4.
    ['ExactlyAtMaxWithNoBandHolds', [80, 80, 80, 80], hp(0, 0, 0), 'hold WithinRange 4'],
  ])('%s', (_name, utils, p, want) => {
    expect(brief(run(at(utils), p))).toBe(want);
  });

  it('names both sizes in a scale-down, and the limits it sits at', () => {
    const v = run(at(ten), hp(1));
    expect(v.message).toBe(
      'load 3 GPU(s) over 10 of 10 Ready pod(s) + 1×√3 headroom needs 6 replica(s) at max 80%; at the scale-down margin 2×√3 headroom needs 9 replica(s) at max 80%; scaling 10 → 9',
    );
    // At minReplicas 3 with a load that needs 1: at the limit, not in the band.
    expect(brief(run(at([0, 0, 0], 3), hp(1)))).toBe('hold AtMinReplicas 3');
    expect(brief(run(at([90, 90, 90], 1, 3), hp(1)))).toBe('hold AtMaxReplicas 3');
  });

  it('the recorded scale-down window re-derives each pass on its side of min', () => {
    const p = policyNoWindows({
      sizing: 'headroom',
      headroomFactor: 1,
      headroomDownMargin: 1,
      scaleDown: { stabilizationWindowSeconds: 300 },
    });
    const now = at(Array<number>(8).fill(10)); // 0.8 GPUs, below min: (0.8 + 0.89) / 0.8 = 2.1 → 3
    const opens = scalingRecord(secondsAgo(300), 'hold', 'WithinRange', 8, 8, 10);
    // A hold 100 s ago at 8 × 30 % = 2.4 GPUs (in band) recommended β 2's (2.4 + 3.1) / 0.8 = 6.9 → 7 ...
    const inBand = scalingRecord(secondsAgo(100), 'hold', 'WithinRange', 8, 8, 30);
    expect(brief(run({ ...now, recent: [opens, inBand] }, p))).toBe('scale-down HeadroomSpare 7');
    // ... one at 8 × 25 % = 2 GPUs (below min) β 2's 7 stopped at the band's edge, 2 / 0.3 = 6.7 → 6
    // (6 pods at 33 %; β 1's (2 + 1.41) / 0.8 = 4.3 → 5 is under it).
    const below = scalingRecord(secondsAgo(100), 'hold', 'WithinRange', 8, 8, 25);
    expect(brief(run({ ...now, recent: [opens, below] }, p))).toBe('scale-down HeadroomSpare 6');
    expect(brief(run({ ...now, recent: [opens] }, p))).toBe('scale-down HeadroomSpare 3');
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

  it('says when the replicas went down, and lets a scale-down of one replica through', () => {
    const f = factsOf({ ...up, recent: [downAgo(120, 6, 3)] }, hp(0, 300));
    expect(flapHold(f, 'why')?.message).toBe(
      'why, but replicas went 6 → 3 120s ago; no scale-up within 300s of a scale-down (headroomFlapHoldSeconds: no flap)',
    );
    // 5 pods at 10 % ask for 2; within the hold one replica at a time (`repeatedScaleDown`).
    expect(brief(run({ ...at([10, 10, 10, 10, 10]), recent: [downAgo(10)] }, hp(0, 300)))).toBe(
      'scale-down HeadroomSpare 4',
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
