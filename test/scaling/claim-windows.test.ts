/**
 * The windows a decision runs with while a Ready standby waits for the algorithm (`claimPolicy`,
 * docs/standby.md): the flap hold and the scale-up cooldown follow a claim's start-up, the
 * scale-down stabilisation window and cooldown stay the policy's own (300 s each, shipped) —
 * not the loop's 2.5·D and D + sample, which an algorithm without a Ready standby keeps. Each
 * window pinned on both sides of its boundary, through `decideOne` (the windows the rules read,
 * not only the policy object handed in).
 *
 * The replay's fast loop: a 5 s signal, 5 s ticks, 60 s cold start-ups, so D = 70 s (the loop's
 * scale-down window 2.5·D = 175 s, its cooldown D + 5 = 75 s); a claim in 5 s, so the claim's
 * D = 15 s (flap hold 2.5·15 = 38 s, scale-up cooldown 5 + 5 = 10 s).
 */
import { describe, expect, it } from 'vitest';
import { decideOne } from '../../src/scaling/decide-one.js';
import type { LoopDelays } from '../../src/scaling/loop-windows.js';
import { claimPolicy } from '../../src/scaling/rules/claim.js';
import type { DecisionRecord } from '../../src/store/types.js';
import type { Policy } from '../../src/definitions/types.js';
import { baseInput, policy, RULE_NOW, scalingRecord, secondsAgo } from './support.js';

const fastLoop: LoopDelays = { sampleSeconds: 5, reactionSeconds: 5, startupSeconds: 60 };
const readyStandby = { ready: 1, claimSeconds: 5 };
const noStandby = { ready: 0, claimSeconds: 5 };

const up = (ago: number) => scalingRecord(secondsAgo(ago), 'scale-up', 'AboveMax', 2, 3, 90);
const down = (ago: number) => scalingRecord(secondsAgo(ago), 'scale-down', 'BelowMin', 4, 3, 20);
const held = (ago: number) => scalingRecord(secondsAgo(ago), 'hold', 'WithinRange', 3, 3, 50);

/** Action and reason of one decision over three pods at `u` % with `recent`, under `p` on the fast loop. */
function decided(p: Policy, u: number, recent: DecisionRecord[]): string {
  const r = decideOne({ ...baseInput([u, u, u]), recent, loop: fastLoop }, p, RULE_NOW);
  return `${r.action} ${r.reason}`;
}

describe('scale-down windows with a Ready standby: the policy’s own 300 s, not the loop’s 175 s / 75 s', () => {
  const shipped = policy();
  const claiming = claimPolicy(shipped, fastLoop, readyStandby);
  const cold = claimPolicy(shipped, fastLoop, noStandby);
  // Three pods at 10 %: below min 30, a scale-down is due once the windows let it.
  it.each<[string, Policy, DecisionRecord[], string]>([
    // The scale-down cooldown (any change): 300 s with a Ready standby.
    ['claim: cooldown one second short', claiming, [up(299)], 'hold CooldownActive'],
    ['claim: cooldown over, the window reached', claiming, [up(300)], 'scale-down BelowMin'],
    // The stabilisation window: a pass 299 s ago recommended 3, so the window keeps 3.
    ['claim: window one second short', claiming, [up(1000), held(299)], 'hold StabilizationWindow'],
    ['claim: window passed', claiming, [up(1000), held(300)], 'scale-down BelowMin'],
    // Without a Ready standby the loop's windows stand (the one-service fast loop's).
    ['no standby: cooldown 75 s, one second short', cold, [up(74)], 'hold CooldownActive'],
    ['no standby: cooldown over, window 175 s not', cold, [up(75)], 'hold StabilizationWindow'],
    ['no standby: window one second short', cold, [up(1000), held(174)], 'hold StabilizationWindow'],
    ['no standby: window passed', cold, [up(1000), held(175)], 'scale-down BelowMin'],
  ])('%s', (_name, p, recent, want) => {
    expect(decided(p, 10, recent)).toBe(want);
  });
});

describe('the flap hold with a Ready standby: the claim’s 38 s (a scale-up after a scale-down is a claim)', () => {
  const headroom = policy({ sizing: 'headroom' });
  const claiming = claimPolicy(headroom, fastLoop, readyStandby);
  const cold = claimPolicy(headroom, fastLoop, noStandby);
  // Three pods at 95 %: a scale-up is due once the flap hold since the last scale-down ends.
  it.each<[string, Policy, DecisionRecord[], string]>([
    ['claim: one second short', claiming, [down(37)], 'hold WouldFlap'],
    ['claim: over', claiming, [down(38)], 'scale-up HeadroomShort'],
    // Without a Ready standby the loop's 2.5·70 = 175 s.
    ['no standby: one second short', cold, [down(174)], 'hold WouldFlap'],
    ['no standby: over', cold, [down(175)], 'scale-up HeadroomShort'],
  ])('%s', (_name, p, recent, want) => {
    expect(decided(p, 95, recent)).toBe(want);
  });
});
