/**
 * The policy's own windows after a reversal (`reversalHoldEndMs`, `factsOn`): a replica change
 * reversing the change before it within the policy's flap window puts the policy's windows back
 * in place of the loop's for that window from the reversing change. Each boundary on both sides:
 * the reversal just inside and just outside the window, the hold's end.
 */
import { describe, expect, it } from 'vitest';
import { baseInput, policy, RULE_NOW, scalingRecord, secondsAgo } from '../../test/scaling/support.js';
import { decideOne } from './decide-one.js';
import { reversalHoldEndMs } from './history.js';
import { scalingFacts } from './rules/facts.js';
import { withLoopWindows, type LoopDelays } from './loop-windows.js';
import { claimPolicy } from './rules/claim.js';
import type { DecisionRecord } from './types.js';

const NOW = RULE_NOW.getTime();
const down = (ago: number, from = 5, to = 4) =>
  scalingRecord(secondsAgo(ago), 'scale-down', 'BelowMin', from, to, 10);
const up = (ago: number, from = 4, to = 5) =>
  scalingRecord(secondsAgo(ago), 'scale-up', 'AboveMax', from, to, 90);
const held = (ago: number) => scalingRecord(secondsAgo(ago), 'hold', 'WithinRange', 5, 5, 50);
const relabel = (ago: number) => scalingRecord(secondsAgo(ago), 'relabel', 'AboveMax', 5, 5, 90);

describe('reversalHoldEndMs: a change reversing the one before it within the window holds for the window', () => {
  it.each<[string, DecisionRecord[], number, number | null]>([
    ['NoRecords', [], 300, null],
    // Down 400 s ago, up 101 s ago: 299 s apart, a reversal; it holds until 300 s after the up.
    ['JustInsideTheWindow', [down(400), up(101)], 300, NOW + 199_000],
    // 300 s apart exactly: no reversal (the replay counts a flap below the window, not at it).
    ['ExactlyTheWindowApart', [down(401), up(101)], 300, null],
    ['UpThenDown', [up(200), down(150)], 300, NOW + 150_000],
    ['SameDirection', [up(200), up(150)], 300, null],
    // The hold's end: the reversing change exactly 300 s old has ended, 1 ms less holds.
    ['HoldEnded', [down(350), up(300)], 300, null],
    ['HoldOneMsBeforeItsEnd', [down(350), up(299.999)], 300, NOW + 1],
    // Holds and node moves change no replica count: they neither reverse nor separate changes.
    ['HoldsAndMovesBetween', [down(200), held(190), relabel(180), up(170)], 300, NOW + 130_000],
    // A newer change in the same direction does not end the older reversal's hold.
    ['ThenOnwards', [down(250), up(200), up(50)], 300, NOW + 100_000],
    // Only the change before it counts: down, up, up: the second up follows an up.
    ['NewerReversalWins', [up(290), down(280), up(100)], 300, NOW + 200_000],
    ['OutOfOrder', [up(101), down(400)], 300, NOW + 199_000],
    // A record after now (another clock's) is not seen until it is due.
    ['AfterNow', [down(100), up(-10)], 300, null],
    ['Off', [down(200), up(100)], 0, null],
    ['NoCounts', [down(200), scalingRecord(secondsAgo(100), 'hold', 'NoData', null, null, null)], 300, null],
  ])('%s', (_name, records, seconds, want) => {
    expect(reversalHoldEndMs(records, NOW, seconds)).toBe(want);
  });
});

const shipped = policy();
const fast: LoopDelays = { sampleSeconds: 5, reactionSeconds: 5, startupSeconds: 30 };

