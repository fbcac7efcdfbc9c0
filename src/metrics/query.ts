import type { DcgmMetric } from './types.js';

/** Label that tells the two halves of the utilisation query apart. */
export const STAT_LABEL = 'gpuops_stat';

/**
 * Prometheus' default `--query.lookback-delta` (seconds): an instant selector finds no sample
 * older than this, so a GPU whose `last` half is missing had no sample for at least this long.
 */
export const LOOKBACK_SECONDS = 300;

/**
 * The labels `attribute` reads of a series (`gpuKey`: `UUID`, `GPU_I_ID`, `gpu`, `node`,
 * `Hostname`; `workloadPod`: `namespace`, `pod` and their `exported_` forms): the `by` clause of
 * a scoped query. A label missing here would silently change attribution.
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
 * @throws Error when the metric is not a metric name, a window is not a whole number of seconds,
 *   or `namespaces` is empty or holds a name that is not a DNS-1123 label
 */
export function utilizationQuery(
  metric: DcgmMetric | string,
  windowSeconds: number,
  selector = '',
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
  const matchers = (extra: string) => [selector.trim(), extra].filter((m) => m !== '').join(', ');
  // One selector, or the two places a workload's namespace can be, each through `fn`.
  const over = (fn: (sel: string) => string): string => {
    if (scoped === null) return fn(`${metric}{${matchers('')}}`);
    const both = scoped.map((m) => fn(`${metric}{${matchers(m)}}`)).join(' or ');
    return `max by (${ATTRIBUTION_LABELS.join(', ')}) (${both})`;
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
