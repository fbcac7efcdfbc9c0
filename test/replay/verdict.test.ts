/**
 * The replay's verdict: the HPA at its best target within the limits, the second half beside the
 * whole, and a sentence that says who wins, by how much, and where gpuops loses. On a slice of the
 * synthetic day, with allocations whose figures are known: the ideal (a winner), static's own pods
 * (within the limits, far less utilisation: a loser) and a third of the ideal's GPUs (over the
 * unserved limit: a loser that says so).
 */
import { describe, expect, it } from 'vitest';
import { computeFigures, idealPoints, staticPoints, type EngineFigures } from '../../src/replay/figures.js';
import { hpaPoint, type FrontierPoint } from '../../src/replay/frontier.js';
import { syntheticDay } from '../../src/replay/synthetic-day.js';
import { sliceTrace } from '../../src/replay/trace.js';
import { bestHpaTarget, formatVerdict, replayVerdict, secondHalfFigures } from '../../src/replay/verdict.js';
import { modelSettings } from './model-settings.js';

const limits = { aboveMaxPercent: 2, unservedPercent: 0.5 };
const point = (parameter: number, util: number, unserved: number, above = 0): FrontierPoint => ({
  parameter,
  figures: { utilizationPercent: util, unservedPercent: unserved, aboveMaxPercent: above } as EngineFigures,
});

describe('bestHpaTarget', () => {
  it.each([
    [
      'the highest utilisation within both limits',
      [point(50, 40, 0.1), point(60, 45, 0.4), point(70, 52, 0.6)],
      60,
      false,
    ],
    ['exactly at the limits is within', [point(50, 40, 0.1), point(65, 48, 0.5, 2)], 65, false],
    ['above max over its limit is out', [point(50, 40, 0.1), point(60, 45, 0.2, 2.01)], 50, false],
    ['none within: the least unserved stands in', [point(60, 45, 0.9), point(50, 40, 0.7)], 50, true],
  ] as const)('%s', (_n, pts, target, fallback) => {
    expect(bestHpaTarget(pts, limits)).toEqual({ target, fallback });
  });
});

const trace = syntheticDay({ seed: 1, hours: 6 });
const settings = modelSettings();
const max = settings.max;

describe('secondHalfFigures', () => {
  it('are the figures of the second half, the state in force at the half carried in', () => {
    const points = idealPoints(trace, max);
    const t0 = trace.instants[0]!.t;
    const half = Math.floor((trace.instants.at(-1)!.t - t0) / 2);
    const second = sliceTrace(trace, half, Infinity);
    // The ideal of the second half alone is the same allocation.
    const expected = computeFigures(second, idealPoints(second, max), {
      engine: 'x',
      max,
      flapWindowSeconds: 300,
    });
    const got = secondHalfFigures(trace, points, 'x', max);
    expect(got.allocatedGpuHours).toBeCloseTo(expected.allocatedGpuHours, 9);
    expect(got.utilizationPercent).toBeCloseTo(expected.utilizationPercent, 9);
    expect(got.offeredGpuHours).toBeCloseTo(expected.offeredGpuHours, 9);
  });
});

describe('replayVerdict', () => {
  const hpa = [40, 50, 60, 70].map((t) => hpaPoint(trace, t, settings));
  const fig = (engine: string, pts: ReturnType<typeof idealPoints>) =>
    computeFigures(trace, pts, { engine, max, flapWindowSeconds: 300 });
  const third = idealPoints(trace, max).map((p) => ({
    ...p,
    allocated: Math.max(1, Math.floor(p.allocated / 3)),
    ready: Math.max(1, Math.floor(p.ready / 3)),
  }));
  const ideal = idealPoints(trace, max);
  const stat = staticPoints(trace);

  it('names the HPA at its best target within the limits, and every gpuops mode beside it, whole and second half', () => {
    const v = replayVerdict({
      trace,
      hpa,
      gpuops: [
        { engine: 'gpuops-patch', figures: fig('gpuops-patch', ideal), points: ideal },
        { engine: 'gpuops-pr', figures: fig('gpuops-pr', stat), points: stat },
      ],
      settings,
      limits,
    });
    const best = bestHpaTarget(hpa, limits);
    expect(v.hpaTarget).toBe(best.target);
    expect(v.rows.map((r) => r.engine)).toEqual(['hpa', 'gpuops-patch', 'gpuops-pr']);
    const h = v.rows[0]!;
    expect(h.whole.utilizationPercent).toBeCloseTo(
      hpa.find((p) => p.parameter === best.target)!.figures.utilizationPercent,
      9,
    );
    const patch = v.rows[1]!;
    const d = patch.whole.utilizationPercent - h.whole.utilizationPercent;
    expect(d).toBeGreaterThan(0);
    expect(v.sentence).toContain(
      `gpuops patch mode wins: ${patch.whole.utilizationPercent.toFixed(1)} % utilisation against ${h.whole.utilizationPercent.toFixed(1)} % (+${d.toFixed(1)} points) with ${(h.whole.allocatedGpuHours - patch.whole.allocatedGpuHours).toFixed(1)} GPU-hours fewer`,
    );
    const pr = v.rows[2]!;
    expect(pr.withinLimits).toBe(true);
    expect(v.sentence).toContain(
      `gpuops pull-request mode loses: ${pr.whole.utilizationPercent.toFixed(1)} % utilisation against`,
    );
    const text = formatVerdict(v);
    expect(text.split('\n')[0]).toMatch(
      /^verdict: gpuops against the HPA at its best target \(same limits: ≤ 2 % of pod-time above max, ≤ 0.5 % unserved\)/,
    );
    expect(text).toContain(`the HPA at its best target, ${best.target} % (model)`);
    expect(text).toContain(
      `${patch.whole.utilizationPercent.toFixed(1)} / ${patch.secondHalf.utilizationPercent.toFixed(1)}`,
    );
  });

  it('a mode over the unserved limit loses, and the sentence says by how much', () => {
    const v = replayVerdict({
      trace,
      hpa,
      gpuops: [{ engine: 'gpuops-pr', figures: fig('gpuops-pr', third), points: third }],
      settings,
      limits,
    });
    const pr = v.rows[1]!;
    expect(pr.whole.unservedPercent).toBeGreaterThan(0.5);
    expect(pr.withinLimits).toBe(false);
    expect(v.sentence).toMatch(
      new RegExp(
        `^gpuops pull-request mode loses: it leaves ${pr.whole.unservedPercent.toFixed(2)} % of the load unserved \\(limit 0\\.5 %\\)`,
      ),
    );
    expect(formatVerdict(v)).toContain('gpuops pull-request mode ✗ limits');
  });
});