describe('the facts: the loop windows (cooldown 45 s, flap hold 100 s) or, within 300 s of a reversal, the policy own (300 s)', () => {
  const windowsAt = (recent: DecisionRecord[], loop: LoopDelays | null = fast) => {
    const input = { ...baseInput([10, 10, 10]), recent, ...(loop ? { loop } : {}) };
    const f = scalingFacts(input, withLoopWindows(shipped, loop ?? undefined), RULE_NOW, shipped);
    return {
      down: f.scaling.scaleDown.cooldownSeconds,
      flap: f.scaling.headroomFlapHoldSeconds,
      until: f.clock.untilMs,
    };
  };
  const loopOwn: [number, number] = [45, 100];
  const policyOwn: [number, number] = [300, 300];
  it.each<[string, DecisionRecord[], [number, number], number]>([
    ['NoReversal', [down(200)], loopOwn, Infinity],
    ['ReversalJustInside', [down(400), up(101)], policyOwn, NOW + 199_000],
    ['ReversalJustOutside', [down(401), up(101)], loopOwn, Infinity],
    ['HoldOneMsBeforeItsEnd', [down(350), up(299.999)], policyOwn, NOW + 1],
    ['HoldEnded', [down(350), up(300)], loopOwn, Infinity],
  ])('%s', (_name, recent, want, until) => {
    const w = windowsAt(recent);
    expect([w.down, w.flap]).toEqual(want);
    // The decision is kept only until the hold ends (the windows change then).
    expect(w.until).toBe(until);
  });
  it('without a loop the policy stands, reversal or none, and nothing changes at the hold end', () => {
    expect(windowsAt([down(400), up(101)], null)).toEqual({ down: 300, flap: 300, until: Infinity });
  });
});

describe('decideOne on the fast loop: a scale-down 130 s after a scale-up that reversed a scale-down', () => {
  // Three pods at 10 % (below min 30), the last change a scale-up 130 s ago: the loop's 45 s
  // cooldown and 100 s window are over, the policy's 300 s cooldown is not.
  it.each<[string, DecisionRecord[], string]>([
    ['ReversalJustInside', [down(429), up(130)], 'hold CooldownActive'],
    ['ReversalJustOutside', [down(430), up(130)], 'scale-down BelowMin'],
    ['NoScaleDownBefore', [up(130)], 'scale-down BelowMin'],
  ])('%s', (_name, recent, want) => {
    const r = decideOne({ ...baseInput([10, 10, 10]), recent, loop: fast }, shipped, RULE_NOW);
    expect(`${r.action} ${r.reason}`).toBe(want);
  });
});

describe('a Ready standby’s claim windows (claimPolicy) yield to the policy’s own after a reversal too', () => {
  // Headroom sizing, three pods at 95 %: a scale-up is due. The fast loop's flap hold is
  // 2.5 × (5 + 5 + 30) = 100 s; with a Ready standby (a 5 s claim) 2.5 × (5 + 5 + 5) = 38 s; the
  // policy's own 300 s. The last change a scale-down 60 s ago.
  const headroom = policy({ sizing: 'headroom' });
  const claiming = claimPolicy(headroom, fast, { ready: 1, claimSeconds: 5 });
  const downAt = (ago: number) => down(ago, 4, 3);
  const upAt = (ago: number) => up(ago, 3, 4);
  it.each<[string, DecisionRecord[], string]>([
    // No reversal: the claim's 38 s hold is over, the scale-up claims the standby at once.
    ['NoReversal', [downAt(60)], 'scale-up HeadroomShort'],
    // Up 150 s ago, down 60 s ago: a reversal 90 s apart, within 300 s: the policy's 300 s hold.
    ['Reversal', [upAt(150), downAt(60)], 'hold WouldFlap'],
    ['ReversalJustInside', [upAt(359), downAt(60)], 'hold WouldFlap'],
    ['ReversalJustOutside', [upAt(360), downAt(60)], 'scale-up HeadroomShort'],
    // The reversal's hold ends 300 s after the reversing change.
    ['HoldEnded', [upAt(400), downAt(300)], 'scale-up HeadroomShort'],
  ])('%s', (_name, recent, want) => {
    expect(claiming).not.toBe(headroom);
    const r = decideOne({ ...baseInput([95, 95, 95]), recent, loop: fast }, claiming, RULE_NOW);
    expect(`${r.action} ${r.reason}`).toBe(want);
  });
});
