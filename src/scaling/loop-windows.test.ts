import { describe, expect, it } from 'vitest';
import { policy, baseInput, scalingRecord, secondsAgo, RULE_NOW } from '../../test/scaling/support.js';
import { decideOne } from './decide-one.js';
import { LOOP_WINDOW_MULTIPLE, loopWindows, withLoopWindows, type LoopDelays } from './loop-windows.js';

/** The shipped windows: scale-down stabilisation, cooldown and flap hold 300 s, scale-up cooldown 120 s. */
const shipped = policy();
const d = (sample: number, reaction: number, startup: number | null): LoopDelays => ({
  sampleSeconds: sample,
  reactionSeconds: reaction,
  startupSeconds: startup,
});
const brief = (w: ReturnType<typeof loopWindows>) =>
  w === null
    ? 'null'
    : `${w.scaleDownStabilizationSeconds}/${w.scaleDownCooldownSeconds}/${w.scaleUpCooldownSeconds}/${w.flapHoldSeconds}`;

describe('loopWindows: k·D for the scale-down windows and the flap hold, sample + reaction for the scale-up cooldown, the policy the ceiling', () => {
  it('k is 3', () => expect(LOOP_WINDOW_MULTIPLE).toBe(3));
  it.each<[string, LoopDelays, string]>([
    // 3 × (5 + 5 + 30) = 120; 5 + 5 = 10.
    ['FastLoop', d(5, 5, 30), '120/120/10/120'],
    // 3 × 100 = 300 exactly the policy's: it stands; 90 s under the scale-up's 120.
    ['KDExactlyThePolicys', d(15, 75, 10), '300/300/90/300'],
    // 3 × 100.33 = 301 > 300: the policy's.
    ['KDJustAboveThePolicys', d(15, 75, 10.34), '300/300/90/300'],
    // 3 × 99.66 = 298.98 → 299 < 300.
    ['KDJustBelowThePolicys', d(15, 75, 9.66), '299/299/90/299'],
    // Today's replay delays: 3 × 105 = 315: the policy's windows; the scale-up cooldown 45.
    ['TodaysReplay', d(15, 30, 60), '300/300/45/300'],
    // Sample + reaction exactly the policy's 120 s, one above it.
    ['FreshExactly120', d(60, 60, 0), '300/300/120/300'],
    ['Fresh121', d(60, 61, 0), '300/300/120/300'],
    // Fractions round up: 3 × 10.1 = 30.3 → 31; 2.1 + 3 = 5.1 → 6.
    ['RoundsUp', d(2.1, 3, 5), '31/31/6/31'],
    ['NoStartupObserved', d(5, 5, null), 'null'],
    ['NegativeDelay', d(-1, 5, 30), 'null'],
    ['NotFinite', d(5, Infinity, 30), 'null'],
    ['AllZero', d(0, 0, 0), '0/0/0/0'],
  ])('%s', (_name, delays, want) => {
    expect(brief(loopWindows(shipped, delays))).toBe(want);
  });

  it('a window the policy turns off stays off', () => {
    const off = policy({ headroomFlapHoldSeconds: 0, scaleDown: { cooldownSeconds: 0 } });
    expect(brief(loopWindows(off, d(5, 5, 30)))).toBe('120/0/10/0');
  });
});

describe('withLoopWindows', () => {
  it('no delays, delays at or above the policy: the same policy object', () => {
    expect(withLoopWindows(shipped, undefined)).toBe(shipped);
    expect(withLoopWindows(shipped, d(60, 60, 200))).toBe(shipped);
  });
  it('the same delays give the same object (the memo compares policies by identity)', () => {
    const a = withLoopWindows(shipped, d(5, 5, 30));
    expect(a).not.toBe(shipped);
    expect(withLoopWindows(shipped, d(5, 5, 30))).toBe(a);
    expect(a.spec.scaling.scaleDown.stabilizationWindowSeconds).toBe(120);
    expect(a.spec.scaling.headroomFlapHoldSeconds).toBe(120);
    expect(a.spec.scaling.scaleUp.cooldownSeconds).toBe(10);
    expect(shipped.spec.scaling.scaleDown.stabilizationWindowSeconds).toBe(300);
  });
});

describe('decideOne follows the loop: a scale-down 130 s after a change', () => {
  // Three pods at 10 % (below min 30), the last change 130 s ago: the shipped 300 s cooldown holds;
  // the fast loop's 120 s cooldown is over, and its 120 s window is spanned by a record 130 s old.
  const recent = [scalingRecord(secondsAgo(130), 'scale-up', 'AboveMax', 2, 3, 90)];
  const input = { ...baseInput([10, 10, 10]), recent };
  it.each<[string, LoopDelays | undefined, string]>([
    ['NoLoop', undefined, 'hold CooldownActive'],
    ['FastLoop', d(5, 5, 30), 'scale-down BelowMin'],
    // 3 × (5 + 5 + 34) = 132 > 130: still cooling down.
    ['JustSlowerLoop', d(5, 5, 34), 'hold CooldownActive'],
  ])('%s', (_name, loop, want) => {
    const r = decideOne(loop ? { ...input, loop } : input, shipped, RULE_NOW);
    expect(`${r.action} ${r.reason}`).toBe(want);
  });
});
