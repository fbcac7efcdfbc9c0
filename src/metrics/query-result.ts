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
  data.result.forEach((item: unknown, i: number) => {
    if (!isObject(item) || !isObject(item.metric) || !Array.isArray(item.value) || item.value.length !== 2) {
      fail(`data.result[${i}] must have "metric" and a two-element "value"`);
      return;
    }
    const [ts, raw] = item.value as [unknown, unknown];
    if (typeof ts !== 'number' || typeof raw !== 'string') {
      fail(`data.result[${i}].value must be [<seconds>, "<value>"]`);
      return;
    }
    const labels = { ...(item.metric as Record<string, string>) };
    const stat = labels[STAT_LABEL];
    const value = parseSampleValue(raw);
    if (stat === undefined) {
      const metric = labels.__name__ ?? options.metric;
      delete labels.__name__;
      plain.push({ metric, labels, value, timestamp: Math.round(ts * 1000) });
      return;
    }
    delete labels[STAT_LABEL];
    delete labels.__name__;
    const key = labelKey(labels);
    const entry = joined.get(key) ?? { labels };
    if (stat === 'avg') entry.avg = [value, ts];
    else if (stat === 'last') entry.last = value;
    joined.set(key, entry);
  });
  for (const entry of joined.values()) {
    if (!entry.avg) continue; // a `last` without an `avg` cannot happen within one window
    const [value, evalSeconds] = entry.avg;
    const lastSeconds = entry.last ?? evalSeconds - LOOKBACK_SECONDS;
    plain.push({ metric: options.metric, labels: entry.labels, value, timestamp: Math.round(lastSeconds * 1000) });
  }
  return plain;
}

function labelKey(labels: Record<string, string>): string {
  return Object.keys(labels)
    .sort()
    .map((k) => `${k}=${labels[k]}`)
    .join('\u0000');
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
