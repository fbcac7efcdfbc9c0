/**
 * A headroom scale-down in the scale-down window and right after another (issue 42, the fast
 * loop's frontier): a recorded scale-down recommends its load at β + margin, not its count
 * (`recommendationOf`, `spareReplicas`), and within the flap hold of a scale-down a further one
 * removes one replica at most (`repeatedScaleDown`). Each row at its boundary.
 */
import { describe, expect, it } from 'vitest';
import type { Policy } from '../../definitions/types.js';
import type { ScalingInput } from '../types.js';
import {
  RULE_NOW,
  algorithm,
  baseInput,
  brief,
  factsWith,
  policyNoWindows,
  recordAgo,
} from '../../../test/scaling/support.js';
import { recommendationOf, spareReplicas, type RecommendationBounds } from '../history.js';
import { headroom } from './headroom.js';

const bounds: RecommendationBounds = {
  min: 30,
  max: 80,
  minReplicas: 1,
  maxReplicas: 40,
  step: 1,
  sizing: 'headroom',
  headroomFactor: 1,
  headroomDownMargin: 1,
};
const down = (from: number, to: number, u: number | null) =>
  recordAgo(10, 'scale-down', 'HeadroomSpare', from, to, u);

describe('recommendationOf: a headroom scale-down recommends its load at β + margin', () => {
  it.each<[string, ReturnType<typeof down>, RecommendationBounds, number | null]>([
    // 10 × 20 % = 2 GPUs at β 2: (2 + 2·√2) / 0.8 = 6.04 → 7, under its own count 8.
    ['InBandItsLoadNotItsCount', down(10, 8, 20), bounds, 7],
    // 8 × 10 % = 0.8 GPU (below min) at β 2: (0.8 + 2·0.894) / 0.8 = 3.2 → 4, the whole margin: the
    // band's edge (⌊0.8 / 0.3⌋ = 2) would give 3, the count it went to 3.
    ['BelowMinTheWholeMargin', down(8, 3, 10), bounds, 4],
    // 20 × 20 % = 4 GPUs: (4 + 2·2) / 0.8 = 10 exactly; 4.01 GPUs ask for 11.
    ['ExactlyTenAsksForTen', down(20, 12, 20), bounds, 10],
    ['JustAboveAsksForEleven', down(20, 12, 20.05), bounds, 11],
    // Never above maxReplicas: 40 × 100 % at β 2 would be 66.
    ['WithinTheLimits', down(40, 39, 100), bounds, 40],
    // No utilisation: its count, as every change; a scale-up keeps its count; step sizing too.
    ['WithoutUtilisationItsCount', down(8, 3, null), bounds, 3],
    ['AScaleUpKeepsItsCount', recordAgo(10, 'scale-up', 'HeadroomShort', 3, 8, 10), bounds, 8],
    ['StepSizingKeepsItsCount', down(8, 3, 10), { ...bounds, sizing: 'step' }, 3],
  ])('%s', (_name, record, b, want) => {
    expect(recommendationOf(record, b)).toBe(want);
  });

  it('spareReplicas: no load asks for minReplicas, absent factors count 0', () => {
    expect(spareReplicas(0, bounds)).toBe(1);
    expect(spareReplicas(3.2, { min: 30, max: 80, minReplicas: 1, maxReplicas: 40, step: 1 })).toBe(4);
  });
});

/** Ready pods at `utils` (one GPU each), limits 1..20. */
const at = (utils: number[]): ScalingInput => ({
  ...baseInput(utils),
  algorithm: algorithm({ minReplicas: 1, maxReplicas: 20 }),
});
/** Headroom at β 1, margin 0, the flap hold `hold` seconds, no other window. */
const hp = (hold: number): Policy =>
  policyNoWindows({ sizing: 'headroom', headroomFactor: 1, headroomFlapHoldSeconds: hold });
const downAgo = (s: number) => recordAgo(s, 'scale-down', 'HeadroomSpare', 7, 5, 10);

describe('repeatedScaleDown: within the flap hold of a scale-down, one replica at a time', () => {
  // 5 pods at 10 % = 0.5 GPU: (0.5 + √0.5) / 0.8 = 1.5 → 2 replicas.
  const five = at([10, 10, 10, 10, 10]);
  it.each<[string, ScalingInput['recent'], number, string]>([
    ['NoScaleDownRecordedGoesToTheTarget', [], 300, 'scale-down HeadroomSpare 2'],
    ['OneSecondInsideTheHoldOneReplica', [downAgo(299)], 300, 'scale-down HeadroomSpare 4'],
    ['ExactlyTheHoldAgoIsOver', [downAgo(300)], 300, 'scale-down HeadroomSpare 2'],
    ['AScaleDownRightNowOneReplica', [downAgo(0)], 300, 'scale-down HeadroomSpare 4'],
    ['AScaleDownAfterNowDoesNotCount', [downAgo(-10)], 300, 'scale-down HeadroomSpare 2'],
    ['ZeroSecondsIsOff', [downAgo(1)], 0, 'scale-down HeadroomSpare 2'],
    [
      'ARecentScaleUpDoesNotGuard',
      [recordAgo(10, 'scale-up', 'HeadroomShort', 4, 5, 90)],
      300,
      'scale-down HeadroomSpare 2',
    ],
  ])('%s', (_name, recent, hold, want) => {
    expect(brief(headroom(factsWith(recent, hp(hold), five)))).toBe(want);
  });

  it('a scale-down of one replica is left as it is (3 pods at 10 % go to 2)', () => {
    expect(brief(headroom(factsWith([downAgo(10)], hp(300), at([10, 10, 10]))))).toBe(
      'scale-down HeadroomSpare 2',
    );
  });

  it('says why it stops short, and that the answer changes when the hold ends', () => {
    const f = factsWith([downAgo(100)], hp(300), five);
    const v = headroom(f);
    expect(v.message).toMatch(
      /; scaling 5 → 4 \(not 2: one replica at a time within 300s of the scale-down 7 → 5, headroomFlapHoldSeconds\)$/,
    );
    expect(f.clock.actionUntilMs).toBe(RULE_NOW.getTime() + 200_000);
  });
});
