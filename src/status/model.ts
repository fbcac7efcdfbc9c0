/**
 * The status page's view model (pure): built from what the database holds — the newest snapshot,
 * the newest pass's fleet status, utilisation samples, decisions and pull requests — and `now`.
 * The HTML, text and JSON outputs all render this one object, so they always agree. Its shapes
 * are in `view-types.ts`, each section's builder in a `view-*.ts` file, the chart in `chart.ts`.
 */
import { statusCacheRows } from './cache-health.js';
import { CHART_WINDOW_SECONDS, chartEnd } from './chart.js';
import { statusAlgorithms, statusBenchmarks } from './view-algorithms.js';
import { statusHealth } from './view-health.js';
import { statusPools } from './view-pools.js';
import type { StatusInput, StatusView } from './view-types.js';

export type * from './view-types.js';
export { bucketSamples, CHART_WINDOW_SECONDS, chartEnd, chartMarkers } from './chart.js';

/** Builds the view. Pools list every pool, even empty ones; nodes by name. */
export function buildStatusView(input: StatusInput): StatusView {
  const to = chartEnd(input.now, input.fleet);
  const algorithms = statusAlgorithms(input, to - CHART_WINDOW_SECONDS, to);
  const openPullRequests = input.pullRequests
    .filter((p) => p.state === 'open')
    .map((p) => ({
      number: p.number,
      url: p.url,
      title: p.title,
      branch: p.branch,
      kind: p.kind,
      subject: p.subject,
      updatedAt: p.updatedAt,
    }));
  return {
    cluster: input.cluster,
    health: statusHealth(input, algorithms, openPullRequests),
    generatedAt: input.now.toISOString(),
    snapshotAt: input.snapshot?.takenAt ?? null,
    passAt: input.fleet?.at ?? null,
    ...statusPools(input.snapshot, input.fleet),
    algorithms,
    benchmarks: statusBenchmarks(input.snapshot),
    openPullRequests,
    decisions: input.recentDecisions.map((d) => ({
      at: d.at,
      kind: d.kind,
      subject: d.subject,
      action: d.action,
      reason: d.reason,
      message: d.message,
    })),
    cache: input.cache ? statusCacheRows(input.cache) : null,
  };
}
