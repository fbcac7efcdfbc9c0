import { describe, expect, it } from 'vitest';
import { policy, baseInput, scalingRecord, secondsAgo, RULE_NOW } from '../../test/scaling/support.js';
import { decideOne } from './decide-one.js';
import {
  LOOP_GATE_MULTIPLE,
  LOOP_WINDOW_MULTIPLE,
  loopWindows,
  withLoopWindows,
  type LoopDelays,
} from './loop-windows.js';

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

describe('loopWindows: k·D for the scale-down window and the flap hold, D + sample for the scale-down cooldown, sample + reaction for the scale-up cooldown, the policy the ceiling', () => {
  it('k is 2.5, the gate 3', () => expect([LOOP_WINDOW_MULTIPLE, LOOP_GATE_MULTIPLE]).toEqual([2.5, 3]));
  it.each<[string, LoopDelays, string]>([
    // 2.5 × (5 + 5 + 30) = 100; 40 + 5 = 45; 5 + 5 = 10.
    ['FastLoop', d(5, 5, 30), '100/45/10/100'],
    // 3 × 100 = 300 exactly the policy's window: the loop is too slow, the policy's windows stand.
    ['ThreeDExactlyThePolicysWindow', d(15, 75, 10), 'null'],
    ['ThreeDJustAboveThePolicysWindow', d(15, 75, 10.34), 'null'],
    // 3 × 99.66 = 298.98 < 300: the loop's: 2.5 × 99.66 = 249.15 → 250; 99.66 + 15 = 114.66 → 115.
    ['ThreeDJustBelowThePolicysWindow', d(15, 75, 9.66), '250/115/90/250'],
    // Today's replay delays: 3 × 105 = 315: the policy's windows, every one.
    ['TodaysReplay', d(15, 30, 60), 'null'],
    // Fractions round up: 2.5 × 10.1 = 25.25 → 26; 10.1 + 2.1 = 12.2 → 13; 2.1 + 3 = 5.1 → 6.
    ['RoundsUp', d(2.1, 3, 5), '26/13/6/26'],
    ['NoStartupObserved', d(5, 5, null), 'null'],
    ['NegativeDelay', d(-1, 5, 30), 'null'],
    ['NotFinite', d(5, Infinity, 30), 'null'],
    ['AllZero', d(0, 0, 0), '0/0/0/0'],
  ])('%s', (_name, delays, want) => {
    expect(brief(loopWindows(shipped, delays))).toBe(want);
  });

  it.each<[string, LoopDelays, string]>([
    // The policy's cooldowns (scale-down 45, scale-up 10) are the ceilings: exactly them, one above.
    ['CooldownsExactlyThePolicys', d(5, 5, 30), '100/45/10/100'],
    ['CooldownsOneAbove', d(5, 6, 30), '103/45/10/103'],
    ['CooldownsOneBelow', d(5, 4, 30), '98/44/9/98'],
  ])('%s', (_name, delays, want) => {
    const p = policy({ scaleDown: { cooldownSeconds: 45 }, scaleUp: { cooldownSeconds: 10 } });
    expect(brief(loopWindows(p, delays))).toBe(want);
  });

  it('a window the policy turns off stays off; with no scale-down window the policy stands', () => {
    const off = policy({ headroomFlapHoldSeconds: 0, scaleDown: { cooldownSeconds: 0 } });
    expect(brief(loopWindows(off, d(5, 5, 30)))).toBe('100/0/10/0');
    const noWindow = policy({ scaleDown: { stabilizationWindowSeconds: 0 } });
    expect(brief(loopWindows(noWindow, d(5, 5, 30)))).toBe('null');
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
    expect(a.spec.scaling.scaleDown.stabilizationWindowSeconds).toBe(100);
    expect(a.spec.scaling.scaleDown.cooldownSeconds).toBe(45);
    expect(a.spec.scaling.headroomFlapHoldSeconds).toBe(100);
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
    // D + sample = 90 + 40 = 130 exactly: the cooldown is over, but the 225 s window has no
    // record reaching back; 130.01 → 131 s: still cooling down.
    ['CooldownExactly130', d(40, 5, 45), 'hold StabilizationWindow'],
    ['Cooldown131', d(40, 5, 45.01), 'hold CooldownActive'],
  ])('%s', (_name, loop, want) => {
    const r = decideOne(loop ? { ...input, loop } : input, shipped, RULE_NOW);
    expect(`${r.action} ${r.reason}`).toBe(want);
  });
});

describe('decideOne on the fast loop: a headroom scale-down 45 s after another', () => {
  // 3 pods at 10 % (0.3 GPU, below min): β 1 + margin 0.25 asks for 2. The last change, a
  // scale-down 4 → 3 at 10 % (0.4 GPU: (0.4 + 1.25·√0.4) / 0.8 = 1.5 → 2), was `ago` s ago; a
  // hold 130 s ago spans the 100 s window. Read as its load it recommends 2, as its count 3.
  const headroom = policy({ sizing: 'headroom' });
  const recent = (ago: number) => [
    scalingRecord(secondsAgo(130), 'hold', 'WithinRange', 3, 3, 10),
    scalingRecord(secondsAgo(ago), 'scale-down', 'HeadroomSpare', 4, 3, 10),
  ];
  it.each<[string, number, LoopDelays | undefined, string]>([
    ['NoLoopThePolicysCooldown', 45, undefined, 'hold CooldownActive 3'],
    ['FastLoopOneSecondInsideTheCooldown', 44, d(5, 5, 30), 'hold CooldownActive 3'],
    ['FastLoopTheCooldownOver', 45, d(5, 5, 30), 'scale-down HeadroomSpare 2'],
  ])('%s', (_name, ago, loop, want) => {
    const input = { ...baseInput([10, 10, 10]), recent: recent(ago) };
    const r = decideOne(loop ? { ...input, loop } : input, headroom, RULE_NOW);
    expect(`${r.action} ${r.reason} ${r.replicas.to}`).toBe(want);
  });
});
