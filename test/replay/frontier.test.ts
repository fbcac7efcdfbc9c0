/**
 * The frontiers' arithmetic (the HPA's utilisation at equal unserved load, gpuops's lead) on
 * made-up points, and the first-half choice of β and the model on a trace the test writes.
 */
import { describe, expect, it } from 'vitest';
import { loadDefaultPolicy } from '../../src/definitions/load.js';
import type { EngineFigures } from '../../src/replay/figures.js';
import {
  chooseOnFirstHalf,
  frontierGap,
  hpaUtilizationAt,
  type FrontierOptions,
  type FrontierPoint,
} from '../../src/replay/frontier.js';
import { patchPolicy } from '../../src/replay/replay-policy.js';
import type { Trace } from '../../src/replay/trace.js';
import { modelSettings } from './model-settings.js';

const point = (parameter: number, utilizationPercent: number, unservedPercent: number): FrontierPoint => ({
  parameter,
  figures: { engine: `x@${parameter}`, utilizationPercent, unservedPercent } as EngineFigures,
});
// The HPA: higher targets give more utilisation and more unserved load; 60 % is dominated by 55 %.
const HPA = [point(50, 38, 0.2), point(55, 42, 0.25), point(60, 41, 0.3), point(65, 49, 0.4)];

describe('hpaUtilizationAt: the HPA frontier at equal unserved load', () => {
  it.each<[string, number, { utilization: number; bound: boolean } | null]>([
    ['AtAPointItsUtilisation', 0.2, { utilization: 38, bound: false }],
    ['BetweenTwoPointsLinear', 0.225, { utilization: 40, bound: false }],
    // 60 % (41 at 0.3) lies under 55 % (42 at 0.25): the envelope goes from 55 % to 65 %.
    ['ADominatedPointIsLeftOut', 0.3, { utilization: 42 + (7 * 0.05) / 0.15, bound: false }],
    ['AtTheLastPoint', 0.4, { utilization: 49, bound: false }],
    ['BelowTheLowestUnservedTheLowestPointBoundsIt', 0.05, { utilization: 38, bound: true }],
    ['AboveTheHighestNothingToCompare', 0.41, null],
  ])('%s', (_name, unserved, want) => {
    const got = hpaUtilizationAt(HPA, unserved);
    if (want === null) expect(got).toBeNull();
    else {
      expect(got!.bound).toBe(want.bound);
      expect(got!.utilization).toBeCloseTo(want.utilization, 9);
    }
  });

  it('no HPA point: nothing to compare', () => {
    expect(hpaUtilizationAt([], 0.1)).toBeNull();
  });
});

describe('frontierGap: gpuops lead over 0.05–0.5 % unserved', () => {
  it('compares the points inside the range, both ends included, and gives the smallest lead', () => {
    const gpuops = [point(3, 30, 0.04), point(2, 44, 0.05), point(1, 46, 0.225), point(0.5, 60, 0.5)];
    const gap = frontierGap({ hpa: HPA, gpuops });
    // β 3 is below the range, β 0.5 is above the HPA's highest unserved load (0.4).
    expect(gap.compared.map((c) => [c.beta, c.hpa, c.lead, c.bound])).toEqual([
      [2, 38, 6, true],
      [1, 40, 6, false],
    ]);
    expect(gap.minLead).toBe(6);
  });

  it('no point to compare: the lead is null', () => {
    expect(frontierGap({ hpa: HPA, gpuops: [point(1, 50, 0.01)] }).minLead).toBeNull();
  });
});

/** 4 h at 60 s: a load of 6 GPUs with a 4-GPU swing every 20 minutes. */
function trace(): Trace {
  const instants = Array.from({ length: 240 }, (_, i) => ({
    t: 1_000_000 + i * 60,
    values: Array.from({ length: 10 }, () => 60 + (Math.floor(i / 20) % 2 ? 40 : 0)),
  }));
  return { source: 'synthetic', instants, pods: 10 };
}

describe('chooseOnFirstHalf', () => {
  it('chooses β on the first half and reports it on the second half and the whole', async () => {
    const base = await loadDefaultPolicy();
    const s = { mergeDelaySeconds: 600, hpaTarget: 55, headroomFactor: 1 };
    const o: FrontierOptions = {
      hpaTargets: [55],
      headroomFactors: [0, 1, 3],
      policyFor: (beta) => patchPolicy(base, s, beta),
      settings: modelSettings(),
    };
    const c = chooseOnFirstHalf(trace(), o, { aboveMaxPercent: 2, unservedPercent: 0.5 });
    expect([0, 1, 3]).toContain(c.beta);
    expect(c.firstHalf.aboveMaxPercent).toBeLessThanOrEqual(2);
    expect(c.firstHalf.unservedPercent).toBeLessThanOrEqual(0.5);
    expect(c.secondHalf.offeredGpuHours).toBeCloseTo(c.whole.offeredGpuHours / 2, 0);
    expect(c.fallback).toBe(false);
    // No limits anyone can keep: the most cautious factor, and it says so.
    const none = chooseOnFirstHalf(trace(), o, { aboveMaxPercent: -1, unservedPercent: -1 });
    expect([none.beta, none.fallback]).toEqual([3, true]);
    expect(() =>
      chooseOnFirstHalf(trace(), { ...o, headroomFactors: [] }, { aboveMaxPercent: 2, unservedPercent: 1 }),
    ).toThrow(/no headroom factors/);
  });
});
