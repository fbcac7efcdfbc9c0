/**
 * The recorded passes that cooldowns and stabilisation read back: how far back to fetch, what a
 * past pass recommended, and which pass was the last change (each rule at its boundary).
 */
import { describe, expect, it } from 'vitest';
import {
  historySince,
  lastChangeMs,
  recommendationOf,
  type RecommendationBounds,
} from '../../src/scaling/history.js';
import type { DecisionRecord } from '../../src/store/types.js';
import { policy } from './support.js';

const NOW = new Date('2025-06-01T12:00:00Z');
const T = NOW.getTime();

describe('historySince: twice the longest cooldown or window', () => {
  it.each<[string, Parameters<typeof policy>[0], string]>([
    [
      'ScaleUpCooldownLongest',
      {
        scaleUp: { cooldownSeconds: 500, stabilizationWindowSeconds: 1 },
        scaleDown: { cooldownSeconds: 2, stabilizationWindowSeconds: 3 },
      },
      '2025-06-01T11:43:20.000Z',
    ],
    [
      'ScaleUpWindowLongest',
      {
        scaleUp: { cooldownSeconds: 1, stabilizationWindowSeconds: 500 },
        scaleDown: { cooldownSeconds: 2, stabilizationWindowSeconds: 3 },
      },
      '2025-06-01T11:43:20.000Z',
    ],
    [
      'ScaleDownCooldownLongest',
      {
        scaleUp: { cooldownSeconds: 1, stabilizationWindowSeconds: 2 },
        scaleDown: { cooldownSeconds: 500, stabilizationWindowSeconds: 3 },
      },
      '2025-06-01T11:43:20.000Z',
    ],
    [
      'ScaleDownWindowLongest',
      {
        scaleUp: { cooldownSeconds: 1, stabilizationWindowSeconds: 2 },
        scaleDown: { cooldownSeconds: 3, stabilizationWindowSeconds: 500 },
      },
      '2025-06-01T11:43:20.000Z',
    ],
    [
      // Under every sizing: the windows after a reversal hold the policy's for the flap hold.
      'FlapHoldLongestStepSizing',
      {
        sizing: 'step',
        headroomFlapHoldSeconds: 500,
        scaleUp: { cooldownSeconds: 1, stabilizationWindowSeconds: 2 },
        scaleDown: { cooldownSeconds: 3, stabilizationWindowSeconds: 4 },
      },
      '2025-06-01T11:43:20.000Z',
    ],
    [
      'AllOffIsNow',
      {
        headroomFlapHoldSeconds: 0,
        scaleUp: { cooldownSeconds: 0, stabilizationWindowSeconds: 0 },
        scaleDown: { cooldownSeconds: 0, stabilizationWindowSeconds: 0 },
      },
      '2025-06-01T12:00:00.000Z',
    ],
  ])('%s', (_name, scaling, want) => {
    expect(historySince(policy(scaling), NOW)).toBe(want);
  });
});

const b: RecommendationBounds = { min: 30, max: 80, minReplicas: 2, maxReplicas: 6, step: 2 };
const r = (o: Partial<DecisionRecord>): DecisionRecord => ({
  kind: 'scaling',
  subject: 'a',
  action: 'hold',
  reason: 'CooldownActive',
  message: '',
  replicasFrom: 4,
  replicasTo: 4,
  utilization: 50,
  at: NOW.toISOString(),
  ...o,
});

describe('recommendationOf', () => {
  it.each<[string, Partial<DecisionRecord>, number | null]>([
    ['NoReplicaCountIsNoRecommendation', { replicasFrom: null, replicasTo: null }, null],
    ['ChangeRecommendsItsTarget', { action: 'scale-up', reason: 'AboveMax', replicasTo: 5 }, 5],
    ['ChangeWithoutTargetRecommendsItsStart', { action: 'relabel', replicasTo: null }, 4],
    ['CooldownBelowMinRecommendsOneStepDown', { utilization: 29 }, 2],
    ['CooldownBelowMinNeverBelowMinReplicas', { replicasFrom: 3, replicasTo: 3, utilization: 29 }, 2],
    ['CooldownExactlyAtMinRecommendsStaying', { utilization: 30 }, 4],
    ['CooldownAboveMaxRecommendsOneStepUp', { utilization: 81 }, 6],
    ['CooldownAboveMaxNeverAboveMaxReplicas', { replicasFrom: 5, replicasTo: 5, utilization: 81 }, 6],
    ['CooldownExactlyAtMaxRecommendsStaying', { utilization: 80 }, 4],
    ['StabilisationHoldBelowMinRecommendsDown', { reason: 'StabilizationWindow', utilization: 10 }, 2],
    ['StabilisationHoldAboveMaxRecommendsUp', { reason: 'StabilizationWindow', utilization: 90 }, 6],
    ['OtherHoldRecommendsStaying', { reason: 'WouldFlap', utilization: 10 }, 4],
    ['HoldWithoutUtilisationRecommendsStaying', { utilization: null }, 4],
  ])('%s', (_name, o, want) => {
    expect(recommendationOf(r(o), b)).toBe(want);
  });
});

describe('lastChangeMs', () => {
  const at = (s: number) => new Date(T - s * 1000).toISOString();
  it.each<[string, Partial<DecisionRecord>[], number | null]>([
    ['NoRecordsNoChange', [], null],
    ['HoldIsNoChange', [{ at: at(10) }], null],
    ['SameReplicasIsNoChange', [{ action: 'scale-up', replicasTo: 4, at: at(10) }], null],
    ['NoTargetIsNoChange', [{ action: 'scale-up', replicasTo: null, at: at(10) }], null],
    ['RelabelIsAChangeWithSameReplicas', [{ action: 'relabel', at: at(10) }], T - 10_000],
    ['ReplicasChanged', [{ action: 'scale-down', replicasTo: 3, at: at(10) }], T - 10_000],
    [
      'NewestChangeWins',
      [
        { action: 'scale-down', replicasTo: 3, at: at(50) },
        { action: 'scale-up', replicasTo: 5, at: at(20) },
        { action: 'scale-up', replicasTo: 5, at: at(90) },
      ],
      T - 20_000,
    ],
    ['ExactlyNowCounts', [{ action: 'scale-up', replicasTo: 5, at: at(0) }], T],
    [
      'FutureRecordIsIgnored',
      [
        { action: 'scale-up', replicasTo: 5, at: at(-1) },
        { action: 'scale-up', replicasTo: 5, at: at(30) },
      ],
      T - 30_000,
    ],
  ])('%s', (_name, records, want) => {
    expect(lastChangeMs(records.map(r), T)).toBe(want);
  });
});
