import { describe, expect, it } from 'vitest';
import type { Policy } from '../../definitions/types.js';
import type { DecisionRecord, PodSample, ScalingInput } from '../types.js';
import {
  algorithm,
  baseInput,
  brief,
  factsOf,
  node,
  policyNoWindows,
  pod,
  sample,
  scalingRecord,
  secondsAgo,
} from '../../../test/scaling/support.js';
import { recommendationOf } from '../history.js';
import { headroom } from './headroom.js';
import { desiredReplicas } from './sizing.js';

/** Ready pods at `utils` (one GPU each), limits lo..hi, two free GPUs on the pool. */
const at = (utils: number[], lo = 1, hi = 20): ScalingInput => ({
  ...baseInput(utils),
  algorithm: algorithm({ minReplicas: lo, maxReplicas: hi }),
});
const hp = (beta = 1, extra: Parameters<typeof policyNoWindows>[0] = {}): Policy =>
  policyNoWindows({ sizing: 'headroom', headroomFactor: beta, ...extra });
const run = (input: ScalingInput, p: Policy = hp()) => headroom(factsOf(input, p));
const withWindow = (utils: number[], maxes: number[]): ScalingInput => {
  const input = at(utils);
  const samples: PodSample[] = input.samples.map((x, i) => ({
    ...x,
    window: { max: maxes[i]!, coveredSeconds: 300 },
  }));
  return { ...input, samples };
};

