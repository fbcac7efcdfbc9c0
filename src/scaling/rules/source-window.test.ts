import { describe, expect, it } from 'vitest';
import type { ScalingInput } from '../types.js';
import { baseInput, brief, factsOf, policyNoWindows } from '../../../test/scaling/support.js';
import type { Verdict } from './facts.js';
import { sourceWindow } from './source-window.js';

const down300 = policyNoWindows({ scaleDown: { stabilizationWindowSeconds: 300 } });
/** Three pods at 10 % whose source history has highest `max(i)` % and reaches back `covered(i)` s. */
const windowed = (max: (i: number) => number, covered: (i: number) => number | null): ScalingInput => {
  const b = baseInput([10, 10, 10]);
  return {
    ...b,
    samples: b.samples.map((s, i) => ({ ...s, window: { max: max(i), coveredSeconds: covered(i) } })),
  };
};
const run = (input: ScalingInput, p = down300) =>
  sourceWindow(factsOf(input, p), { to: 2, note: ' (n)' }, 'why');

describe('sourceWindow: scale-down stabilisation from the source’s own samples', () => {
  it.each<[string, ScalingInput, string]>([
    [
      'CoverageExactlyTheWindowCounts',
      windowed(
        () => 20,
        () => 300,
      ),
      'to 2',
    ],
    [
      'CoverageOneSecondShortHolds',
      windowed(
        () => 20,
        (i) => (i === 2 ? 299 : 300),
      ),
      'hold StabilizationWindow 3',
    ],
    [
      'AnUnknownStartHolds',
      windowed(
        () => 20,
        (i) => (i === 0 ? null : 400),
      ),
      'hold StabilizationWindow 3',
    ],
    // Means of the pods' highest: (29 + 30 + 31) / 3 = 30 = min → in band, holds.
    [
      'HighestExactlyMinHolds',
      windowed(
        (i) => 29 + i,
        () => 300,
      ),
      'hold StabilizationWindow 3',
    ],
    [
      'HighestJustBelowMinScales',
      windowed(
        (i) => 28.9 + i,
        () => 300,
      ),
      'to 2',
    ],
  ])('%s', (_name, input, want) => {
    expect(brief(run(input))).toBe(want);
  });

  it('without history on every pod, or with the window off, it is the recorded passes’ case', () => {
    const some = windowed(
      () => 20,
      () => 300,
    );
    some.samples[1] = { ...some.samples[1]!, window: undefined };
    expect(run(some)).toBeNull();
    expect(
      run(
        windowed(
          () => 20,
          () => 300,
        ),
        policyNoWindows(),
      ),
    ).toBeNull();
  });

  it.each<[string, ScalingInput, string]>([
    [
      'Short',
      windowed(
        () => 20,
        (i) => 250.7 + i,
      ),
      "why; the source's samples reach back 250s of the 300s scale-down stabilisation window; waits until they cover it",
    ],
    [
      'Unknown',
      windowed(
        () => 20,
        (i) => (i === 0 ? null : 400),
      ),
      "why; the source's samples reach back less than the window of the 300s scale-down stabilisation window; waits until they cover it",
    ],
    [
      'High',
      windowed(
        (i) => 30 + i,
        () => 300,
      ),
      'why; the highest utilisation in the last 300s is 31% ≥ min 30% (scale-down stabilisation window)',
    ],
  ])('message: %s', (_name, input, message) => {
    expect((run(input) as Verdict).message).toBe(message);
  });

  it('a target it lets through keeps its note and says why', () => {
    expect(
      run(
        windowed(
          (i) => 20 + i,
          () => 300,
        ),
      ),
    ).toEqual({
      to: 2,
      note: ' (n)',
      because: ", and below it for the whole 300s stabilisation window (highest 21% in the source's samples)",
    });
  });
});
