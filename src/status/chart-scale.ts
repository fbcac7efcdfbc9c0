/**
 * The time axis of a utilisation chart (pure): the shortest window of a fixed ladder (15 min to
 * 24 h) that reaches back to the earliest sample or marker, its bucket width (about 60–100 buckets
 * across, so a demo's hour is drawn across the chart, not in its last pixels) and its tick spacing
 * (4–8 ticks, on round clock times).
 */

/** One rung: window, bucket and tick spacing, seconds. */
interface Rung {
  window: number;
  bucket: number;
  tick: number;
}

const MIN = 60;
const HOUR = 3600;

/** The ladder, shortest first; the last is the chart's longest window (24 h). */
export const CHART_SCALES: readonly Rung[] = [
  { window: 15 * MIN, bucket: 10, tick: 5 * MIN },
  { window: 30 * MIN, bucket: 20, tick: 5 * MIN },
  { window: HOUR, bucket: MIN, tick: 10 * MIN },
  { window: 2 * HOUR, bucket: 2 * MIN, tick: 20 * MIN },
  { window: 3 * HOUR, bucket: 2 * MIN, tick: 30 * MIN },
  { window: 6 * HOUR, bucket: 5 * MIN, tick: HOUR },
  { window: 12 * HOUR, bucket: 10 * MIN, tick: 2 * HOUR },
  { window: 24 * HOUR, bucket: 15 * MIN, tick: 4 * HOUR },
];

/**
 * The window, bucket and ticks of a chart ending at `to` whose data starts at `earliest` (epoch
 * seconds). The axis starts at the bucket of the first sample (a demo's 43 minutes are drawn from
 * their first minute, not from an hour back), never later than 15 minutes before `to` and never
 * earlier than the rung's window.
 */
export function chartScale(
  to: number,
  earliest: number,
): { from: number; to: number; bucketSeconds: number; tickSeconds: number } {
  const need = Math.max(0, to - earliest);
  // A rung holds the data when its window reaches back to it; the data's first bucket included.
  const rung =
    CHART_SCALES.find((r) => r.window >= need + r.bucket) ?? CHART_SCALES[CHART_SCALES.length - 1]!;
  const firstBucket = Math.floor(Math.min(earliest, to) / rung.bucket) * rung.bucket;
  const from = Math.max(to - rung.window, Math.min(to - CHART_SCALES[0]!.window, firstBucket));
  // Ticks for the span drawn, which may be shorter than the rung's window: the ladder's finest
  // spacing that puts at most 8 across it.
  const ticks = CHART_SCALES.find((r) => (to - from) / r.tick <= 8) ?? rung;
  return { from, to, bucketSeconds: rung.bucket, tickSeconds: ticks.tick };
}
