import { MetricsParseError, parseSampleValue } from './dcgm-text.js';
import { LOOKBACK_SECONDS, STAT_LABEL } from './query.js';
import type { GpuSeries } from './types.js';

/** Options of {@link parseQueryResult}. */
export interface QueryResultOptions {
  /** File name or URL, for error messages. */
  source: string;
  /** Metric name for series whose `__name__` was dropped by a function (`avg_over_time`). */
  metric: string;
  /** Averaging window of a matrix answer (seconds); default 300. */
  windowSeconds?: number;
  /** History a matrix answer is judged over (seconds, the scale-down stabilisation window); default 300. */
  historySeconds?: number;
}

/** Series of one answer and the time it was evaluated at (milliseconds, Prometheus's clock). */
export interface QueryAnswer {
  series: GpuSeries[];
  /** The evaluation time of a vector; the newest point of a matrix; null when the result is empty. */
  evaluatedAt: number | null;
}

/** Parses an answer into series; see {@link parseQueryAnswer}. */
export function parseQueryResult(body: unknown, options: QueryResultOptions): GpuSeries[] {
  return parseQueryAnswer(body, options).series;
}

/**
 * Parses a Prometheus `/api/v1/query` or `/api/v1/query_range` answer
 * (https://prometheus.io/docs/prometheus/latest/querying/api/) into per-GPU series:
 *
 * - `resultType: "vector"` (`{"metric":{…},"value":[<seconds>,"<value>"]}`): the answer of
 *   `utilizationQuery` (`gpuops_stat` = `avg` | `last` | `max` | `first`, joined per series:
 *   value from `avg`, timestamp from `last` — with no `last` the newest sample is older than the
 *   lookback —, window from `max` and `first`), or a plain vector such as a saved
 *   `avg_over_time(...)` result (timestamp = evaluation time, no window: one instant);
 * - `resultType: "matrix"` (`{"metric":{…},"values":[[<seconds>,"<value>"],…]}`, a `query_range`
 *   answer or an instant range selector): evaluated at its newest point; each series' value is
 *   the mean of its points in the last `windowSeconds`, its timestamp its newest point, and its
 *   window the highest point of the last `historySeconds` and its oldest point.
 *
 * @throws MetricsParseError when the document is not a successful vector or matrix answer.
 */
export function parseQueryAnswer(body: unknown, options: QueryResultOptions): QueryAnswer {
  const fail = (message: string): never => {
    throw new MetricsParseError(options.source, null, message);
  };
  if (!isObject(body)) return fail('not a JSON object');
  if (body.status !== 'success') {
    return fail(`status is ${JSON.stringify(body.status)}: ${String(body.error ?? 'no error text')}`);
  }
  const data = body.data;
  if (isObject(data) && data.resultType === 'matrix' && Array.isArray(data.result)) {
    return parseMatrix(data.result as unknown[], options, fail);
  }
  if (!isObject(data) || data.resultType !== 'vector' || !Array.isArray(data.result)) {
    return fail(`data.resultType must be "vector" or "matrix" with a result array`);
  }
  const joined = new Map<
    string,
    { labels: Record<string, string>; avg?: [number, number]; last?: number; max?: number; first?: number }
  >();
  const plain: GpuSeries[] = [];
  let evaluatedAt: number | null = null;
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
    const at = Math.round(ts * 1000);
    if (evaluatedAt === null || at > evaluatedAt) evaluatedAt = at;
    const source = item.metric as Record<string, string>;
    const stat = source[STAT_LABEL];
    const value = parseSampleValue(raw);
    if (stat === undefined) {
      plain.push({
        metric: source.__name__ ?? options.metric,
        labels: copyLabels(source),
        value,
        timestamp: at,
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
    else if (stat === 'max') entry.max = value;
    else if (stat === 'first') entry.first = value;
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
      ...(entry.max === undefined
        ? {}
        : {
            window: {
              max: entry.max,
              oldest: entry.first === undefined ? null : Math.round(entry.first * 1000),
            },
          }),
    });
  }
  return { series: plain, evaluatedAt };
}

function parseMatrix(
  items: unknown[],
  options: QueryResultOptions,
  fail: (message: string) => never,
): QueryAnswer {
  const windowMs = (options.windowSeconds ?? 300) * 1000;
  const historyMs = (options.historySeconds ?? 300) * 1000;
  const parsed: { labels: Record<string, string>; name: string; points: [number, number][] }[] = [];
  let evaluatedAt: number | null = null;
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (!isObject(item) || !isObject(item.metric) || !Array.isArray(item.values)) {
      return fail(`data.result[${i}] must have "metric" and a "values" array`);
    }
    const points: [number, number][] = [];
    for (const [j, p] of (item.values as unknown[]).entries()) {
      if (!Array.isArray(p) || p.length !== 2 || typeof p[0] !== 'number' || typeof p[1] !== 'string') {
        return fail(`data.result[${i}].values[${j}] must be [<seconds>, "<value>"]`);
      }
      points.push([Math.round(p[0] * 1000), parseSampleValue(p[1])]);
    }
    if (points.length === 0) continue;
    points.sort((a, b) => a[0] - b[0]);
    const newest = points[points.length - 1]![0];
    if (evaluatedAt === null || newest > evaluatedAt) evaluatedAt = newest;
    const source = item.metric as Record<string, string>;
    parsed.push({ labels: copyLabels(source), name: source.__name__ ?? options.metric, points });
  }
  const series: GpuSeries[] = [];
  for (const s of parsed) {
    const newest = s.points[s.points.length - 1]![0];
    // The averaging window and the history end at the answer's evaluation time: a series whose
    // points stopped earlier is averaged over what it has and judged stale by its timestamp.
    const inWindow = s.points.filter(([t]) => t > evaluatedAt! - windowMs);
    const avgOf = inWindow.length > 0 ? inWindow : [s.points[s.points.length - 1]!];
    const inHistory = s.points.filter(([t]) => t >= evaluatedAt! - historyMs);
    series.push({
      metric: s.name,
      labels: s.labels,
      value: avgOf.reduce((a, [, v]) => a + v, 0) / avgOf.length,
      timestamp: newest,
      window: {
        max:
          inHistory.length > 0 ? Math.max(...inHistory.map(([, v]) => v)) : s.points[s.points.length - 1]![1],
        oldest: s.points[0]![0],
      },
    });
  }
  return { series, evaluatedAt };
}

/** The labels without `__name__` and the query's own `gpuops_stat`. */
function copyLabels(source: Record<string, string>): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const k in source) if (k !== STAT_LABEL && k !== '__name__') labels[k] = source[k]!;
  return labels;
}

/**
 * Identity of a label set, ignoring `__name__` and `gpuops_stat`. Prometheus returns labels
 * sorted by name, so the fast path needs no sort; other orders are sorted first. The two ignored
 * labels may stand anywhere (`label_replace` output kept in insertion order still takes the fast
 * path): only the order of the labels in the key counts.
 */
function labelKey(source: Record<string, string>): string {
  let key = '';
  let previous = '';
  for (const k in source) {
    if (k === STAT_LABEL || k === '__name__') continue;
    if (k < previous) return sortedLabelKey(source);
    previous = k;
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
