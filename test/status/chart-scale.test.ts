/**
 * The chart's time axis (src/status/chart-scale.ts): the shortest window that holds the data, its
 * first bucket included, on each side of every rung; never longer than 24 h.
 */
import { describe, expect, it } from 'vitest';
import { chartScale } from '../../src/status/chart-scale.js';

const TO = 1_764_000_000;

describe('chartScale', () => {
  it.each([
    ['no data: the shortest window', 0, 900, 10, 300],
    ['data 890 s back fits 15 min with its 10 s bucket', 890, 900, 10, 300],
    ['data 891 s back needs 30 min', 891, 1800, 20, 300],
    ["the demo's hour (3,540 s) fits 1 h", 3540, 3600, 60, 600],
    ['3,541 s back needs 2 h', 3541, 7200, 120, 1200],
    ['a day back stays at 24 h', 86_400, 86_400, 900, 14_400],
    ['older than a day is cut at 24 h', 200_000, 86_400, 900, 14_400],
  ])('%s', (_, back, window, bucket, tick) => {
    expect(chartScale(TO, TO - back)).toEqual({
      from: TO - window,
      to: TO,
      bucketSeconds: bucket,
      tickSeconds: tick,
    });
  });
});
