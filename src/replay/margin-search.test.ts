/**
 * The margins the first-half choice tries (`marginsTried`): the listed ones, then bisection to
 * the least multiple of the resolution that keeps the limits, pinned on both sides of the limit.
 */
import { describe, expect, it } from 'vitest';
import { MARGIN_RESOLUTION, marginsTried } from './margin-search.js';

/** A limit kept from `threshold` on (a larger margin holds more spare: kept at and above it). */
const keptFrom = (threshold: number) => (m: number) => m >= threshold - 1e-12;

/** The margins tried, in order, with a run that returns the margin itself. */
const tried = (listed: number[], threshold: number, resolution?: number) =>
  marginsTried(listed, (m) => m, keptFrom(threshold), resolution).map((r) => r.margin);

const LISTED = [0, 0.25, 0.5, 1, 2];

describe('marginsTried: the listed margins, then the least that keeps the limits to 0.05', () => {
  it.each<[string, number, number[]]>([
    // 1 fails, 2 keeps: 1.5 and 1.75 fail, 1.9, 1.85 and 1.8 keep; 1.75–1.8 is one step.
    ['BetweenListedFindsTheLeastMultipleKept', 1.8, [1.5, 1.75, 1.9, 1.85, 1.8]],
    // Just above a multiple: the same runs, but 1.8 fails, so 1.85 is the least kept.
    ['JustAboveAMultipleTheNextOneIsTheLeast', 1.81, [1.5, 1.75, 1.9, 1.85, 1.8]],
    // Exactly a listed margin: every multiple below it fails, it stays the least.
    ['AtAListedMarginNothingBelowKeeps', 2, [1.5, 1.75, 1.9, 1.95]],
    // 0 keeps: no refinement (nothing below the least listed is tried).
    ['TheLeastListedKeepsNoRefinement', 0, []],
    // None keeps: no refinement.
    ['NoneKeepsNoRefinement', 3, []],
    // Between 0 and 0.25: 0.15, 0.1 (keeps), 0.05 (fails).
    ['BetweenTheFirstTwo', 0.1, [0.15, 0.05, 0.1]],
  ])('%s', (_name, threshold, refined) => {
    const got = tried(LISTED, threshold);
    expect(got.slice(0, LISTED.length)).toEqual(LISTED);
    expect(got.slice(LISTED.length)).toEqual(refined);
    // The least margin tried that keeps the limits is the least multiple of 0.05 at the threshold.
    const least = Math.min(...got.filter((m) => keptFrom(threshold)(m)));
    if (Number.isFinite(least) && threshold > 0 && threshold <= 2)
      expect(least).toBeCloseTo(Math.ceil(threshold / MARGIN_RESOLUTION - 1e-9) * MARGIN_RESOLUTION, 9);
  });

  it('sorts the listed margins, runs a repeated one once and prints clean decimals', () => {
    const got = tried([0.3, 0.1, 0.3], 0.2);
    expect(got).toEqual([0.1, 0.3, 0.2, 0.15]);
  });

  it('listed closer than the resolution: nothing between them to try', () => {
    expect(tried([1, 1.04], 1.02)).toEqual([1, 1.04]);
  });

  it('a coarser resolution stops sooner', () => {
    expect(tried(LISTED, 1.8, 0.25)).toEqual([...LISTED, 1.5, 1.75]);
  });

  it('returns the runs made, never one it did not make, even when the trend breaks', () => {
    // Kept only at 1.5 and 2: bisection meets 1.5 first (kept), then only fails below it.
    const runs = marginsTried(
      LISTED,
      (m) => m,
      (m) => m === 1.5 || m === 2,
    );
    expect(runs.map((r) => r.margin)).toEqual([...LISTED, 1.5, 1.25, 1.4, 1.45]);
    expect(runs.every((r) => r.result === r.margin)).toBe(true);
  });

  it('a resolution that is not positive is an error', () => {
    expect(() => tried(LISTED, 1, 0)).toThrow(/resolution 0 must be positive/);
  });
});
