/**
 * The decision clock, row by row: how long a decision stays what it is with only the clock moving
 * (`untilMs`, `actionUntilMs`) and whether it read the recorded holds, as `changesAt`,
 * `everyPass` and each time-based rule report it. A reused decision is only as right as these
 * times: one reported late keeps a hold past its end.
 */
import { describe, expect, it } from 'vitest';
import {
  baseInput,
  pod,
  policyNoWindows,
  RULE_NOW,
  sample,
  scalingRecord,
  secondsAgo,
} from '../../test/scaling/support.js';
import { decideOneTimed } from './decide-one.js';
import { changesAt, everyPass, type DecisionClock } from './rules/facts.js';
import type { Policy } from '../definitions/index.js';
import type { ScalingInput } from './types.js';

const NOW = RULE_NOW.getTime();
const at = (s: number) => NOW + s * 1000;

describe('changesAt and everyPass', () => {
  const timed = (untilMs = Infinity, actionUntilMs = Infinity) => ({
    nowMs: 1000,
    clock: { untilMs, actionUntilMs, readsHolds: false } as DecisionClock,
  });
  it.each<[string, number, number, number, number, number]>([
    // name, untilMs before, actionUntilMs before, ms, untilMs after, actionUntilMs after
    ['a later time', Infinity, Infinity, 5000, 5000, 5000],
    ['one millisecond after now', Infinity, Infinity, 1001, 1001, 1001],
    ['now itself: ignored', Infinity, Infinity, 1000, Infinity, Infinity],
    ['before now: ignored', Infinity, Infinity, 999, Infinity, Infinity],
    ['after an earlier change: the earlier stays', 3000, 4000, 5000, 3000, 4000],
    ['between the two', 3000, 6000, 5000, 3000, 5000],
    ['the same time again', 5000, 5000, 5000, 5000, 5000],
  ])('changesAt: %s', (_, until, action, ms, wantUntil, wantAction) => {
    const f = timed(until, action);
    changesAt(f, ms);
    expect(f.clock).toEqual({ untilMs: wantUntil, actionUntilMs: wantAction, readsHolds: false });
  });

  it.each<[string, number, number, number | undefined, number, number]>([
    ['no hold end: every pass, the action unchanged', Infinity, Infinity, undefined, 1001, Infinity],
    ['a hold that ends later', Infinity, Infinity, 9000, 1001, 9000],
    ['a hold that ends one millisecond after now', Infinity, Infinity, 1001, 1001, 1001],
    ['a hold that ended now: ignored', Infinity, Infinity, 1000, 1001, Infinity],
    ['a hold that ends after an earlier change', 3000, 4000, 9000, 1001, 4000],
    ['a hold that ends before an earlier change', 3000, 4000, 2000, 1001, 2000],
  ])('everyPass: %s', (_, until, action, actionMs, wantUntil, wantAction) => {
    const f = timed(until, action);
    everyPass(f, actionMs);
    expect(f.clock).toEqual({ untilMs: wantUntil, actionUntilMs: wantAction, readsHolds: false });
  });
});

/** Three pods at `u` %, the band 30–80 %, decided at RULE_NOW under `p` with `recent` recorded. */
function clockOf(p: Policy, u: number, recent: ScalingInput['recent'] = [], change?: Partial<ScalingInput>) {
  const input = { ...baseInput([u, u, u]), recent, ...change };
  const { decision, clock } = decideOneTimed(input, p, RULE_NOW);
  return { reason: decision.reason, to: decision.replicas.to, ...clock };
}

