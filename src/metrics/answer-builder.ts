import { parseSampleValue } from './dcgm-text.js';
import { LOOKBACK_SECONDS, STAT_LABEL } from './query.js';
import type { GpuSeries } from './types.js';

/** Options of a query answer's decoding (`parseQueryAnswer`, `QueryAnswerDecoder`). */
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
  /**
   * The answer's top-level `warnings`, present when there are any: Prometheus (a failed remote
   * read), Thanos (`partial_response`), Mimir and Cortex say so when some stores or shards did not
   * answer — `status` stays `success`, and the result may lack any series.
   */
  warnings?: string[];
  /** Its top-level `infos` (Prometheus 3: notes on the query, no missing data), present when any. */
  infos?: string[];
}

/** At most this many notices of each kind are kept, each cut to this many characters. */
const NOTICES = { count: 10, chars: 500 };

/**
 * The `warnings` and `infos` of an answer's top-level object (arrays of strings in the Prometheus
 * HTTP API), as {@link QueryAnswer} holds them: absent when empty; any other value is ignored, and
 * each list is kept short (a store cannot fill a decision message with them).
 */
export function noticesOf(top: Record<string, unknown>): Pick<QueryAnswer, 'warnings' | 'infos'> {
  const list = (v: unknown): string[] =>
    (Array.isArray(v) ? v : [])
      .slice(0, NOTICES.count)
      .map((x) => (typeof x === 'string' ? x : JSON.stringify(x)).slice(0, NOTICES.chars));
  const warnings = list(top.warnings);
  const infos = list(top.infos);
  return { ...(warnings.length ? { warnings } : {}), ...(infos.length ? { infos } : {}) };
}

/**
 * Turns the items of `data.result` into series one at a time, so a decoder can drop each item as
 * soon as it is added (the rules are those of `parseQueryAnswer`, which documents them). `fail`
 * throws the decoder's error (a `MetricsParseError` naming the source).
 */
export interface AnswerBuilder {
  /** Adds `data.result[index]` (a parsed JSON value). @throws through `fail` when its shape is wrong */
  add(item: unknown, index: number): void;
  /**
   * Adds a vector item already read apart (`{"metric": <labels>, "value": [seconds, raw]}`, with
   * `value` = `parseSampleValue(raw)`), as `add` of that item would; only a vector's builder has
   * it (a decoder that reads items itself).
   */
  addSample?(labels: SeriesLabels, seconds: number, value: number): void;
  /** The series of every item added, in the order `parseQueryAnswer` has always returned them. */
  finish(): QueryAnswer;
}

type Fail = (message: string) => never;

/** The builder of a `resultType` (`vector` or `matrix`). */
export function answerBuilder(
  resultType: 'vector' | 'matrix',
  options: QueryResultOptions,
  fail: Fail,
): AnswerBuilder {
  return resultType === 'matrix' ? matrixBuilder(options, fail) : vectorBuilder(options, fail);
}

/**
 * What the builder reads of a vector item's `metric` object: its `gpuops_stat`, its `__name__`,
 * its other labels (a new object, never changed after: a decoder may hand the same one to every
 * answer that repeats the label set) and, for a half of the utilisation query, their identity
 * (`labelKey`).
 */
export interface SeriesLabels {
  stat: string | undefined;
  name: string | undefined;
  labels: Record<string, string>;
  /** The identity of `labels` (joins the halves of one series); '' when `stat` is undefined. */
  key: string;
}

/** {@link SeriesLabels} of a `metric` object (label values as the answer gives them). */
export function seriesLabelsOf(source: Record<string, string>): SeriesLabels {
  const stat = source[STAT_LABEL];
  return {
    stat,
    name: source.__name__,
    labels: copyLabels(source),
    key: stat === undefined ? '' : labelKey(source),
  };
}

/**
 * The halves of one series read so far (undefined: not read). Every field is set when made, so
 * every entry has one shape; the `avg` half's value and seconds are two fields, not a pair made
 * per series per answer.
 */
interface Joined {
  labels: Record<string, string>;
  avg: number | undefined;
  avgSeconds: number;
  last: number | undefined;
  max: number | undefined;
  first: number | undefined;
}

