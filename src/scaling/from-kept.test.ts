/**
 * What a kept decision gives at a later turn (`fromKept`), row by row: `'reused'` (the kept
 * decision itself: its whole input, room and records as they were), the entry of an in-band hold
 * kept with the new mean (only the samples' values moved, the oldest records may have aged out),
 * or null (decide again). Each condition is a row at its boundary; the property tests of
 * `decision-memo.test.ts` compare the memo with deciding afresh over long random sequences.
 */
import { describe, expect, it } from 'vitest';
import { baseInput, policyNoWindows, RULE_NOW, sample } from '../../test/scaling/support.js';
import { createDecisionMemo, fromKept, rememberingDecider, type DecisionEntry } from './decision-memo.js';
import { toDecisionRecord } from './decision-record.js';
import type { DecisionRecord, ScalingInput } from './types.js';

const p = policyNoWindows();
const at = RULE_NOW.getTime();

/** A kept hold (50 % in the band 30–80 %: WithinRange, no node moved), decided at `at`. */
function kept(input: ScalingInput = baseInput()): DecisionEntry {
  const memo = createDecisionMemo();
  rememberingDecider(memo)([...input.poolNodes, ...input.unusedNodes])(input, p, RULE_NOW);
  return memo.decisions.get(input.algorithm.name)!;
}
/** The entry's input as the decider received it (the whole `ScalingInput`, capacity included). */
const inputOf = (e: DecisionEntry) => e.input as ScalingInput;
/** `e`'s input with the three pods' samples at `utils` (the same pods at the same places). */
const moved = (e: DecisionEntry, utils: number[]): ScalingInput => ({
  ...inputOf(e),
  samples: utils.map((u, i) => sample(`resnet50-infer-7d9f-${i}`, u)),
});
const opts = (
  e: DecisionEntry,
  o: Partial<{ room: string; records: DecisionRecord[]; nowMs: number }> = {},
) => ({
  room: e.room,
  records: [...e.records],
  policy: p,
  nowMs: at,
  ...o,
});
/** `fromKept`'s answer as a word: `reused`, `kept` (an entry) or null. */
function answer(
  e: DecisionEntry | undefined,
  input: ScalingInput,
  o: ReturnType<typeof opts>,
): 'reused' | 'kept' | null {
  const out = fromKept(e, input, o);
  return out === 'reused' || out === null ? out : 'kept';
}
const own = (e: DecisionEntry, ms: number) => toDecisionRecord(e.decision, new Date(ms));

