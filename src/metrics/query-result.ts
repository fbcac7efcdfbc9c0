import { MetricsParseError, parseSampleValue } from './dcgm-text.js';
import { LOOKBACK_SECONDS, STAT_LABEL } from './query.js';
import type { GpuSeries } from './types.js';

/** Options of {@link parseQueryResult}. */
export interface QueryResultOptions {
  /** File name or URL, for error messages. */
  source: string;
  /** Metric name for series whose `__name__` was dropped by a function (`avg_over_time`). */
  metric: string;
}

/**
 * Parses a Prometheus `/api/v1/query` answer (`{"status":"success","data":{"resultType":"vector",
 * "result":[{"metric":{…},"value":[<seconds>,"<value>"]}]}}`, https://prometheus.io/docs/prometheus/latest/querying/api/)
 * into per-GPU series. Understands both the two-part answer of `utilizationQuery` (`gpuops_stat`
 * = `avg` | `last`, joined per series: value from `avg`, timestamp from `last`; with no `last`
 * the newest sample is older than the lookback) and a plain vector such as a saved
 * `avg_over_time(...)` result (timestamp = evaluation time).
 *
 * @throws MetricsParseError when the document is not a successful vector answer.
 */
export function parseQueryResult(body: unknown, options: QueryResultOptions): GpuSeries[] {
  const fail = (message: string): never => {
    throw new MetricsParseError(options.source, null, message);
  };
  if (!isObject(body)) return fail('not a JSON object');
  if (body.status !== 'success') {
    return fail(`status is ${JSON.stringify(body.status)}: ${String(body.error ?? 'no error text')}`);
  }
  const data = body.data;
  if (!isObject(data) || data.resultType !== 'vector' || !Array.isArray(data.result)) {
    return fail(`data.resultType must be "vector" with a result array`);
  }
  const joined = new Map<string, { labels: Record<string, string>; avg?: [number, number]; last?: number }>();
  const plain: GpuSeries[] = [];
  const items = data.result as unknown[];
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (!isObject(item) || !isObject(item.metric) || !Array.isArray(item.value) || item.value.length !== 2) {
      return fail(`data.result[${i}] must have "metric" and a two-element "value"`);
    }
    const [ts, raw] = item.value as [unknown, unknown];
    if (typeof ts !== 'number' || typeof raw !== 'string') {
      return fail(`data.result[${i}].value must be [<seconds>, "<value>"]`);
    }
    const source = item.metric as Record<string, string>;
    const stat = source[STAT_LABEL];
    const value = parseSampleValue(raw);
    if (stat === undefined) {
      plain.push({
        metric: source.__name__ ?? options.metric,
        labels: copyLabels(source),
        value,
        timestamp: Math.round(ts * 1000),
      });
      continue;
    }
    const key = labelKey(source);
    let entry = joined.get(key);
    if (!entry) {
      entry = { labels: copyLabels(source) };
      joined.set(key, entry);
    }
    if (stat === 'avg') entry.avg = [value, ts];
    else if (stat === 'last') entry.last = value;
  }
  for (const entry of joined.values()) {
    if (!entry.avg) continue; // a `last` without an `avg` cannot happen within one window
    const [value, evalSeconds] = entry.avg;
    const lastSeconds = entry.last ?? evalSeconds - LOOKBACK_SECONDS;
    plain.push({
      metric: options.metric,
      labels: entry.labels,
      value,
      timestamp: Math.round(lastSeconds * 1000),
    });
  }
  return plain;
}

/** The labels without `__name__` and the query's own `gpuops_stat`. */
function copyLabels(source: Record<string, string>): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const k in source) if (k !== STAT_LABEL && k !== '__name__') labels[k] = source[k]!;
  return labels;
}

/**
 * Identity of a label set, ignoring `__name__` and `gpuops_stat`. Prometheus returns labels
 * sorted by name, so the fast path needs no sort; other orders are sorted first.
 */
function labelKey(source: Record<string, string>): string {
  let key = '';
  let previous = '';
  for (const k in source) {
    if (k < previous) return sortedLabelKey(source);
    previous = k;
    if (k === STAT_LABEL || k === '__name__') continue;
    key += `${k}\u0000${source[k]}\u0001`;
  }
  return key;
}

function sortedLabelKey(source: Record<string, string>): string {
  let key = '';
  for (const k of Object.keys(source).sort()) {
    if (k === STAT_LABEL || k === '__name__') continue;
    key += `${k}\u0000${source[k]}\u0001`;
  }
  return key;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
