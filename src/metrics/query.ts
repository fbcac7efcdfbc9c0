import type { DcgmMetric, GpuSeries } from './types.js';
import { inCommonSpelling, utilisationMetrics } from './vendor-series.js';

/** Label that tells the two halves of the utilisation query apart. */
export const STAT_LABEL = 'gpuops_stat';

/**
 * Label naming the exporter metric of a series another vendor's exporter wrote (`gpu_gfx_activity`):
 * the query's functions drop `__name__`, and the series must still be read in that vendor's
 * spelling ({@link fromQueryAnswer}).
 */
export const METRIC_LABEL = 'gpuops_metric';

/**
 * Prometheus' default `--query.lookback-delta` (seconds): an instant selector finds no sample
 * older than this, so a GPU whose `last` half is missing had no sample for at least this long.
 */
export const LOOKBACK_SECONDS = 300;

/**
 * The labels `attribute` reads of a series (`gpuKey`: `UUID`, `GPU_I_ID`, `gpu`, `node`,
 * `Hostname`; `workloadPod`: `namespace`, `pod` and their `exported_` forms), the same labels in
 * AMD's device-metrics-exporter's spelling (`gpu_id`, `gpu_uuid`, `hostname`: the node's name,
 * mapped by `inCommonSpelling`; its `pod`/`namespace` are spelt as dcgm-exporter's, and renamed
 * `exported_*` by Prometheus the same way) and {@link METRIC_LABEL}: the `by` clause of a scoped
 * query. A label missing here would silently change attribution.
 */
export const ATTRIBUTION_LABELS = [
  'UUID',
  'GPU_I_ID',
  'gpu',
  'node',
  'Hostname',
  'namespace',
  'pod',
  'exported_namespace',
  'exported_pod',
  'gpu_id',
  'gpu_uuid',
  'hostname',
  METRIC_LABEL,
] as const;

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

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
 * `selector` adds matchers such as `cluster="prod"`.
 *
 * With `namespaces` (the algorithms' namespaces: the only ones whose pods attribution counts, see
 * `src/scaling/attribute.ts`) the query asks only for what gpuops attributes, so the answer grows
 * with the managed pods, not with the fleet (a whole-fleet answer is ~124,000 series, ~56 MB at
 * 10,000 nodes, read on every pass):
 *
 * - each selector becomes two, one per place the workload pod's namespace can be, as
 *   attribution reads it: `exported_namespace=~"ns1|ns2"` (Prometheus renamed the page's
 *   `namespace` because the target carries its own, as a ServiceMonitor's does), or
 *   `namespace=~"ns1|ns2", exported_namespace=""` (the page's labels kept; `=""` also matches an
 *   absent label). GPUs with no pod and pods of other namespaces are left on the server;
 * - each half is aggregated `max by` ({@link ATTRIBUTION_LABELS}), the labels attribution reads:
 *   still one series per GPU and pod (time-slicing is still seen), but without the exporter's
 *   other labels (`modelName`, `DCGM_FI_DRIVER_VERSION`, `instance`, …), about half of each
 *   series' bytes. Two series that differ only in a dropped label (a driver upgrade mid-window)
 *   become one: their newest sample and highest average.
 *
 * Every vendor's exporter answers a request for `DCGM_FI_DEV_GPU_UTIL` (`utilisationMetrics`): each
 * selector above is asked once per metric, in the same query (`M1{sel} or M2{sel}`), and a series
 * of another vendor's metric carries {@link METRIC_LABEL} (`gpuops_metric="gpu_gfx_activity"`),
 * since `__name__` is gone, for {@link fromQueryAnswer} to read it in that vendor's spelling.
 * `selector` is one matcher set for every metric, or a function giving each metric's own (each
 * exporter's scrape job has its own name).
 *
 * @throws Error when the metric is not a metric name, a window is not a whole number of seconds,
 *   or `namespaces` is empty or holds a name that is not a DNS-1123 label
 */
export function utilizationQuery(
  metric: DcgmMetric | string,
  windowSeconds: number,
  selector: string | ((metric: string) => string) = '',
  historySeconds = 0,
  namespaces?: readonly string[],
): string {
  if (!/^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(metric)) throw new Error(`not a metric name: ${metric}`);
  if (!(Number.isInteger(windowSeconds) && windowSeconds > 0)) {
    throw new Error(`window must be a whole number of seconds > 0, got ${windowSeconds}`);
  }
  if (!(Number.isInteger(historySeconds) && historySeconds >= 0)) {
    throw new Error(`history must be a whole number of seconds ≥ 0, got ${historySeconds}`);
  }
  const scoped = namespaces === undefined ? null : namespaceMatchers(namespaces);
  const selectorOf = typeof selector === 'string' ? () => selector : selector;
  const matchers = (m: string, extra: string) =>
    [selectorOf(m).trim(), extra].filter((x) => x !== '').join(', ');
  // Each metric through `fn`, once per place a workload's namespace can be; another vendor's tagged.
  const over = (fn: (sel: string) => string): string => {
    const parts = utilisationMetrics(metric).flatMap((m) =>
      (scoped ?? ['']).map((extra) => {
        const expr = fn(`${m}{${matchers(m, extra)}}`);
        return m === metric ? expr : `label_replace(${expr}, "${METRIC_LABEL}", "${m}", "", "")`;
      }),
    );
    const all = parts.join(' or ');
    return scoped === null ? all : `max by (${ATTRIBUTION_LABELS.join(', ')}) (${all})`;
  };
  const halves: [string, (sel: string) => string][] = [
    ['avg', (sel) => `avg_over_time(${sel}[${windowSeconds}s])`],
    ['last', (sel) => `timestamp(${sel})`],
  ];
  if (historySeconds > 0) {
    halves.push(
      ['max', (sel) => `max_over_time(${sel}[${historySeconds}s])`],
      ['first', (sel) => `timestamp(${sel} offset ${historySeconds}s)`],
    );
  }
  return halves
    .map(([stat, fn]) => `label_replace(${over(fn)}, "${STAT_LABEL}", "${stat}", "", "")`)
    .join(' or ');
}

/**
 * One series of a {@link utilizationQuery} answer as attribution reads it: a series tagged with
 * {@link METRIC_LABEL} is taken as that metric's and put in dcgm-exporter's spelling
 * (`inCommonSpelling`: `gpu_id` → `gpu`, `gpu_uuid` → `UUID`, `hostname` → `Hostname` and `node`
 * when no `node` label is there); any other series comes back unchanged (the same object).
 */
export function fromQueryAnswer(series: GpuSeries): GpuSeries {
  const tag = series.labels[METRIC_LABEL];
  if (tag === undefined) return series;
  const { [METRIC_LABEL]: _tag, ...labels } = series.labels;
  return inCommonSpelling({ ...series, metric: tag, labels });
}

/** The two matcher sets of a scoped query (see {@link utilizationQuery}). */
function namespaceMatchers(namespaces: readonly string[]): [string, string] {
  if (namespaces.length === 0) throw new Error('namespaces: at least one namespace is needed');
  for (const ns of namespaces)
    if (!DNS_LABEL.test(ns)) throw new Error(`namespaces: ${JSON.stringify(ns)} is not a DNS-1123 label`);
  // Sorted and once each: the same algorithms always send the same text. No regex metacharacter
  // can occur in a DNS-1123 label, and Prometheus anchors the regex (`algorithms` ≠ `algorithms-x`).
  const re = [...new Set(namespaces)].sort().join('|');
  return [`exported_namespace=~"${re}"`, `namespace=~"${re}", exported_namespace=""`];
}
