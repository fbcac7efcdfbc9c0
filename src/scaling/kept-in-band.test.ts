/**
 * The in-band hold kept on moved samples (`fromKept`, `inBandAgain`), through the decider, row by
 * row: what it keeps, what ends it, and its clock at the boundary (`fromKept`'s own rows:
 * `from-kept.test.ts`). The property tests of `decision-memo.test.ts` compare it with deciding
 * afresh over long random sequences; these rows name each condition.
 */
import { describe, expect, it } from 'vitest';
import { algorithm, baseInput, node, pod, policy, sample } from '../../test/scaling/support.js';
import { decideOne } from './decide-one.js';
import { toDecisionRecord } from './decision-record.js';
import { createDecisionMemo, rememberingDecider, type DecisionMemo } from './decision-memo.js';
import type { NodeCapacity, ScalingDecision, ScalingInput } from './types.js';

const T0 = Date.parse('2025-06-01T12:00:00Z');
const p = policy({ podStartupSeconds: 300 });
const cap: NodeCapacity[] = [node('lt-1', 'long-task', 2), node('u-1', 'unused', 8)];
const alg = algorithm({ min: 30, max: 80, maxReplicas: 6 });
/** Two Ready pods and one not Ready, started at T0: stuck from T0 + 300 s on (`splitUnready`). */
const pods = [
  pod('resnet50-infer-7d9f-0'),
  pod('resnet50-infer-7d9f-1'),
  pod('resnet50-infer-7d9f-2', { ready: false, startedAt: new Date(T0).toISOString() }),
];
const STUCK_AT = T0 + 300_000;

function input(utils: [number, number], atMs: number, o: Partial<ScalingInput> = {}): ScalingInput {
  const at = new Date(atMs - 3_000).toISOString();
  return {
    ...baseInput(),
    algorithm: alg,
    replicas: 3,
    pods,
    samples: utils.map((u, i) => sample(pods[i]!.name, u, at)),
    poolNodes: cap.filter((n) => n.pool === 'long-task'),
    unusedNodes: cap.filter((n) => n.pool === 'unused'),
    ...o,
  };
}

/** One pass of one algorithm through `memo`: its decision, checked against `decideOne` afresh. */
function pass(memo: DecisionMemo, i: ScalingInput, atMs: number): ScalingDecision {
  const now = new Date(atMs);
  const { decision } = rememberingDecider(memo)(cap)(i, p, now);
  expect(decision).toEqual(decideOne(i, p, now));
  return decision;
}

describe('fromKept through the decider: an in-band hold kept with the new mean, no rule run', () => {
  it('keeps the hold while the mean moves inside the band, with the new utilisation in it', () => {
    const memo = createDecisionMemo();
    pass(memo, input([50, 52], T0 + 10_000), T0 + 10_000);
    const d = pass(memo, input([55, 60], T0 + 20_000), T0 + 20_000);
    expect(memo.kept).toBe(1);
    expect(d).toMatchObject({ action: 'hold', reason: 'WithinRange', utilization: 57.5, readyPods: 2 });
    expect(d.message).toContain('utilisation 57.5% over 2 of 2 Ready pod(s) is within 30–80%');
  });

  it.each([
    { utils: [80, 80] as [number, number], kept: 1, reason: 'WithinRange' }, // max is in band
    { utils: [80, 80.2] as [number, number], kept: 0, reason: 'PodsStarting' }, // 80.1: above
    { utils: [30, 30] as [number, number], kept: 1, reason: 'WithinRange' }, // min is in band
    { utils: [29.8, 30] as [number, number], kept: 0, reason: 'CooldownActive' }, // 29.9: below
  ])('a mean of $utils: kept $kept, $reason', ({ utils, kept, reason }) => {
    const memo = createDecisionMemo();
    // Out of band the rules run: above max the starting pod holds, below min the scale-up's cooldown.
    const recent = [toDecisionRecord(scaleUp(), new Date(T0 - 50_000))];
    pass(memo, input([50, 52], T0 + 10_000, { recent }), T0 + 10_000);
    const d = pass(memo, input(utils, T0 + 20_000, { recent }), T0 + 20_000);
    expect(memo.kept).toBe(kept);
    expect(d.reason).toBe(reason);
  });

  // The one time-based change an in-band hold sees: a starting pod that turns stuck adds its note.
  it.each([
    { offset: -1, kept: 1, stuck: false },
    { offset: 0, kept: 0, stuck: true },
    { offset: 1, kept: 0, stuck: true },
  ])(
    'a pod turning stuck at T0 + 300 s, the pass $offset ms from then: kept $kept',
    ({ offset, kept, stuck }) => {
      const at = STUCK_AT + offset;
      const memo = createDecisionMemo();
      pass(memo, input([50, 52], T0 + 10_000), T0 + 10_000);
      const d = pass(memo, input([55, 60], at), at);
      expect(memo.kept).toBe(kept);
      expect(d.reason).toBe('WithinRange');
      expect(d.message.includes('not Ready past the start-up bound of 300 s')).toBe(stuck);
    },
  );

  it.each([
    ['another pod list', { pods: [...pods.slice(0, 2), pod('resnet50-infer-7d9f-9', { ready: false })] }],
    ['another replica count in Git', { replicas: 4 }],
    ['a partial answer', { partialData: 'answer is partial (store-2 did not answer)' }],
    ['series dropped', { dropped: '1 Stale' }],
    ['another pool', { pool: 'short-task' as const }],
  ])('%s: decided again, not kept', (_, change) => {
    const memo = createDecisionMemo();
    pass(memo, input([50, 52], T0 + 10_000), T0 + 10_000);
    pass(memo, input([55, 60], T0 + 20_000, change), T0 + 20_000);
    expect(memo.kept).toBe(0);
  });

  it('a new record of another writer decides again; its own hold recorded since, or the oldest aged out, keep it', () => {
    const memo = createDecisionMemo();
    const old = toDecisionRecord(scaleUp(), new Date(T0 - 900_000));
    const first = pass(memo, input([50, 52], T0 + 10_000, { recent: [old] }), T0 + 10_000);
    const own = toDecisionRecord(first, new Date(T0 + 10_000));
    // Its own hold recorded, the old change aged out of the history window: kept.
    const second = pass(memo, input([55, 60], T0 + 20_000, { recent: [own] }), T0 + 20_000);
    expect(memo.kept).toBe(1);
    // A change recorded by someone else since: decided again.
    const theirs = toDecisionRecord(scaleUp(), new Date(T0 + 25_000));
    const recent = [own, toDecisionRecord(second, new Date(T0 + 20_000)), theirs];
    pass(memo, input([56, 60], T0 + 30_000, { recent }), T0 + 30_000);
    expect(memo.kept).toBe(0);
  });
});

function scaleUp(): ScalingDecision {
  return {
    algorithm: alg.name,
    action: 'scale-up',
    replicas: { from: 2, to: 3 },
    utilization: 95,
    nodes: [],
    reason: 'AboveMax',
    message: 'up',
  };
}
