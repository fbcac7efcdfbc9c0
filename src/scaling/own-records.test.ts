/**
 * `isRecordOf` answers as comparing with the built record (`toDecisionRecord`) but its `at` did:
 * the record of the decision itself at any time is one; a record one field away from it (each
 * field, `readyPods` present on one side only, an extra field) is not, so a kept hold is never
 * kept over a record that is not its own.
 */
import { describe, expect, it } from 'vitest';
import { toDecisionRecord } from './decision-record.js';
import { isRecordOf } from './own-records.js';
import type { DecisionRecord, ScalingDecision } from './types.js';

const HOLD: ScalingDecision = {
  algorithm: 'resnet50-infer',
  action: 'hold',
  replicas: { from: 2, to: 2 },
  utilization: 55.25,
  nodes: [],
  reason: 'WithinRange',
  message: 'utilization 55.25% within 30–80%',
  readyPods: 2,
};
const { readyPods: _ready, ...NO_READY } = HOLD;
const AT = new Date('2025-06-01T12:00:30Z');
const own = toDecisionRecord(HOLD, AT);

describe('isRecordOf: the record of the kept decision, compared without building it', () => {
  it.each<[string, ScalingDecision, DecisionRecord, boolean]>([
    ['its own record', HOLD, own, true],
    ['its own record at another time', HOLD, { ...own, at: '2025-06-01T12:31:00.000Z' }, true],
    ['its own record, no Ready pod count on either', NO_READY, toDecisionRecord(NO_READY, AT), true],
    ['another algorithm', HOLD, { ...own, subject: 'bert-train' }, false],
    ['another action', HOLD, { ...own, action: 'scale-up' }, false],
    ['another reason', HOLD, { ...own, reason: 'RecentPeak' }, false],
    ['another message', HOLD, { ...own, message: 'utilization 55.26% within 30–80%' }, false],
    ['replicas from one more', HOLD, { ...own, replicasFrom: 3 }, false],
    ['replicas to one more', HOLD, { ...own, replicasTo: 3 }, false],
    ['utilisation moved by 0.01', HOLD, { ...own, utilization: 55.26 }, false],
    ['utilisation null', HOLD, { ...own, utilization: null }, false],
    ['another Ready pod count', HOLD, { ...own, readyPods: 1 }, false],
    ['a Ready pod count the decision has not', NO_READY, own, false],
    ['no Ready pod count where the decision has one', HOLD, toDecisionRecord(NO_READY, AT), false],
    ['another kind', HOLD, { ...own, kind: 'standby' }, false],
    ['an extra field', NO_READY, { ...toDecisionRecord(NO_READY, AT), extra: 1 } as DecisionRecord, false],
  ])('%s', (_what, d, r, expected) => {
    expect(isRecordOf(r, d)).toBe(expected);
  });
});
