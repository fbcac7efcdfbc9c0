import { describe, expect, it } from 'vitest';
import {
  applyBehavior,
  behaviorOf,
  defaultBehavior,
  type BehaviorInput,
} from '../../src/sim/controllers/hpa-behavior.js';

const T = 1_000_000;
const base: BehaviorInput = {
  nowMs: T,
  current: 4,
  desired: 4,
  minReplicas: 1,
  maxReplicas: 100,
  recommendations: [],
  events: [],
  behavior: defaultBehavior(),
};
const ago = (s: number) => T - s * 1000;

describe('applyBehavior (Kubernetes default behaviour)', () => {
  it.each<[string, Partial<BehaviorInput>, number]>([
    ['ScaleUpAtOnceWithinLimits', { current: 4, desired: 8 }, 8],
    ['ScaleUpLimitedTo100PercentOr4Pods', { current: 4, desired: 20 }, 8],
    ['ScaleUpOfOneLimitedTo4Pods', { current: 1, desired: 20 }, 5],
    [
      'ScaleUpCountsPodsAddedInThePeriod',
      { current: 8, desired: 30, events: [{ atMs: ago(10), replicas: 4 }] },
      8,
    ],
    ['ScaleUpPeriodOver', { current: 8, desired: 30, events: [{ atMs: ago(15), replicas: 4 }] }, 16],
    [
      'ScaleDownHeldByHigherRecentRecommendation',
      { current: 8, desired: 2, recommendations: [{ atMs: ago(299), replicas: 6 }] },
      6,
    ],
    [
      'ScaleDownWindowOver',
      { current: 8, desired: 2, recommendations: [{ atMs: ago(300), replicas: 6 }] },
      2,
    ],
    ['ScaleDownBoundedByMinReplicas', { current: 8, desired: 0, minReplicas: 2 }, 2],
    ['ScaleUpBoundedByMaxReplicas', { current: 8, desired: 12, maxReplicas: 10 }, 10],
    [
      'UpWindowZeroIgnoresLowerRecommendations',
      { current: 4, desired: 6, recommendations: [{ atMs: ago(1), replicas: 2 }] },
      6,
    ],
  ])('%s', (_n, patch, want) => {
    expect(applyBehavior({ ...base, ...patch }).replicas).toBe(want);
  });

  it('says why it differs from the recommendation', () => {
    expect(applyBehavior({ ...base, current: 4, desired: 20 }).reason).toBe('ScaleUpLimit');
    expect(
      applyBehavior({ ...base, current: 8, desired: 2, recommendations: [{ atMs: ago(10), replicas: 8 }] })
        .reason,
    ).toBe('ScaleDownStabilized');
    expect(applyBehavior({ ...base, current: 4, desired: 5 }).reason).toBeNull();
  });
});

describe('behaviorOf', () => {
  it('fills fields left out from the defaults and reads the ones given', () => {
    const b = behaviorOf({ scaleDown: { stabilizationWindowSeconds: 60 } });
    expect(b.scaleDown.stabilizationWindowSeconds).toBe(60);
    expect(b.scaleDown.policies).toEqual(defaultBehavior().scaleDown.policies);
    expect(b.scaleUp).toEqual(defaultBehavior().scaleUp);
    expect(behaviorOf({ scaleUp: { selectPolicy: 'Disabled' } }).scaleUp.selectPolicy).toBe('Disabled');
    expect(
      applyBehavior({ ...base, desired: 9, behavior: behaviorOf({ scaleUp: { selectPolicy: 'Disabled' } }) })
        .replicas,
    ).toBe(4);
  });
});
