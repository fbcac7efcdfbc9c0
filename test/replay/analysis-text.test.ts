import { describe, expect, it } from 'vitest';
import { formatAnalysis } from '../../src/replay/analysis-text.js';
import type { ReplayAnalysis } from '../../src/replay/analysis.js';
import type { EngineFigures } from '../../src/replay/figures.js';

const fig = (utilizationPercent: number): EngineFigures =>
  ({ engine: 'x', utilizationPercent, aboveMaxPercent: 1, unservedPercent: 0.1, flaps: 0 }) as EngineFigures;
const analysis = (fallback: boolean, margin: number | null = null): ReplayAnalysis => ({
  frontiers: { hpa: [], gpuops: [] },
  gap: { minLead: null, compared: [] },
  chosen: {
    beta: 2.5,
    margin,
    fallback,
    limits: { aboveMaxPercent: 2, unservedPercent: 0.5 },
    firstHalf: fig(40),
    secondHalf: fig(30),
    whole: fig(35),
  },
  model: { hpa: fig(42), gpuops: fig(46) },
});

describe('formatAnalysis: the β chosen on the first half', () => {
  it('names the limits it was chosen under', () => {
    expect(formatAnalysis(analysis(false), { hpaTarget: 55, headroomFactor: 1 })).toContain(
      'β chosen on the first half (highest utilisation at ≤ 2 % above max, ≤ 0.5 % unserved): 2.5\n',
    );
  });

  it('says when no factor kept the limits and the largest stands in', () => {
    const text = formatAnalysis(analysis(true), { hpaTarget: 55, headroomFactor: 1 });
    expect(text).toContain(
      'β chosen on the first half: none kept ≤ 2 % above max, ≤ 0.5 % unserved on it; the largest (2.5) stands in, not a choice\n',
    );
    expect(text).not.toContain('(highest utilisation at');
  });

  it('names the scale-down margin when one was chosen with β', () => {
    expect(formatAnalysis(analysis(false, 0.5), { hpaTarget: 55, headroomFactor: 1 })).toContain(
      'β and scale-down margin chosen on the first half (highest utilisation at ≤ 2 % above max, ≤ 0.5 % unserved): β 2.5, margin 0.5\n',
    );
    expect(formatAnalysis(analysis(true, 2), { hpaTarget: 55, headroomFactor: 1 })).toContain(
      'β and scale-down margin chosen on the first half: none kept ≤ 2 % above max, ≤ 0.5 % unserved on it; the largest (β 2.5, margin 2) stands in, not a choice\n',
    );
  });
});
