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
 *   or label_replace(max_over_time(M{sel}[Hs]), "gpuops_stat", "max", "", "")
 *   or label_replace(timestamp(M{sel} offset Hs), "gpuops_stat", "first", "", "")
 * ```
 *
 * The `avg` half is the utilisation averaged over `windowSeconds`; the `last` half is the time of
 * each series' newest sample (seconds), so stale GPUs can be dropped — `avg_over_time` alone
 * would keep averaging a GPU whose exporter went away minutes ago. With `historySeconds` > 0
 * (the scale-down stabilisation window) the `max` half is the highest raw sample of the window
 * and the `first` half is present only for series that already existed at the window's start, so
 * stabilisation is judged from Prometheus's own history, not from passes the controller recorded.
 * No pod or namespace matcher is added: depending on the scrape config the workload pod is in
 * `pod` or in `exported_pod`, and GPUs with no pod must be seen too. `selector` adds matchers
 * such as `cluster="prod"`.
 * @throws Error when the metric is not a metric name or a window is not a whole number of seconds
 */
export function utilizationQuery(
  metric: DcgmMetric | string,
  windowSeconds: number,
  selector = '',
  historySeconds = 0,
): string {
  if (!/^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(metric)) throw new Error(`not a metric name: ${metric}`);
  if (!(Number.isInteger(windowSeconds) && windowSeconds > 0)) {
    throw new Error(`window must be a whole number of seconds > 0, got ${windowSeconds}`);
  }
  if (!(Number.isInteger(historySeconds) && historySeconds >= 0)) {
    throw new Error(`history must be a whole number of seconds ≥ 0, got ${historySeconds}`);
  }
  const sel = `${metric}{${selector.trim()}}`;
  const half = (expr: string, stat: string) => `label_replace(${expr}, "${STAT_LABEL}", "${stat}", "", "")`;
  const halves = [half(`avg_over_time(${sel}[${windowSeconds}s])`, 'avg'), half(`timestamp(${sel})`, 'last')];
  if (historySeconds > 0) {
    halves.push(
      half(`max_over_time(${sel}[${historySeconds}s])`, 'max'),
      half(`timestamp(${sel} offset ${historySeconds}s)`, 'first'),
    );
  }
  return halves.join(' or ');
}