function vectorBuilder(options: QueryResultOptions, fail: Fail): AnswerBuilder {
  const joined = new Map<string, Joined>();
  const plain: GpuSeries[] = [];
  let evaluatedAt: number | null = null;
  const sample = (meta: SeriesLabels, ts: number, value: number) => {
    const at = Math.round(ts * 1000);
    if (evaluatedAt === null || at > evaluatedAt) evaluatedAt = at;
    if (meta.stat === undefined) {
      plain.push({ metric: meta.name ?? options.metric, labels: meta.labels, value, timestamp: at });
      return;
    }
    let entry = joined.get(meta.key);
    if (!entry) {
      entry = {
        labels: meta.labels,
        avg: undefined,
        avgSeconds: 0,
        last: undefined,
        max: undefined,
        first: undefined,
      };
      joined.set(meta.key, entry);
    }
    if (meta.stat === 'avg') {
      entry.avg = value;
      entry.avgSeconds = ts;
    } else if (meta.stat === 'last') entry.last = value;
    else if (meta.stat === 'max') entry.max = value;
    else if (meta.stat === 'first') entry.first = value;
  };
  return {
    add(item, i) {
      if (
        !isObject(item) ||
        !isObject(item.metric) ||
        !Array.isArray(item.value) ||
        item.value.length !== 2
      ) {
        fail(`data.result[${i}] must have "metric" and a two-element "value"`);
      }
      const [ts, raw] = item.value as [unknown, unknown];
      if (typeof ts !== 'number' || typeof raw !== 'string')
        fail(`data.result[${i}].value must be [<seconds>, "<value>"]`);
      sample(
        seriesLabelsOf(item.metric as Record<string, string>),
        ts as number,
        parseSampleValue(raw as string),
      );
    },
    addSample: sample,
    finish() {
      for (const entry of joined.values()) {
        const value = entry.avg;
        if (value === undefined) continue; // a `last` without an `avg` cannot happen within one window
        const lastSeconds = entry.last ?? entry.avgSeconds - LOOKBACK_SECONDS;
        const series: GpuSeries = {
          metric: options.metric,
          labels: entry.labels,
          value,
          timestamp: Math.round(lastSeconds * 1000),
        };
        // Set, not spread in: a literal with a spread defines each field one at a time (per series).
        if (entry.max !== undefined)
          series.window = {
            max: entry.max,
            oldest: entry.first === undefined ? null : Math.round(entry.first * 1000),
          };
        plain.push(series);
      }
      joined.clear();
      return { series: plain, evaluatedAt };
    },
  };
}

function matrixBuilder(options: QueryResultOptions, fail: Fail): AnswerBuilder {
  const windowMs = (options.windowSeconds ?? 300) * 1000;
  const historyMs = (options.historySeconds ?? 300) * 1000;
  const parsed: { labels: Record<string, string>; name: string; points: [number, number][] }[] = [];
  let evaluatedAt: number | null = null;
  return {
    add(item, i) {
      if (!isObject(item) || !isObject(item.metric) || !Array.isArray(item.values)) {
        fail(`data.result[${i}] must have "metric" and a "values" array`);
      }
      const points: [number, number][] = [];
      for (const [j, p] of (item.values as unknown[]).entries()) {
        if (!Array.isArray(p) || p.length !== 2 || typeof p[0] !== 'number' || typeof p[1] !== 'string') {
          fail(`data.result[${i}].values[${j}] must be [<seconds>, "<value>"]`);
        }
        points.push([
          Math.round((p as [number, string])[0] * 1000),
          parseSampleValue((p as [number, string])[1]),
        ]);
      }
      if (points.length === 0) return;
      points.sort((a, b) => a[0] - b[0]);
      const newest = points[points.length - 1]![0];
      if (evaluatedAt === null || newest > evaluatedAt) evaluatedAt = newest;
      const source = item.metric as Record<string, string>;
      parsed.push({ labels: copyLabels(source), name: source.__name__ ?? options.metric, points });
    },
    finish() {
      const series: GpuSeries[] = [];
      for (const s of parsed) {
        const last = s.points[s.points.length - 1]!;
        // The averaging window and the history end at the answer's evaluation time: a series whose
        // points stopped earlier is averaged over what it has and judged stale by its timestamp.
        const inWindow = s.points.filter(([t]) => t > evaluatedAt! - windowMs);
        const avgOf = inWindow.length > 0 ? inWindow : [last];
        const inHistory = s.points.filter(([t]) => t >= evaluatedAt! - historyMs);
        series.push({
          metric: s.name,
          labels: s.labels,
          value: avgOf.reduce((a, [, v]) => a + v, 0) / avgOf.length,
          timestamp: last[0],
          window: {
            max: inHistory.length > 0 ? Math.max(...inHistory.map(([, v]) => v)) : last[1],
            oldest: s.points[0]![0],
          },
        });
      }
      parsed.length = 0;
      return { series, evaluatedAt };
    },
  };
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

/** A JSON object (not an array, not null). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