describe('fromKept: the kept decision reused only when deciding again certainly gives it', () => {
  it('the kept hold itself: reused; anything that moved: decided again', () => {
    const e = kept();
    expect(e.decision).toMatchObject({ action: 'hold', reason: 'WithinRange', replicas: { from: 3, to: 3 } });
    const input = baseInput();
    expect(answer(e, inputOf(e), opts(e))).toBe('reused');
    expect(answer(undefined, input, opts(e))).toBe(null);
    expect(answer(e, inputOf(e), { ...opts(e), policy: policyNoWindows() })).toBe(null);
    expect(answer(e, { ...inputOf(e), algorithm: { ...e.input.algorithm } }, opts(e))).toBe(null);
    expect(answer(e, inputOf(e), opts(e, { room: `${e.room}x` }))).toBe(null);
    // Equal pods, other objects: the cache hands out the same objects while nothing changed.
    expect(answer(e, { ...inputOf(e), pods: input.pods }, opts(e))).toBe(null);
    expect(answer(e, { ...inputOf(e), replicas: 4 }, opts(e))).toBe(null);
  });

  it('the clock: from the time it was decided, before its untilMs', () => {
    const e = { ...kept(), clock: { untilMs: at + 60_000, actionUntilMs: at + 60_000, readsHolds: false } };
    const rows = [
      [at - 1, null],
      [at, 'reused'],
      [at + 59_999, 'reused'],
      [at + 60_000, null],
    ] as const;
    for (const [nowMs, want] of rows)
      expect(answer(e, inputOf(e), opts(e, { nowMs })), `${nowMs - at}`).toBe(want);
  });

  it('records: the kept ones, then only its own quiet hold recorded since, at a time from then to now', () => {
    const e = kept();
    const earlier = { ...own(e, at - 600_000), action: 'scale-up' as const, replicasTo: 4 };
    const withOld = { ...e, records: [earlier] };
    const rows: [string, DecisionEntry, DecisionRecord[], number, 'reused' | null][] = [
      ['the same records', withOld, [earlier], at, 'reused'],
      ['a kept record gone', withOld, [], at, null],
      ['a kept record changed', withOld, [{ ...earlier, replicasTo: 5 }], at, null],
      ['its own hold recorded when decided', withOld, [earlier, own(e, at)], at, 'reused'],
      ['its own hold recorded at now', withOld, [earlier, own(e, at + 30_000)], at + 30_000, 'reused'],
      ['its own hold recorded twice', withOld, [earlier, own(e, at), own(e, at + 1)], at + 1, 'reused'],
      ['its own hold dated before it was decided', withOld, [earlier, own(e, at - 1)], at, null],
      ['its own hold dated after now', withOld, [earlier, own(e, at + 1)], at, null],
      ['another hold recorded since', withOld, [earlier, { ...own(e, at), reason: 'Cooldown' }], at, null],
      ['a record with a field more', withOld, [earlier, { ...own(e, at), extra: 1 } as never], at, null],
      ['a record before the kept one', withOld, [own(e, at), earlier], at, null],
    ];
    for (const [why, entry, records, nowMs, want] of rows)
      expect(answer(entry, inputOf(entry), opts(entry, { records, nowMs })), why).toBe(want);
  });

  it('records since: not when the kept decision read the holds, changed anything or moved nodes', () => {
    const e = kept();
    const d = e.decision;
    const rows: [string, DecisionEntry, 'reused' | null][] = [
      ['the quiet hold', e, 'reused'],
      ['it read the recorded holds', { ...e, clock: { ...e.clock, readsHolds: true } }, null],
      ['a scale-up', { ...e, decision: { ...d, action: 'scale-up' } }, null],
      ['a hold at another count', { ...e, decision: { ...d, replicas: { from: 3, to: 2 } } }, null],
      ['a hold that moved a node', { ...e, decision: { ...d, nodes: ['u-1'] } }, null],
    ];
    for (const [why, entry, want] of rows) {
      const records = [toDecisionRecord(entry.decision, RULE_NOW)];
      expect(answer(entry, inputOf(entry), opts(entry, { records })), why).toBe(want);
      // With nothing recorded since, each is reused.
      expect(answer(entry, inputOf(entry), opts(entry)), why).toBe('reused');
    }
  });
});

