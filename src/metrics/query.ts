import type { DcgmMetric } from './types.js';

/** Label that tells the two halves of the utilisation query apart. */
export const STAT_LABEL = 'gpuops_stat';

/**
 * Prometheus' default `--query.lookback-delta` (seconds): an instant selector finds no sample
 * older than this, so a GPU whose `last` half is missing had no sample for at least this long.
 */
export const LOOKBACK_SECONDS = 300;

/**
 * The one PromQL query a pass sends for ALL GPUs (never one per pod):
 *
 * ```
 * label_replace(avg_over_time(M{sel}[Ws]), "gpuops_stat", "avg", "", "")
 *   or label_replace(timestamp(M{sel}), "gpuops_stat", "last", "", "")
 * ```
 *
 * The `avg` half is the utilisation averaged over `windowSeconds`; the `last` half is the time of
 * each series' newest sample (seconds), so stale GPUs can be dropped — `avg_over_time` alone
 * would keep averaging a GPU whose exporter went away minutes ago. No pod or namespace matcher
 * is added: depending on the scrape config the workload pod is in `pod` or in `exported_pod`,
 * and GPUs with no pod must be seen too. `selector` adds matchers such as `cluster="prod"`.
 */
export function utilizationQuery(metric: DcgmMetric | string, windowSeconds: number, selector = ''): string {
  if (!/^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(metric)) throw new Error(`not a metric name: ${metric}`);
  if (!(Number.isInteger(windowSeconds) && windowSeconds > 0)) {
    throw new Error(`window must be a whole number of seconds > 0, got ${windowSeconds}`);
  }
  const sel = `${metric}{${selector.trim()}}`;
  return (
    `label_replace(avg_over_time(${sel}[${windowSeconds}s]), "${STAT_LABEL}", "avg", "", "")` +
    ` or label_replace(timestamp(${sel}), "${STAT_LABEL}", "last", "", "")`
  );
}