describe('headroom: one target up and down', () => {
  it.each<[string, ScalingInput, Policy, string]>([
    // 3 × 50 % = 1.5 GPUs: (1.5 + √1.5) / 0.8 = 3.4 → 4; the pool has 2 free GPUs.
    ['BelowTheTargetScalesUpInBand', at([50, 50, 50]), hp(), 'scale-up HeadroomShort 4'],
    // 2.4 GPUs at β 0: exactly 3 at max holds; 80.1 % asks for a fourth.
    ['ExactlyAtTheTargetHolds', at([80, 80, 80]), hp(0), 'hold WithinRange 3'],
    ['JustAboveTheTargetScalesUp', at([80.1, 80, 80]), hp(0), 'scale-up HeadroomShort 4'],
    // 5 × 10 % = 0.5 GPUs: (0.5 + 0.71) / 0.8 = 1.5 → 2.
    ['AboveTheTargetScalesDownInOneDecision', at([10, 10, 10, 10, 10]), hp(), 'scale-down HeadroomSpare 2'],
    ['ScaleDownStopsAtMinReplicas', at([0, 0, 0], 2), hp(), 'scale-down HeadroomSpare 2'],
    ['AtMinReplicasWithLessLoadHolds', at([0, 0], 2), hp(), 'hold AtMinReplicas 2'],
    ['AtMaxReplicasWithMoreLoadHolds', at([90, 90, 90], 1, 3), hp(), 'hold AtMaxReplicas 3'],
    // (4 × 40 % = 1.6 + √1.6) / 0.8 = 3.6 → 4: in band at 4.
    ['TheTargetItselfHolds', at([40, 40, 40, 40]), hp(), 'hold WithinRange 4'],
    [
      'AScaleUpWaitsForItsCooldown',
      { ...at([50, 50, 50]), recent: [scalingRecord(secondsAgo(10), 'scale-up', 'HeadroomShort', 2, 3, 90)] },
      hp(1, { scaleUp: { cooldownSeconds: 120 } }),
      'hold CooldownActive 3',
    ],
    [
      'AScaleDownWaitsForItsCooldown',
      {
        ...at([10, 10, 10, 10, 10]),
        recent: [scalingRecord(secondsAgo(10), 'scale-up', 'HeadroomShort', 4, 5, 90)],
      },
      hp(1, { scaleDown: { cooldownSeconds: 300 } }),
      'hold CooldownActive 5',
    ],
  ])('%s', (_name, input, p, want) => {
    expect(brief(run(input, p))).toBe(want);
  });

  it('never scales down on partial data, but scales up on the sampled pods alone', () => {
    const down = { ...at([10, 10, 10, 10, 10]), samples: [sample('resnet50-infer-7d9f-0', 10)] };
    expect(brief(run(down))).toBe('hold InsufficientSamples 5');
    // Two of three sampled at 100 %: 2 GPUs, (2 + √2) / 0.8 = 4.3 → 5; the third adds no load.
    const up = {
      ...at([100, 100, 100]),
      samples: [0, 1].map((i) => sample(`resnet50-infer-7d9f-${i}`, 100)),
    };
    const v = run(up, hp(1, {}));
    expect(v.action).toBe('scale-up');
    expect(v.message).toContain('needs 5 replica(s)');
  });

  it('with no room in the pool moves unused nodes in', () => {
    const input = { ...at([90, 90, 90]), poolNodes: [node('lt-1', 'long-task', 0)] };
    const v = run(input);
    expect(v.action).toBe('relabel');
    expect(v.nodes).toEqual(['z-unused-a100']);
  });

  it('the scale-down window from the source: its highest load sizes the target', () => {
    // Now 5 × 10 %; the window's highest 5 × 40 % = 2 GPUs: (2 + √2) / 0.8 = 4.3 → 5 ≥ 5 holds.
    const p = hp(1, { scaleDown: { stabilizationWindowSeconds: 300 } });
    expect(brief(run(withWindow([10, 10, 10, 10, 10], [40, 40, 40, 40, 40]), p))).toBe(
      'hold StabilizationWindow 5',
    );
    // Highest 5 × 20 % = 1 GPU: (1 + 1) / 0.8 = 2.5 → 3, above the 2 the load now needs.
    const v = run(withWindow([10, 10, 10, 10, 10], [20, 20, 20, 20, 20]), p);
    expect(brief(v)).toBe('scale-down HeadroomSpare 3');
    expect(v.message).toContain('(not 2: the highest load in the last 300s (1 GPU(s)');
    // Highest equal to now: the target stands.
    expect(brief(run(withWindow([10, 10, 10, 10, 10], [10, 10, 10, 10, 10]), p))).toBe(
      'scale-down HeadroomSpare 2',
    );
  });

  it('the scale-down window from recorded passes re-derives each hold by headroom', () => {
    const p = hp(1, { scaleDown: { stabilizationWindowSeconds: 300 } });
    const opens = scalingRecord(secondsAgo(300), 'hold', 'WithinRange', 5, 5, 10);
    // A hold 100 s ago at 5 × 40 %: it recommended 5, so nothing goes.
    const busy = scalingRecord(secondsAgo(100), 'hold', 'WithinRange', 5, 5, 40);
    const input = (recent: DecisionRecord[]) => ({ ...at([10, 10, 10, 10, 10]), recent });
    expect(brief(run(input([opens, busy]), p))).toBe('hold StabilizationWindow 5');
    // At 5 × 20 % it recommended 3.
    const mid = scalingRecord(secondsAgo(100), 'hold', 'WithinRange', 5, 5, 20);
    expect(brief(run(input([opens, mid]), p))).toBe('scale-down HeadroomSpare 3');
    // A partial-data hold recommended staying.
    const partial = scalingRecord(secondsAgo(100), 'hold', 'InsufficientSamples', 5, 5, 1);
    expect(brief(run(input([opens, partial]), p))).toBe('hold StabilizationWindow 5');
  });

  it('recommendationOf under headroom: load × GPUs per pod, within the limits', () => {
    const b = { min: 30, max: 80, minReplicas: 1, maxReplicas: 20, step: 1 } as const;
    const rec = (u: number, reason = 'WithinRange', gpus?: number) =>
      recommendationOf(scalingRecord(secondsAgo(1), 'hold', reason, 5, 5, u), {
        ...b,
        sizing: 'headroom',
        headroomFactor: 1,
        ...(gpus === undefined ? {} : { gpus }),
      });
    expect(rec(20)).toBe(3); // 1 GPU: (1 + 1) / 0.8 → 3
    expect(rec(40, 'CooldownActive')).toBe(5); // 2 GPUs: (2 + √2) / 0.8 = 4.3 → 5
    expect(rec(40, 'CooldownActive', 2)).toBe(4); // pods of 2: 4 GPUs, (4 + 2) / 1.6 = 3.75 → 4
    expect(rec(20, 'NoData')).toBe(5);
    expect(rec(20, 'AtMaxReplicas')).toBe(5);
  });

  it('says what it sized on, and what desiredReplicas gives both ways', () => {
    const v = run(at([50, 50, 50]));
    expect(v.message).toBe(
      'load 1.5 GPU(s) over 3 of 3 Ready pod(s) + 1×√1.5 headroom needs 4 replica(s) at max 80%; scaling 3 → 4 on pool long-task',
    );
    const f = factsOf(at([50, 50, 50]), hp());
    expect([desiredReplicas(f, 'up'), desiredReplicas(f, 'down')]).toEqual([4, 4]);
    const pods = [0, 1].map((i) => pod(`resnet50-infer-7d9f-${i}`));
    expect(run({ ...at([50, 50]), pods, replicas: 2 }).to).toBe(3);
  });
});