describe('the clock each rule reports', () => {
  const scaleUp = (s: number) => scalingRecord(secondsAgo(s), 'scale-up', 'AboveMax', 2, 3, 95);
  const hold = (s: number, u = 20) => scalingRecord(secondsAgo(s), 'hold', 'StabilizationWindow', 3, 3, u);

  it('in the band with nothing timed: never by the clock alone, no hold read', () => {
    expect(clockOf(policyNoWindows(), 50)).toEqual({
      reason: 'WithinRange',
      to: 3,
      untilMs: Infinity,
      actionUntilMs: Infinity,
      readsHolds: false,
    });
  });

  it('a record dated after now (another clock’s) changes it when it comes due; one before now does not', () => {
    const p = policyNoWindows();
    expect(clockOf(p, 50, [scaleUp(-45)])).toMatchObject({ untilMs: at(45), actionUntilMs: at(45) });
    expect(clockOf(p, 50, [scaleUp(45)])).toMatchObject({ untilMs: Infinity, actionUntilMs: Infinity });
    expect(clockOf(p, 50, [scaleUp(-90), scaleUp(-45)])).toMatchObject({ untilMs: at(45) });
  });

  it('a pod starting: when it turns stuck; a stuck pod: every pass (its age is in the message)', () => {
    const p = policyNoWindows({ podStartupSeconds: 300 });
    const notReady = (startedS: number) => ({
      replicas: 4,
      pods: [
        ...baseInput().pods,
        pod('resnet50-infer-7d9f-3', { ready: false, startedAt: secondsAgo(startedS) }),
      ],
    });
    expect(clockOf(p, 50, [], notReady(100))).toMatchObject({ untilMs: at(200), actionUntilMs: at(200) });
    expect(clockOf(p, 50, [], notReady(299))).toMatchObject({ untilMs: at(1), actionUntilMs: at(1) });
    expect(clockOf(p, 50, [], notReady(300))).toMatchObject({ untilMs: NOW + 1, actionUntilMs: Infinity });
    expect(clockOf(p, 50, [], notReady(400))).toMatchObject({ untilMs: NOW + 1, actionUntilMs: Infinity });
  });

  it('cooldown: every pass while it holds (the message shows its age), the action when it ends', () => {
    const p = policyNoWindows({ scaleUp: { cooldownSeconds: 120 } });
    expect(clockOf(p, 95, [scaleUp(60)])).toEqual({
      reason: 'CooldownActive',
      to: 3,
      untilMs: NOW + 1,
      actionUntilMs: at(60),
      readsHolds: false,
    });
    expect(clockOf(p, 95, [scaleUp(120)])).toMatchObject({ reason: 'AboveMax', untilMs: Infinity });
  });

  it('stabilisation window: read the holds; a record inside changes it when it is the window old', () => {
    const p = policyNoWindows({ scaleDown: { stabilizationWindowSeconds: 300 } });
    // One record reaches back the window, one is inside it (100 s old: out at 200 s from now).
    expect(clockOf(p, 10, [hold(400), hold(100)])).toMatchObject({
      untilMs: at(200),
      actionUntilMs: at(200),
      readsHolds: true,
    });
    // None inside: only what reaches back.
    expect(clockOf(p, 10, [hold(400)])).toMatchObject({ untilMs: Infinity, readsHolds: true });
    // Exactly the window old reaches back, so it changes nothing.
    expect(clockOf(p, 10, [hold(300)])).toMatchObject({ untilMs: Infinity, readsHolds: true });
    // Off: no hold read.
    expect(clockOf(policyNoWindows(), 10, [hold(100)])).toMatchObject({
      readsHolds: false,
      untilMs: Infinity,
    });
  });

  it('peak window: read the holds; a record leaves it one millisecond after it is the window old', () => {
    const p = policyNoWindows({ scaleDown: { peakWindowSeconds: 240 } });
    expect(clockOf(p, 10, [hold(100, 95)])).toMatchObject({
      untilMs: at(140) + 1,
      actionUntilMs: at(140) + 1,
      readsHolds: true,
    });
    // A record already out of the window changes nothing; one dated after now only when due.
    expect(clockOf(p, 10, [hold(300, 95)])).toMatchObject({ untilMs: Infinity, readsHolds: true });
    expect(clockOf(p, 10, [hold(-30, 95)])).toMatchObject({ untilMs: at(30), readsHolds: true });
  });

  it('flap hold (headroom sizing): every pass while it holds, the action when it ends', () => {
    const p = policyNoWindows({ sizing: 'headroom', headroomFlapHoldSeconds: 300 });
    const down = scalingRecord(secondsAgo(100), 'scale-down', 'BelowMin', 4, 3, 20);
    const c = clockOf(p, 90, [down], {
      samples: ['0', '1', '2'].map((i) => sample(`resnet50-infer-7d9f-${i}`, 90)),
    });
    expect(c).toEqual({
      reason: 'WouldFlap',
      to: 3,
      untilMs: NOW + 1,
      actionUntilMs: at(200),
      readsHolds: false,
    });
  });
});
