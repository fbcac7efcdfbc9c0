import { describe, expect, it } from 'vitest';
import type { DecisionRecord, ScalingInput } from '../types.js';
import { baseInput, brief, factsOf, policyNoWindows, recordAgo } from '../../../test/scaling/support.js';
import type { Target, Verdict } from './facts.js';
import { recordedWindow, stabilise } from './stabilization-window.js';

const up60 = policyNoWindows({ scaleUp: { stabilizationWindowSeconds: 60 } });
const down300 = policyNoWindows({ scaleDown: { stabilizationWindowSeconds: 300 } });
const input = (utils: number[], recent: DecisionRecord[]): ScalingInput => ({ ...baseInput(utils), recent });

describe('recordedWindow: the most cautious recommendation of the recorded passes', () => {
  it.each<[string, 'up' | 'down', ScalingInput, number, string]>([
    [
      'DownNoPassReachesBackHolds',
      'down',
      input([10, 10, 10], [recordAgo(299, 'hold', 'StabilizationWindow', 3, 3, 10)]),
      2,
      'hold StabilizationWindow 3',
    ],
    [
      'DownAPassExactlyTheWindowOldReachesBack',
      'down',
      input([10, 10, 10], [recordAgo(300, 'hold', 'StabilizationWindow', 3, 3, 10)]),
      2,
      'to 2',
    ],
    [
      'DownTheHighestRecommendationWins',
      'down',
      input(
        [10, 10, 10],
        [recordAgo(400, 'hold', 'WithinRange', 3, 3, 50), recordAgo(100, 'hold', 'WithinRange', 3, 3, 50)],
      ),
      2,
      'hold StabilizationWindow 3',
    ],
    [
      'DownNeverBelowTheTarget',
      'down',
      input(
        [10, 10, 10],
        [recordAgo(400, 'hold', 'WithinRange', 3, 3, 50), recordAgo(100, 'scale-down', 'BelowMin', 3, 1, 10)],
      ),
      2,
      'to 2',
    ],
    // Step sizing: a cooldown hold below min recommended one step down (3 → 2); the target 1 rises to it.
    [
      'DownRisesToTheWindowsHighest',
      'down',
      input(
        [10, 10, 10],
        [recordAgo(400, 'hold', 'WithinRange', 3, 3, 50), recordAgo(100, 'hold', 'CooldownActive', 3, 3, 10)],
      ),
      1,
      'to 2',
    ],
    [
      'UpTheLowestRecommendationWins',
      'up',
      input(
        [95, 95, 95],
        [recordAgo(200, 'hold', 'WithinRange', 3, 3, 70), recordAgo(30, 'hold', 'WithinRange', 3, 3, 70)],
      ),
      4,
      'hold StabilizationWindow 3',
    ],
    [
      'UpAfterAboveMaxForTheWholeWindow',
      'up',
      input(
        [95, 95, 95],
        [
          recordAgo(200, 'hold', 'WithinRange', 3, 3, 70),
          recordAgo(30, 'hold', 'StabilizationWindow', 3, 3, 95),
        ],
      ),
      4,
      'to 4',
    ],
    [
      'UpNeverAboveTheTarget',
      'up',
      input(
        [95, 95, 95],
        [recordAgo(200, 'hold', 'WithinRange', 3, 3, 70), recordAgo(30, 'scale-up', 'AboveMax', 3, 6, 95)],
      ),
      4,
      'to 4',
    ],
    [
      'ARecordWithoutReplicasRecommendsNothing',
      'up',
      input(
        [95, 95, 95],
        [
          recordAgo(200, 'hold', 'WithinRange', 3, 3, 70),
          recordAgo(30, 'hold', 'NotPlaced', null, null, null),
        ],
      ),
      4,
      'to 4',
    ],
    [
      'ARecordFromTheFutureDoesNotCount',
      'up',
      input(
        [95, 95, 95],
        [recordAgo(200, 'hold', 'WithinRange', 3, 3, 70), recordAgo(-30, 'hold', 'WithinRange', 3, 3, 70)],
      ),
      4,
      'to 4',
    ],
    [
      'AFutureRecordDoesNotReachBack',
      'up',
      input([95, 95, 95], [recordAgo(-500, 'hold', 'WithinRange', 3, 3, 70)]),
      4,
      'hold StabilizationWindow 3',
    ],
    [
      'ARecordExactlyNowIsInside',
      'up',
      input(
        [95, 95, 95],
        [recordAgo(120, 'hold', 'WithinRange', 3, 3, 50), recordAgo(0, 'hold', 'WithinRange', 3, 3, 50)],
      ),
      4,
      'hold StabilizationWindow 3',
    ],
  ])('%s', (_name, direction, i, to, want) => {
    expect(
      brief(recordedWindow(factsOf(i, direction === 'up' ? up60 : down300), direction, { to }, 'why')),
    ).toBe(want);
  });

  it('off: the target passes unchanged', () => {
    const t = { to: 4, note: ' (n)' };
    expect(recordedWindow(factsOf(input([95, 95, 95], [])), 'up', t, 'why')).toBe(t);
    expect(recordedWindow(factsOf(input([10, 10, 10], [])), 'down', t, 'why')).toBe(t);
  });

  it('keeps the note of a target it does not move, drops it when it moves it', () => {
    const f = factsOf(
      input(
        [10, 10, 10],
        [recordAgo(400, 'hold', 'WithinRange', 3, 3, 50), recordAgo(100, 'hold', 'CooldownActive', 3, 3, 10)],
      ),
      down300,
    );
    const same: Target = { to: 2, note: ' (n)' };
    expect(recordedWindow(f, 'down', same, 'why')).toBe(same);
    expect(recordedWindow(f, 'down', { to: 1, note: ' (n)' }, 'why')).toEqual({ to: 2 });
  });

  it.each<[string, 'up' | 'down', ScalingInput, string]>([
    [
      'NoPassInstant',
      'down',
      input([10, 10, 10], []),
      'why; one instant is no evidence over the 300s scale-down stabilisation window, and no recorded pass reaches back the 300s scale-down stabilisation window yet',
    ],
    [
      'Highest',
      'down',
      input(
        [10, 10, 10],
        [recordAgo(400, 'hold', 'WithinRange', 3, 3, 50), recordAgo(100, 'hold', 'WithinRange', 3, 3, 50)],
      ),
      'why; the highest recommendation in the last 300s is 3',
    ],
    [
      'Lowest',
      'up',
      input(
        [95, 95, 95],
        [recordAgo(200, 'hold', 'WithinRange', 3, 3, 70), recordAgo(30, 'hold', 'WithinRange', 3, 3, 70)],
      ),
      'why; the lowest recommendation in the last 60s is 3',
    ],
  ])('message: %s', (_name, direction, i, message) => {
    const v = recordedWindow(
      factsOf(i, direction === 'up' ? up60 : down300),
      direction,
      { to: direction === 'up' ? 4 : 2 },
      'why',
    );
    expect((v as Verdict).message).toBe(message);
  });

  it('with the source’s history a missing pass is not called one instant', () => {
    const b = baseInput([95, 95, 95]);
    const i = { ...b, samples: b.samples.map((s) => ({ ...s, window: { max: 95, coveredSeconds: 400 } })) };
    expect((recordedWindow(factsOf(i, up60), 'up', { to: 4 }, 'why') as Verdict).message).toBe(
      'why; no recorded pass reaches back the 60s scale-up stabilisation window yet',
    );
  });
});

describe('stabilise: the source’s samples first for a scale-down, never for a scale-up', () => {
  const b = baseInput([10, 10, 10]);
  const windowed = {
    ...b,
    samples: b.samples.map((s) => ({ ...s, window: { max: 12, coveredSeconds: 300 } })),
  };
  const both = policyNoWindows({
    scaleUp: { stabilizationWindowSeconds: 60 },
    scaleDown: { stabilizationWindowSeconds: 300 },
  });
  it('down with the source’s history scales on it, with no recorded pass at all', () => {
    expect(brief(stabilise(factsOf(windowed, both), 'down', { to: 2 }, 'why'))).toBe('to 2');
  });
  it('up with the same history still needs a recorded pass', () => {
    expect(brief(stabilise(factsOf(windowed, both), 'up', { to: 4 }, 'why'))).toBe(
      'hold StabilizationWindow 3',
    );
  });
});
