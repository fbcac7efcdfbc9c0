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
  gpuopsPoint,
  hpaUtilizationAt,
  type FrontierOptions,
  type FrontierPoint,
} from '../../src/replay/frontier.js';
import { patchPolicy } from '../../src/replay/replay-policy.js';
import { sliceTrace, type Trace } from '../../src/replay/trace.js';
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
    expect(c.margin).toBeNull();
    // No limits anyone can keep: the most cautious factor, and it says so.
    const none = chooseOnFirstHalf(trace(), o, { aboveMaxPercent: -1, unservedPercent: -1 });
    expect([none.beta, none.fallback]).toEqual([3, true]);
    expect(() =>
      chooseOnFirstHalf(trace(), { ...o, headroomFactors: [] }, { aboveMaxPercent: 2, unservedPercent: 1 }),
    ).toThrow(/no headroom factors/);
  });
});

describe('chooseOnFirstHalf with scale-down margins', () => {
  it('tries every factor with every margin on the first half and keeps the best pair', async () => {
    const base = await loadDefaultPolicy();
    const s = { mergeDelaySeconds: 600, hpaTarget: 55, headroomFactor: 1 };
    const o: FrontierOptions = {
      hpaTargets: [55],
      headroomFactors: [0, 1],
      headroomDownMargins: [0, 4],
      policyFor: (beta, margin) => patchPolicy(base, s, beta, margin),
      settings: modelSettings(),
    };
    const limits = { aboveMaxPercent: 2, unservedPercent: 0.5 };
    // The margin reaches the policy: at β 0, margin 4 holds more replicas than margin 0.
    const whole = (m: number) => gpuopsPoint(trace(), 0, o, m).figures;
    expect(whole(4).allocatedGpuHours).toBeGreaterThan(whole(0).allocatedGpuHours);
    expect(whole(4).engine).toBe('gpuops@β0+4');
    const c = chooseOnFirstHalf(trace(), o, limits);
    expect(c.fallback).toBe(false);
    expect([0, 4]).toContain(c.margin);
    const first = sliceTrace(trace(), 0, Math.floor((239 * 60) / 2)); // half the span: instants 0..119
    expect(c.firstHalf).toEqual(gpuopsPoint(first, c.beta, o, c.margin!).figures);
    for (const b of o.headroomFactors)
      for (const m of o.headroomDownMargins!) {
        const f = gpuopsPoint(first, b, o, m).figures;
        if (f.aboveMaxPercent <= 2 && f.unservedPercent <= 0.5)
          expect(f.utilizationPercent).toBeLessThanOrEqual(c.firstHalf.utilizationPercent);
      }
    expect(c.whole).toEqual(gpuopsPoint(trace(), c.beta, o, c.margin!).figures);
    // No pair keeps the limits: the largest β with the largest margin stands in.
    const none = chooseOnFirstHalf(trace(), o, { aboveMaxPercent: -1, unservedPercent: -1 });
    expect([none.beta, none.margin, none.fallback]).toEqual([1, 4, true]);
  });
});

describe('chooseOnFirstHalf refines the margin between the listed ones', () => {
  it('chooses the least margin (to 0.05) that keeps the limits on the first half when it beats the listed', async () => {
    const base = await loadDefaultPolicy();
    const s = { mergeDelaySeconds: 600, hpaTarget: 55, headroomFactor: 1 };
    const o: FrontierOptions = {
      hpaTargets: [55],
      headroomFactors: [1],
      headroomDownMargins: [0, 4],
      policyFor: (beta, margin) => patchPolicy(base, s, beta, margin),
      settings: modelSettings(),
    };
    const limits = { aboveMaxPercent: 2, unservedPercent: 0.5 };
    const first = sliceTrace(trace(), 0, Math.floor((239 * 60) / 2));
    const at = (m: number) => gpuopsPoint(first, 1, o, m).figures;
    const keeps = (m: number) => at(m).aboveMaxPercent <= 2 && at(m).unservedPercent <= 0.5;
    // At β 1 margin 0 runs the pods too hot on the first half (2.9 % above max), margin 4 keeps the limits.
    expect([keeps(0), keeps(4)]).toEqual([false, true]);
    const c = chooseOnFirstHalf(trace(), o, limits);
    expect(c.fallback).toBe(false);
    expect([0, 4]).not.toContain(c.margin);
    // The least multiple of 0.05 that keeps them: one step less does not.
    expect(Math.round(c.margin! * 20) / 20).toBe(c.margin);
    expect(keeps(c.margin!)).toBe(true);
    expect(keeps(Math.round((c.margin! - 0.05) * 20) / 20)).toBe(false);
    expect(c.firstHalf).toEqual(at(c.margin!));
    expect(c.firstHalf.utilizationPercent).toBeGreaterThan(at(4).utilizationPercent);
  });
});
