/**
 * The chart's time axis (src/status/chart-scale.ts): the shortest rung that holds the data, its
 * first bucket included, on each side of every rung; the axis from the first sample's bucket (at
 * least 15 min, never longer than 24 h).
 */
import { describe, expect, it } from 'vitest';
import { chartScale } from '../../src/status/chart-scale.js';

const TO = 1_764_000_000;

describe('chartScale', () => {
  it.each([
    ['no data: the shortest window', 0, 900, 10, 300],
    ['data 890 s back fits 15 min with its 10 s bucket', 890, 900, 10, 300],
    ['data 891 s back: 30 min buckets and ticks, the axis from its first 20 s bucket', 891, 900, 20, 300],
    ["the demo's 43 minutes start the axis at their first minute, not an hour back", 2580, 2580, 60, 600],
    ['the first sample mid-bucket: the axis from its bucket', 2590, 2640, 60, 600],
    ["the demo's hour (3,540 s) fits 1 h", 3540, 3540, 60, 600],
    ["3,541 s back needs 2 h buckets; the hour drawn has the hour's ticks", 3541, 3600, 120, 600],
    [
      'an hour of samples a minute apart (3,600 s back): 2 h buckets, 10 min ticks across the hour',
      3600,
      3600,
      120,
      600,
    ],
    ['a day back stays at 24 h', 86_400, 86_400, 900, 14_400],
    ['older than a day is cut at 24 h', 200_000, 86_400, 900, 14_400],
  ])('%s', (_, back, span, bucket, tick) => {
    expect(chartScale(TO, TO - back)).toEqual({
      from: TO - span,
      to: TO,
      bucketSeconds: bucket,
      tickSeconds: tick,
    });
  });
});
