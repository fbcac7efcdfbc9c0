/**
 * The decision memo's helpers, row by row (`sameInput`, `nextLog`, `sameItems`, …; `fromKept` in
 * `from-kept.test.ts`): fast tests apart from the memo's property tests (`decision-memo.test.ts`),
 * so mutation testing can run them for each mutant without the minute the property tests take.
 */
import { describe, expect, it } from 'vitest';
import {
  algorithm,
  baseInput,
  node,
  pod,
  policyNoWindows,
  RULE_NOW,
  sample,
} from '../../test/scaling/support.js';
import {
  createDecisionMemo,
  heldUntilMs,
  nextLog,
  poolDigests,
  rememberingDecider,
  sameInput,
  sameSamples,
  type DecisionMemo,
} from './decision-memo.js';
import { ownRecords } from './own-records.js';
import { decideOne } from './decide-one.js';
import { toDecisionRecord } from './decision-record.js';
import { sameItems } from './lookups.js';
import type { DecisionRecord, NodeCapacity, ScalingDecision, ScalingInput } from './types.js';

describe('decision-memo helpers', () => {
  it('sameInput: equal for equal inputs (copies, any key order), different when one field moves', () => {
    const base = {
      algorithm: algorithm(),
      pool: 'long-task' as const,
      replicas: 2,
      pods: [],
      samples: [sample('x', 50)],
      recent: [],
    };
    expect(sameInput({ ...base, samples: [sample('x', 50)] }, base)).toBe(true);
    const reordered = Object.fromEntries(
      Object.entries(sample('x', 50)).reverse(),
    ) as (typeof base.samples)[0];
    expect(sameInput({ ...base, samples: [reordered] }, base)).toBe(true);
    expect(sameInput({ ...base, dropped: null, flags: [] }, base)).toBe(true);
    for (const moved of [
      { replicas: 3 },
      { samples: [sample('x', 51)] },
      { samples: [sample('x', 50), sample('y', 50)] },
      // The same value, another pod, time or source window: equal values alone are not equal samples.
      { samples: [sample('y', 50)] },
      { samples: [sample('x', 50, '2025-06-01T12:00:30Z')] },
      { samples: [{ ...sample('x', 50), window: { max: 90, coveredSeconds: 300 } }] },
      { dropped: 'Stale: 1' },
      { poolLoadGpus: 1.5 },
      { pool: 'short-task' as const },
      { currentReplicaSet: 'rs-2' },
      { noDataMessage: 'no GPU metrics' },
      { request: { gpus: 2, cpuMillis: 0, memoryBytes: 0 } },
      { partialData: 'the metrics store answered in part' },
      { refusal: 'exceeded quota' },
      { otherAutoscalers: ['KEDA ScaledObject serve'] },
      { placer: { key: 'taints:a' } as never },
    ]) {
      expect(sameInput({ ...base, ...moved }, base)).toBe(false);
      expect(sameInput(base, { ...base, ...moved })).toBe(false);
    }
  });

  it('nextLog: the same claims in the same order give the same log, any other sequence another', () => {
    const log = (...claims: string[]) => claims.reduce(nextLog, '');
    expect(log('a', 'b')).toBe(log('a', 'b'));
    expect(log('a', 'b')).not.toBe(log('b', 'a'));
    expect(log('ab')).not.toBe(log('a', 'b'));
    expect(log('a')).not.toBe(log());
  });

  it('sameItems: the same objects in the same order', () => {
    const [x, y] = [pod('x'), pod('y')];
    expect(sameItems([x, y], [x, y])).toBe(true);
    expect(sameItems([x, y], [y, x])).toBe(false);
    expect(sameItems([x, y], [x, { ...y }])).toBe(false);
    expect(sameItems([x], [x, y])).toBe(false);
  });
});

describe('sameSamples: equal data only (a value or time compared first)', () => {
  const at = '2025-06-01T12:00:00.000Z';
  const later = '2025-06-01T12:00:30.000Z';
  const base = [
    sample('p-0', 100, at),
    { ...sample('p-1', 40, at), window: { max: 60, coveredSeconds: 300 } },
  ];
  const moved = (i: number, fields: object) => base.map((x, k) => (k === i ? { ...x, ...fields } : { ...x }));
  it.each<[string, ReturnType<typeof moved>, boolean]>([
    ['copies of the same samples', moved(0, {}), true],
    ['a value moved', moved(1, { utilization: 40.3 }), false],
    ['the same value (pinned at 100 %) at a new time', moved(0, { at: later }), false],
    ['the same value and time, another GPU', moved(0, { gpus: ['GPU-9'] }), false],
    [
      'the same value and time, the window moved',
      moved(1, { window: { max: 61, coveredSeconds: 300 } }),
      false,
    ],
    ['the same value and time, another pod', moved(0, { pod: 'p-9' }), false],
    ['one sample fewer', moved(0, {}).slice(1), false],
  ])('%s', (_what, other, expected) => {
    expect(sameSamples(base, other)).toBe(expected);
    expect(sameSamples(other, base)).toBe(expected);
  });
});