describe('fromKept: an in-band hold kept with the new mean when only the samples moved', () => {
  it('the entry of the kept hold: the new input, mean, time, room and records; the rest kept', () => {
    const e = kept();
    const input = moved(e, [40, 50, 63]);
    const o = opts(e, { room: e.room, nowMs: at + 10_000 });
    const out = fromKept(e, input, o);
    if (out === null || out === 'reused') throw new Error(`kept expected, got ${out}`);
    expect(out.decision).toMatchObject({ action: 'hold', reason: 'WithinRange', utilization: 51 });
    expect(out.decision.message).toContain('utilisation 51% over 3 of 3 Ready pod(s) is within 30–80%');
    expect(out).toMatchObject({ input, records: o.records, decidedAtMs: at + 10_000, inBand: true });
    expect(out.sampled).toEqual(input.samples);
    expect([out.policy, out.algorithm, out.pods, out.clock, out.podFacts, out.claims]).toEqual([
      e.policy,
      e.algorithm,
      e.pods,
      e.clock,
      e.podFacts,
      e.claims,
    ]);
  });

  it.each([
    { utils: [80, 80, 80], want: 'kept' }, // max is in band
    { utils: [80, 80, 80.3], want: null }, // 80.1: above
    { utils: [30, 30, 30], want: 'kept' }, // min is in band
    { utils: [29.7, 30, 30], want: null }, // 29.9: below
  ])('a mean of $utils: $want', ({ utils, want }) => {
    const e = kept();
    expect(answer(e, moved(e, utils), opts(e))).toBe(want);
  });

  it('not an in-band hold (headroom’s, a stuck pod’s): decided again; equal samples are still reused', () => {
    const e = { ...kept(), inBand: false };
    expect(answer(e, moved(e, [55, 55, 55]), opts(e))).toBe(null);
    expect(answer(e, inputOf(e), opts(e))).toBe('reused');
  });

  it('the frame and every field but the samples hold as for reuse', () => {
    const e = { ...kept(), clock: { untilMs: at + 60_000, actionUntilMs: at + 60_000, readsHolds: false } };
    const input = moved(e, [55, 55, 55]);
    const rows: [string, DecisionEntry | undefined, ScalingInput, ReturnType<typeof opts>, 'kept' | null][] =
      [
        ['all as kept', e, input, opts(e), 'kept'],
        ['none kept', undefined, input, opts(e), null],
        ['another policy object', e, input, { ...opts(e), policy: policyNoWindows() }, null],
        ['another algorithm object', e, { ...input, algorithm: { ...input.algorithm } }, opts(e), null],
        ['another room', e, input, opts(e, { room: `${e.room}x` }), null],
        ['equal pods, other objects', e, { ...input, pods: baseInput().pods }, opts(e), null],
        ['another replica count', e, { ...input, replicas: 4 }, opts(e), null],
        ['1 ms before it was decided', e, input, opts(e, { nowMs: at - 1 }), null],
        ['1 ms before its untilMs', e, input, opts(e, { nowMs: at + 59_999 }), 'kept'],
        ['at its untilMs', e, input, opts(e, { nowMs: at + 60_000 }), null],
      ];
    for (const [why, entry, i, o, want] of rows) expect(answer(entry, i, o), why).toBe(want);
  });

  it('samples of other pods, or in another order: decided again', () => {
    const e = kept();
    const input = moved(e, [55, 55, 55]);
    const [a, b, c] = input.samples;
    expect(answer(e, { ...input, samples: [b!, a!, c!] }, opts(e))).toBe(null);
    expect(answer(e, { ...input, samples: [a!, b!, { ...c!, pod: 'resnet50-infer-7d9f-9' }] }, opts(e))).toBe(
      null,
    );
    expect(answer(e, { ...input, samples: [a!, b!] }, opts(e))).toBe(null);
  });

  it('records: the oldest aged out keeps the hold (equal samples too), never reuses it; another writer’s ends it', () => {
    const e = kept();
    const older = { ...own(e, at - 900_000), action: 'scale-up' as const, replicasTo: 3 };
    const old = { ...own(e, at - 600_000), action: 'scale-up' as const, replicasTo: 4 };
    const withOld = { ...e, records: [older, old] };
    const theirs = { ...own(e, at), reason: 'Cooldown' };
    const rows: [string, ScalingInput, DecisionRecord[], 'reused' | 'kept' | null][] = [
      ['same samples, same records', inputOf(e), [older, old], 'reused'],
      ['same samples, the oldest aged out', inputOf(e), [old], 'kept'],
      ['moved samples, the oldest aged out', moved(e, [55, 55, 55]), [old], 'kept'],
      ['moved samples, its own hold since', moved(e, [55, 55, 55]), [older, old, own(e, at)], 'kept'],
      ['moved samples, another record since', moved(e, [55, 55, 55]), [older, old, theirs], null],
      ['moved samples, the newest gone', moved(e, [55, 55, 55]), [older], null],
    ];
    for (const [why, input, records, want] of rows)
      expect(answer(withOld, input, opts(withOld, { records })), why).toBe(want);
  });
});
