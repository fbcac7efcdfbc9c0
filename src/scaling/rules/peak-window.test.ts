import { describe, expect, it } from 'vitest';
import type { DecisionRecord } from '../types.js';
import {
  algorithm,
  baseInput,
  brief,
  factsWith,
  policyNoWindows,
  recordAgo,
} from '../../../test/scaling/support.js';
import type { Target, Verdict } from './facts.js';
import { peakWindow } from './peak-window.js';

const HOUR = 3600;
/** A hold `s` seconds ago on `from` replicas at `u` % (load `from × u` GPU-percent). */
const held = (s: number, from: number, u: number) => recordAgo(s, 'hold', 'WithinRange', from, from, u);
/** The peak window `seconds` long. */
const peak = (seconds: number | undefined = HOUR) =>
  policyNoWindows({ scaleDown: { peakWindowSeconds: seconds } });
/** Four replicas below min. */
const four = baseInput([20, 20, 20, 20]);
/** Four replicas below min; the peak window `seconds` long; the target `to`. */
const run = (recent: DecisionRecord[], to = 3, seconds: number | undefined = HOUR): Verdict | Target =>
  peakWindow(factsWith(recent, peak(seconds), four), { to }, 'why');

describe('peakWindow: no lower than the replicas the window’s highest load needs at max', () => {
  it.each<[string, DecisionRecord[], number, number | undefined, string]>([
    ['OffPassesTheTarget', [held(60, 4, 100)], 3, 0, 'to 3'],
    ['NoRecordPassesTheTarget', [], 3, HOUR, 'to 3'],
    // 4 × 60 = 240 GPU-percent: on 3 replicas exactly 80 % = max → allowed.
    ['PeakExactlyMaxOnTheTargetPasses', [held(600, 4, 60)], 3, HOUR, 'to 3'],
    ['PeakJustAboveMaxOnTheTargetHolds', [held(600, 4, 60.1)], 3, HOUR, 'hold RecentPeak 4'],
    ['RecordExactlyTheWindowOldCounts', [held(HOUR, 4, 90)], 3, HOUR, 'hold RecentPeak 4'],
    ['RecordOneSecondOlderDoesNot', [held(HOUR + 1, 4, 90)], 3, HOUR, 'to 3'],
    // 4 × 40 = 160: 1 replica 160 %, 2 replicas 80 % → stops at 2.
    ['ATargetTooLowStopsWhereThePeakFits', [held(600, 4, 40)], 1, HOUR, 'to 2'],
  ])('%s', (_name, recent, to, seconds, want) => {
    expect(brief(run(recent, to, seconds))).toBe(want);
  });

  it('a target it passes is the same target, its note kept', () => {
    const t = { to: 3, note: ' (kept)' };
    const f = factsWith([held(600, 4, 10)], peak(), four);
    expect(peakWindow(f, t, 'why')).toBe(t);
  });

  it('says why it stops short, and why it holds', () => {
    expect(run([held(600, 4, 40)], 1)).toEqual({
      to: 2,
      note: ' (not 1: the highest load in the last 3600s would put it at 160% > max 80%)',
    });
    const highest = held(600, 4, 60.1);
    expect((run([highest]) as Verdict).message).toBe(
      `why, but the highest load in the last 3600s (60.1% on 4 replica(s) at ${highest.at}) would put 4 → 3 at 80.1% > max 80%; replicas stay at 4`,
    );
  });

  it('max is the algorithm’s own', () => {
    const f = factsWith([held(600, 4, 50)], peak(), { ...four, algorithm: algorithm({ max: 60 }) });
    expect(brief(peakWindow(f, { to: 3 }, 'why'))).toBe('hold RecentPeak 4');
  });
});