describe('ownRecords, poolDigests, heldUntilMs', () => {
  it('ownRecords: the scaling records of that algorithm, in order', () => {
    const r = (subject: string, kind: string, at: string) =>
      ({ ...toDecisionRecord(changeTo(subject), new Date(at)), kind }) as DecisionRecord;
    const recent = [
      r('a', 'scaling', '2025-06-01T12:00:02Z'),
      r('b', 'scaling', '2025-06-01T12:00:00Z'),
      r('a', 'pool', '2025-06-01T12:00:00Z'),
      r('a', 'scaling', '2025-06-01T12:00:01Z'),
    ];
    expect(ownRecords(recent, 'a')).toEqual([recent[0], recent[3]]);
    expect(ownRecords(recent, 'c')).toEqual([]);
  });

  it('poolDigests: one digest per pool, equal for equal nodes, another when a node moves; kept per array', () => {
    const memo = createDecisionMemo();
    const cap = [node('lt-1', 'long-task', 2), node('lt-2', 'long-task', 0), node('u-1', 'unused', 8)];
    const d = poolDigests(memo, cap);
    expect([...d.keys()]).toEqual(['long-task', 'unused']);
    expect(d.get('long-task')).toMatch(/^[0-9a-f]{64}$/);
    expect(d.get('long-task')).not.toBe(d.get('unused'));
    expect(poolDigests(memo, cap)).toBe(d);
    const copy = poolDigests(
      memo,
      cap.map((n) => ({ ...n })),
    );
    expect(copy).not.toBe(d);
    expect(copy).toEqual(d);
    const moved = poolDigests(memo, [cap[0]!, { ...cap[1]!, freeGpus: 1 }, cap[2]!]);
    expect(moved.get('long-task')).not.toBe(d.get('long-task'));
    expect(moved.get('unused')).toBe(d.get('unused'));
    // Both nodes of the pool count, in order.
    expect(poolDigests(memo, [cap[1]!, cap[0]!, cap[2]!]).get('long-task')).not.toBe(d.get('long-task'));
    expect(poolDigests(memo, [cap[0]!, cap[2]!]).get('long-task')).not.toBe(d.get('long-task'));
  });

  it('heldUntilMs: the kept decision’s actionUntilMs; Infinity for an algorithm none is kept of', () => {
    const memo = createDecisionMemo();
    const input = baseInput();
    rememberingDecider(memo)(input.poolNodes)(input, policyNoWindows(), RULE_NOW);
    const e = memo.decisions.get('resnet50-infer')!;
    e.clock.actionUntilMs = 1234;
    expect(heldUntilMs(memo, 'resnet50-infer')).toBe(1234);
    expect(heldUntilMs(memo, 'other')).toBe(Infinity);
  });
});

/** A scale-up of `name` from 1 to 2 (a change). */
function changeTo(name: string): ScalingDecision {
  return {
    algorithm: name,
    action: 'scale-up',
    replicas: { from: 1, to: 2 },
    utilization: 95,
    nodes: [],
    reason: 'AboveMax',
    message: `${name}: above max`,
  };
}

