/** The targets judged at their boundaries, and the lines printed beside the figures. */
import { describe, expect, it } from 'vitest';
import type { EngineFigures } from '../../src/replay/figures.js';
import { formatVerdicts, verdicts } from '../../src/replay/targets.js';

const fig = (engine: string, o: Partial<EngineFigures>): EngineFigures =>
  ({
    engine,
    utilizationPercent: 60,
    aboveMaxPercent: 1,
    unservedPercent: 0.1,
    flaps: 0,
    ...o,
  }) as EngineFigures;
const okOf = (f: EngineFigures, measure: string) =>
  verdicts([f], null).find((v) => v.measure === measure)!.ok;

describe('verdicts', () => {
  it.each<[string, EngineFigures, string, boolean]>([
    ['PatchUtilisationExactly46Meets', fig('gpuops-patch', { utilizationPercent: 46 }), 'utilisation', true],
    [
      'PatchUtilisationJustBelowMisses',
      fig('gpuops-patch', { utilizationPercent: 45.99 }),
      'utilisation',
      false,
    ],
    ['PatchAboveMaxExactly2Meets', fig('gpuops-patch', { aboveMaxPercent: 2 }), 'pod-time above max', true],
    [
      'PatchAboveMaxJustOverMisses',
      fig('gpuops-patch', { aboveMaxPercent: 2.01 }),
      'pod-time above max',
      false,
    ],
    ['PatchUnservedExactlyHalfMeets', fig('gpuops-patch', { unservedPercent: 0.5 }), 'unserved', true],
    ['PatchUnservedJustOverMisses', fig('gpuops-patch', { unservedPercent: 0.501 }), 'unserved', false],
    ['PatchFourFlapsMeet', fig('gpuops-patch', { flaps: 4 }), 'flaps', true],
    ['PatchFiveFlapsMiss', fig('gpuops-patch', { flaps: 5 }), 'flaps', false],
    ['PrUtilisationExactly38Meets', fig('gpuops-pr', { utilizationPercent: 38 }), 'utilisation', true],
    ['PrUtilisationJustBelowMisses', fig('gpuops-pr', { utilizationPercent: 37.9 }), 'utilisation', false],
    // The 2-hour PR-mode run of the issue: 8.5 % unserved is flagged.
    ['PrUnservedOf8Point5Misses', fig('gpuops-pr', { unservedPercent: 8.528 }), 'unserved', false],
    ['PrUnservedExactly2Meets', fig('gpuops-pr', { unservedPercent: 2 }), 'unserved', true],
    ['HpaHeldToTheServiceLimits', fig('hpa', { unservedPercent: 0.6 }), 'unserved', false],
  ])('%s', (_name, f, measure, ok) => {
    expect(okOf(f, measure)).toBe(ok);
  });

  it('static and the ideal have no targets', () => {
    expect(verdicts([fig('static', {}), fig('ideal', {})], null)).toEqual([]);
  });

  it('the frontier lead: ≥ 3 points meets, n/a misses; the wall time ≤ 300 s', () => {
    const lead = (minLead: number | null) =>
      verdicts([], { minLead, compared: [] }).find((v) => v.measure.startsWith('frontier'))!;
    expect([lead(3).ok, lead(2.9).ok, lead(null).ok, lead(null).figure]).toEqual([true, false, false, 'n/a']);
    expect(verdicts([], null, 300)[0]!.ok).toBe(true);
    expect(verdicts([], null, 301)[0]!.ok).toBe(false);
  });

  it('prints each figure beside its target', () => {
    expect(
      formatVerdicts(
        verdicts([fig('gpuops-pr', { utilizationPercent: 37.94, unservedPercent: 8.528 })], null),
      ),
    ).toBe(
      'MISS  gpuops-pr  utilisation 37.9 % (target ≥ 38 %)\nMISS  gpuops-pr  unserved 8.528 % (target ≤ 2 %)\n',
    );
  });
});
