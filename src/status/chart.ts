/**
 * The utilisation chart of the status page (pure): its window, the samples bucketed over it and
 * the markers of the decisions that scaled an algorithm or moved a node for it.
 */
import type { DecisionRecord, FleetStatusRecord, UtilizationSampleRecord } from '../store/index.js';
import type { ChartMarker, ChartPoint } from './view-types.js';

/** Longest window of the utilisation chart (seconds): the last 24 h; shorter when the data is. */
export const CHART_WINDOW_SECONDS = 24 * 3600;

/** Actions that change an algorithm's replicas or its pool's nodes: the chart marks them. */
const MARKED_ACTIONS = new Set(['scale-up', 'scale-down', 'relabel']);

/**
 * The end of the chart window: `now`, or the newest pass when that is later (a simulated clock
 * runs ahead of the wall clock; its last 24 h end at its own now).
 */
export function chartEnd(now: Date, fleet: FleetStatusRecord | null): number {
  const passMs = fleet ? Date.parse(fleet.at) : Number.NaN;
  return Math.floor(Math.max(now.getTime(), Number.isNaN(passMs) ? 0 : passMs) / 1000);
}

/**
 * Buckets pod samples into `bucketSeconds` slots over `[from, to]` (epoch seconds): each bucket's
 * mean, min and max over the samples in it; empty buckets are left out (the chart draws a gap,
 * never a 0 %). Samples outside the window are ignored.
 */
export function bucketSamples(
  samples: readonly Pick<UtilizationSampleRecord, 'utilization' | 'at'>[],
  from: number,
  to: number,
  bucketSeconds: number,
): ChartPoint[] {
  const buckets = new Map<number, number[]>();
  for (const s of samples) {
    const t = Date.parse(s.at) / 1000;
    if (!(t >= from && t <= to)) continue;
    const start = from + Math.floor((t - from) / bucketSeconds) * bucketSeconds;
    const list = buckets.get(start) ?? [];
    list.push(s.utilization);
    buckets.set(start, list);
  }
  return [...buckets]
    .sort(([a], [b]) => a - b)
    .map(([t, v]) => ({
      t,
      mean: round1(v.reduce((x, y) => x + y, 0) / v.length),
      min: round1(Math.min(...v)),
      max: round1(Math.max(...v)),
    }));
}

/** Chart markers of the decisions that scaled or moved nodes, within `[from, to]`. */
export function chartMarkers(decisions: readonly DecisionRecord[], from: number, to: number): ChartMarker[] {
  return decisions
    .filter((d) => MARKED_ACTIONS.has(d.action))
    .filter((d) => d.action === 'relabel' || d.replicasFrom !== d.replicasTo)
    .map((d) => ({ t: Date.parse(d.at) / 1000, action: d.action, label: markerLabel(d) }))
    .filter((m) => m.t >= from && m.t <= to);
}

function markerLabel(d: DecisionRecord): string {
  const replicas =
    d.replicasFrom !== null && d.replicasTo !== null ? ` ${d.replicasFrom} → ${d.replicasTo}` : '';
  return `${d.at} ${d.action}${replicas}: ${d.message}`;
}

function round1(x: number): number {
  return Math.round(x * 10) / 10;
}
