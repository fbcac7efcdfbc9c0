import { describe, expect, it } from 'vitest';
import { policy } from '../../test/scaling/support.js';
import { historyPruneBefore, KEEP_HISTORY_SECONDS } from './history-prune.js';

const NOW = new Date('2026-12-03T12:00:00.000Z');
const before = (seconds: number) => new Date(NOW.getTime() - seconds * 1000).toISOString();
const DAY = 24 * 3600;

describe('historyPruneBefore: what the rules read stays', () => {
  it.each([
    ['the default policy: 7 days', policy(), undefined, before(7 * DAY)],
    ['a 1-day retention', policy(), DAY, before(DAY)],
    [
      'a scale-down window of 4 days reads 8 days back: kept past 7',
      policy({ scaleDown: { stabilizationWindowSeconds: 4 * DAY } }),
      undefined,
      before(8 * DAY),
    ],
    [
      'a peak window of 3.5 days reads exactly 7 days back: 7 days',
      policy({ scaleDown: { peakWindowSeconds: 3.5 * DAY } }),
      undefined,
      before(7 * DAY),
    ],
    [
      'a 1-hour retention with a 1-hour cooldown: its 2 hours',
      policy({ scaleUp: { cooldownSeconds: 3600 }, scaleDown: { peakWindowSeconds: 0 } }),
      3600,
      before(2 * 3600),
    ],
  ])('%s', (_, p, keep, expected) => {
    expect(historyPruneBefore(p, NOW, keep)).toBe(expected);
  });

  it('keeps 7 days by default', () => expect(KEEP_HISTORY_SECONDS).toBe(604_800));

  it.each([0, -1, Number.NaN, Infinity])('refuses keepSeconds %s', (keep) => {
    expect(() => historyPruneBefore(policy(), NOW, keep)).toThrow(RangeError);
  });
});
