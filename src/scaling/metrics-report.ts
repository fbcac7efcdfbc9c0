import type { UtilizationReading } from '../metrics/index.js';
import type { Policy } from '../definitions/index.js';
import type { Attribution, DropReason, DroppedSeries } from './types.js';

/**
 * What the pass made of its one reading, for `plan` and the log: when it was judged, the clock
 * skew, and every series that did not count, by reason.
 */
export interface MetricsReport {
  /** The answer's own evaluation time (ISO-8601) that sample ages were measured against; null without data. */
  evaluatedAt: string | null;
  /** `evaluatedAt` − the pass's clock (seconds; negative: the source is behind); null without data. */
  skewSeconds: number | null;
  /** Why the reading has no data at all, when it has none. */
  noData: string | null;
  /** Why the reading may lack series (the store's warnings: a partial answer), or null. */
  partial: string | null;
  /** Dropped series counted by reason, largest count first; `oldestSeconds` with `Stale`. */
  dropped: { reason: DropReason; count: number; oldestSeconds?: number }[];
  /** Every dropped series. */
  droppedSeries: DroppedSeries[];
  /** `scaling.staleSampleSeconds`: a sample older than this at `evaluatedAt` is `Stale` (seconds). */
  staleLimitSeconds: number;
  /** Problems worth a warning: clock skew beyond the stale limit, files or pages that failed. */
  warnings: string[];
}

/** `Stale: 3 (oldest 604800 s), UnknownPod: 2`: dropped series counted by reason, largest first. */
export function countDropped(dropped: readonly DroppedSeries[]): string {
  return summarizeDropped(dropped)
    .map(
      (d) =>
        `${d.reason}: ${d.count}${d.oldestSeconds === undefined ? '' : ` (oldest ${d.oldestSeconds} s)`}`,
    )
    .join(', ');
}

function summarizeDropped(dropped: readonly DroppedSeries[]): MetricsReport['dropped'] {
  const by = new Map<DropReason, { reason: DropReason; count: number; oldestSeconds?: number }>();
  for (const d of dropped) {
    const e = by.get(d.reason) ?? { reason: d.reason, count: 0 };
    e.count++;
    if (d.ageSeconds !== undefined) e.oldestSeconds = Math.max(e.oldestSeconds ?? 0, d.ageSeconds);
    by.set(d.reason, e);
  }
  return [...by.values()].sort((a, b) => b.count - a.count || (a.reason < b.reason ? -1 : 1));
}

/**
 * What a decision says of a partial answer — `the metrics store answered in part ("<warning>";
 * …)` — or null when the reading is whole (no `warnings`) or has no data at all.
 */
export function partialMessage(reading: UtilizationReading): string | null {
  if (!reading.ok || !reading.warnings?.length) return null;
  return `the metrics store answered in part (${reading.warnings.map((w) => JSON.stringify(w)).join('; ')})`;
}

/**
 * The metrics report of one reading (see {@link MetricsReport}): `evaluatedAt` is the answer's own
 * time (ms), `now` the pass's; a skew beyond `scaling.staleSampleSeconds` is a warning, and so
 * are a partial answer and the store's `infos`.
 */
export function metricsReport(
  input: { reading: UtilizationReading; now: Date; policy: Policy },
  attribution: Attribution,
  evaluatedAt: number,
  noData: string | null,
  partial: string | null = null,
): MetricsReport {
  const { reading, now, policy } = input;
  const limit = policy.spec.scaling.staleSampleSeconds;
  const warnings: string[] = [];
  let skewSeconds: number | null = null;
  if (reading.ok) {
    skewSeconds = Math.round((evaluatedAt - now.getTime()) / 1000);
    if (Math.abs(skewSeconds) > limit) {
      warnings.push(
        `the metrics source's clock is ${Math.abs(skewSeconds)} s ${skewSeconds < 0 ? 'behind' : 'ahead of'} this controller's ` +
          `(more than the ${limit} s stale limit); sample ages are measured against the answer's own time ${new Date(evaluatedAt).toISOString()}`,
      );
    }
    for (const e of reading.errors) warnings.push(`metrics: ${e}`);
    if (partial) warnings.push(`${partial}: no algorithm scales down or moves a node on it`);
    for (const i of reading.infos ?? []) warnings.push(`metrics store info: ${i}`);
  }
  return {
    evaluatedAt: reading.ok ? new Date(evaluatedAt).toISOString() : null,
    skewSeconds,
    noData,
    partial,
    dropped: summarizeDropped(attribution.dropped),
    droppedSeries: attribution.dropped,
    staleLimitSeconds: limit,
    warnings,
  };
}
