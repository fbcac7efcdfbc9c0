/**
 * The statistics of a utilisation trace that a replay's verdict depends on (pure): its level and
 * spread, its daily swing, its jumps and how fast they revert, and its replica churn. docs/replay.md
 * gives them for the real trace and for the synthetic day (`synthetic-day.ts`), and a test holds the
 * synthetic day to the real trace's published figures.
 *
 * Units: utilisation in percent of one GPU, load in GPU-equivalents (the sum of the pods' values
 * ÷ 100), hours from the trace's first instant.
 */
import { offeredLoad, type Trace } from './trace.js';

/** See the module comment. */
export interface TraceStats {
  instants: number;
  hours: number;
  /** Pods reporting at an instant. */
  pods: { min: number; median: number; max: number };
  /** Share of instants whose pod count differs from the instant before (0..1). */
  countChanges: number;
  /** Every pod sample: mean, share exactly 0, 90th and 99th percentiles (percent). */
  samples: { mean: number; zeroShare: number; p90: number; p99: number };
  /** The summed load at an instant (GPU-equivalents). */
  load: { mean: number; median: number; p90: number; max: number };
  /** Mean utilisation of the reporting pods, averaged per hour from the start (percent), one entry per hour. */
  hourly: number[];
  /**
   * The load's deviation from its centred one-hour mean: sd relative to the mean load, its
   * autocorrelation one and ten instants apart, jumps (rises above 2 sd) per hour, and the median
   * instants a jump takes to come back within 1 sd.
   */
  jumps: { relativeSd: number; lag1: number; lag10: number; perHour: number; revertInstants: number };
}

const quantile = (xs: readonly number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? 0;
};
const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

function autocorrelation(x: readonly number[], lag: number): number {
  const mu = mean(x);
  let v = 0;
  let c = 0;
  for (let i = 0; i < x.length; i++) v += (x[i]! - mu) ** 2;
  for (let i = 0; i + lag < x.length; i++) c += (x[i]! - mu) * (x[i + lag]! - mu);
  return v === 0 ? 0 : c / v;
}

/** The jumps of the load about its centred mean over `window` instants (see {@link TraceStats}). */
function jumpsOf(load: readonly number[], window: number, hours: number): TraceStats['jumps'] {
  const half = Math.floor(window / 2);
  const prefix = [0];
  for (const x of load) prefix.push(prefix[prefix.length - 1]! + x);
  const dev = load.map((x, i) => {
    const a = Math.max(0, i - half);
    const b = Math.min(load.length, i + half + 1);
    return x - (prefix[b]! - prefix[a]!) / (b - a);
  });
  const sd = Math.sqrt(mean(dev.map((d) => d * d)));
  const starts = dev.flatMap((d, i) => (d > 2 * sd && (i === 0 || dev[i - 1]! <= 2 * sd) ? [i] : []));
  const reverts = starts.map((i) => {
    let j = i;
    while (j < dev.length && dev[j]! > sd) j++;
    return j - i;
  });
  return {
    relativeSd: sd / Math.max(1e-9, mean(load)),
    lag1: autocorrelation(dev, 1),
    lag10: autocorrelation(dev, 10),
    perHour: starts.length / Math.max(1e-9, hours),
    revertInstants: reverts.length ? quantile(reverts, 0.5) : 0,
  };
}

/** The statistics of `trace` (see {@link TraceStats}). */
export function traceStats(trace: Trace): TraceStats {
  const xs = trace.instants;
  const t0 = xs[0]!.t;
  const hours = (xs[xs.length - 1]!.t - t0) / 3600;
  const counts = xs.map((x) => x.values.length);
  const load = xs.map((x) => offeredLoad(x) / 100);
  const samples = xs.flatMap((x) => x.values);
  const step = xs.length > 1 ? (xs[xs.length - 1]!.t - t0) / (xs.length - 1) : 60;
  const byHour: number[][] = [];
  xs.forEach((x, i) => {
    const h = Math.floor((x.t - t0) / 3600);
    (byHour[h] ??= []).push(counts[i] ? (100 * load[i]!) / counts[i]! : 0);
  });
  return {
    instants: xs.length,
    hours,
    pods: { min: Math.min(...counts), median: quantile(counts, 0.5), max: Math.max(...counts) },
    countChanges: counts.filter((c, i) => i > 0 && c !== counts[i - 1]).length / Math.max(1, xs.length - 1),
    samples: {
      mean: mean(samples),
      zeroShare: samples.filter((v) => v === 0).length / Math.max(1, samples.length),
      p90: quantile(samples, 0.9),
      p99: quantile(samples, 0.99),
    },
    load: { mean: mean(load), median: quantile(load, 0.5), p90: quantile(load, 0.9), max: Math.max(...load) },
    hourly: byHour.map((h) => mean(h ?? [])),
    jumps: jumpsOf(load, Math.max(3, Math.round(3600 / step)), hours),
  };
}