describe('rememberingDecider: reused while its view of capacity holds, decided again (as fresh) otherwise', () => {
  const p = policyNoWindows();
  /** Inputs of `name` in `pool` at `utils` over `cap` (the same algorithm and pod objects pass after pass). */
  function algorithmIn(name: string, pool: 'long-task' | 'short-task', cap: NodeCapacity[]) {
    const base = baseInput();
    const alg = algorithm({ name });
    const at = (utils: number[], pods = base.pods): ScalingInput => ({
      ...base,
      algorithm: alg,
      pool,
      replicas: pods.length,
      pods,
      samples: utils.map((u, i) => sample(pods[i]!.name, u)),
      poolNodes: cap.filter((n) => n.pool === pool),
      unusedNodes: cap.filter((n) => n.pool === 'unused'),
    });
    return at;
  }
  /** One pass over `inputs` with `memo`: each decision (checked equal to deciding afresh), reused, again. */
  function pass(memo: DecisionMemo, cap: NodeCapacity[], inputs: ScalingInput[]) {
    const decide = rememberingDecider(memo)(cap);
    const out = inputs.map((i) => decide(i, p, RULE_NOW));
    for (const [k, d] of out.entries()) expect(d.decision).toEqual(decideOne(inputs[k]!, p, RULE_NOW));
    // The in-band holds kept with a new mean (`fromKept`), named only when there are some.
    const kept = memo.kept > 0 ? { kept: memo.kept } : {};
    return { actions: out.map((d) => d.decision.action), reused: memo.reused, again: memo.again, ...kept };
  }

  it('a claim in a pool changes the view of the algorithms after it in that pool only', () => {
    const cap = [node('lt-1', 'long-task', 2), node('st-1', 'short-task', 4), node('u-1', 'unused', 8)];
    const [a, b, c] = [
      algorithmIn('a', 'long-task', cap),
      algorithmIn('b', 'long-task', cap),
      algorithmIn('c', 'short-task', cap),
    ];
    const memo = createDecisionMemo();
    const calm = [a([50, 50, 50]), b([50, 50, 50]), c([50, 50, 50])];
    expect(pass(memo, cap, calm)).toEqual({ actions: ['hold', 'hold', 'hold'], reused: 0, again: 0 });
    expect(pass(memo, cap, calm)).toEqual({ actions: ['hold', 'hold', 'hold'], reused: 3, again: 0 });
    // a scales up onto lt-1: b, after it in long-task, sees another room; c in short-task does not.
    const hot = [a([95, 95, 95]), calm[1]!, calm[2]!];
    expect(pass(memo, cap, hot)).toEqual({ actions: ['scale-up', 'hold', 'hold'], reused: 1, again: 2 });
    // The same again: a's scale-up is not a quiet hold, but its inputs and the room are as they were.
    expect(pass(memo, cap, hot)).toEqual({ actions: ['scale-up', 'hold', 'hold'], reused: 3, again: 0 });
  });

  it('a view built before a claim or move is not given after it (each pool’s view is kept only until then)', () => {
    const cap = [
      node('lt-1', 'long-task', 0, 'NVIDIA-A100-SXM4-80GB', { allocatableGpus: 8 }),
      node('st-1', 'short-task', 4),
      node('u-1', 'unused', 8),
    ];
    const [a0, a, b, c0, c] = [
      algorithmIn('a0', 'long-task', cap),
      algorithmIn('a', 'long-task', cap),
      algorithmIn('b', 'long-task', cap),
      algorithmIn('c0', 'short-task', cap),
      algorithmIn('c', 'short-task', cap),
    ];
    const memo = createDecisionMemo();
    // c0 and a0 see their pools' views first; then a moves u-1 into long-task.
    const calm = [c0([50, 50, 50]), a0([50, 50, 50]), a([50, 50, 50]), b([50, 50, 50]), c([50, 50, 50])];
    expect(pass(memo, cap, calm)).toMatchObject({ reused: 0, again: 0 });
    expect(pass(memo, cap, calm)).toMatchObject({ reused: 5, again: 0 });
    // b (long-task) and c (short-task) come after the move: their views moved (the unused pool's
    // log is in every view), though a0's and c0's were built for the same pools before it.
    const hot = [calm[0]!, calm[1]!, a([95, 95, 95]), calm[3]!, calm[4]!];
    expect(pass(memo, cap, hot)).toEqual({
      actions: ['hold', 'hold', 'relabel', 'hold', 'hold'],
      reused: 2,
      again: 3,
    });
  });

  it('a node moved in from the unused pool changes the view of every pool after it', () => {
    const cap = [
      node('lt-1', 'long-task', 0, 'NVIDIA-A100-SXM4-80GB', { allocatableGpus: 8 }),
      node('st-1', 'short-task', 4),
      node('u-1', 'unused', 8),
    ];
    const [a, c] = [algorithmIn('a', 'long-task', cap), algorithmIn('c', 'short-task', cap)];
    const memo = createDecisionMemo();
    const calm = [a([50, 50, 50]), c([50, 50, 50])];
    pass(memo, cap, calm);
    // a's samples move within its band: its hold is kept with the new mean, c is reused.
    expect(pass(memo, cap, [a([55, 55, 55]), calm[1]!])).toEqual({
      actions: ['hold', 'hold'],
      reused: 1,
      again: 0,
      kept: 1,
    });
    // a takes u-1: c's view of the unused pool moved, so it is decided again.
    expect(pass(memo, cap, [a([95, 95, 95]), calm[1]!])).toEqual({
      actions: ['relabel', 'hold'],
      reused: 0,
      again: 2,
    });
  });

  it('pod facts are kept only from a decision made on the same pods', () => {
    const cap = [node('lt-1', 'long-task', 8), node('u-1', 'unused', 8)];
    const a = algorithmIn('a', 'long-task', cap);
    const memo = createDecisionMemo();
    pass(memo, cap, [a([50, 50, 50])]);
    // A fourth pod: decided from scratch; then only its samples move: decided on the new pod facts.
    const four = [...baseInput().pods, pod('resnet50-infer-7d9f-3')];
    expect(pass(memo, cap, [a([50, 50, 50, 50], four)])).toMatchObject({ reused: 0, again: 0 });
    expect(pass(memo, cap, [a([10, 10, 10, 10], four)])).toMatchObject({ actions: ['scale-down'], again: 1 });
    expect(pass(memo, cap, [a([12, 12, 12, 12], four)])).toMatchObject({ actions: ['scale-down'], again: 1 });
  });

  it('nextLog separates the log from what is added', () => {
    expect(nextLog('x', 'yz')).not.toBe(nextLog('xy', 'z'));
  });
});
