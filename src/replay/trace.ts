/**
 * Utilisation histories for `gpuops replay`, in two formats (pure: text in, trace out):
 *
 * - the CSV of the Alibaba GenAI trace (`value,timestamp_anon,container_ip`): one row per pod and
 *   sampling instant; `value` is the pod's GPU duty cycle in percent (0–100), the time is in
 *   seconds, `container_ip` names the pod;
 * - a Prometheus `query_range` answer (`/api/v1/query_range`, `resultType: matrix`) of
 *   `DCGM_FI_DEV_GPU_UTIL` (percent) aggregated by pod, e.g. `max by (namespace, pod)
 *   (DCGM_FI_DEV_GPU_UTIL)`: one series per pod, `[time, "value"]` pairs.
 *
 * Either way the trace is a list of instants, each with the utilisation of every pod that reported
 * then (1 GPU per pod). The pods reporting at an instant are what static allocation held; the sum
 * of their values is the offered load in GPU-percent (100 = one GPU fully busy).
 */

import { checkTraceGaps, checkTraceTime } from './trace-bounds.js';

/** One sampling instant: time (seconds) and the utilisation (percent, 0..100) of each pod reporting. */
export interface TraceInstant {
  readonly t: number;
  readonly values: readonly number[];
  /** The pod each value is of (same order as `values`), where the format names pods. */
  readonly pods?: readonly string[];
  /**
   * The service's own load at this instant, summed over its pods, in `Trace.service.unit` (e.g.
   * requests per second); absent: no reading then (outside the service series' span, or no
   * series: `service-series.ts`), which an engine holds on, never reads as 0.
   */
  service?: number;
}

/** What a trace's service series is: its name and unit, and the file it was read from. */
export interface ServiceSeries {
  name: string;
  unit: string;
  source: string;
}

/** A utilisation history, instants sorted by time. */
export interface Trace {
  /** Where it came from (file name), for messages. */
  source: string;
  instants: readonly TraceInstant[];
  /** Distinct pods seen. */
  pods: number;
  /** The service series every instant's `service` holds, when one was read beside the trace. */
  service?: ServiceSeries;
  /** The rows (samples) read out of time order, when any: they were sorted ({@link disorderWarning}). */
  disorder?: TraceDisorder;
}

/**
 * Rows of a trace file whose time is earlier than the row before (in a `query_range` answer: a
 * sample earlier than the one before in its series). Each row carries its own time, so sorting
 * them loses nothing, and a CSV grouped by pod is one; but a file of several exports joined is one
 * too, so the reader is told.
 */
export interface TraceDisorder {
  /** Where the first such row is: `file:line: timestamp_anon`, or the sample's JSON path. */
  at: string;
  /** Its time and the time of the row before it (seconds). */
  t: number;
  after: number;
  /** How many rows (samples) are earlier than the one before them. */
  rows: number;
}

/** Counts the rows out of time order: call `see` with each row's time in file order. */
function disorderCounter(): {
  see: (t: number, prev: number | undefined, where: () => string) => void;
  result: () => TraceDisorder | undefined;
} {
  let first: TraceDisorder | undefined;
  let rows = 0;
  return {
    see: (t, prev, where) => {
      if (prev === undefined || t >= prev) return;
      rows++;
      first ??= { at: where(), t, after: prev, rows: 0 };
    },
    result: () => (first ? { ...first, rows } : undefined),
  };
}

/**
 * What to tell the reader of a trace read out of time order, or null: where the first row out of
 * order is, how many there are, and that the instants were sorted.
 */
export function disorderWarning(trace: Pick<Trace, 'disorder'>): string | null {
  const d = trace.disorder;
  if (!d) return null;
  const more = d.rows === 1 ? '' : `, and ${d.rows - 1} more times out of order after it`;
  return `${d.at}: ${d.t} is earlier than the time before it (${d.after})${more}: the history is not in time order; the replay sorted it by time (check that the file is one export, not several joined)`;
}

/** Offered load (GPU-percent) of an instant: the sum of its pods' utilisation. */
export function offeredLoad(instant: TraceInstant): number {
  let s = 0;
  for (const v of instant.values) s += v;
  return s;
}

/** The step of an instant: time to the next instant (seconds); the last one takes the median step. */
export function instantSeconds(trace: Trace, i: number): number {
  const xs = trace.instants;
  if (i + 1 < xs.length) return xs[i + 1]!.t - xs[i]!.t;
  return medianStep(trace);
}

/** Median spacing of the instants (seconds); 60 for a trace of one instant. */
export function medianStep(trace: Trace): number {
  const xs = trace.instants;
  if (xs.length < 2) return 60;
  const d = xs
    .slice(1)
    .map((x, i) => x.t - xs[i]!.t)
    .sort((a, b) => a - b);
  return d[Math.floor(d.length / 2)]!;
}

/**
 * A sample's utilisation (percent, 0–100) from its cell: a CSV cell, or a query_range value (a
 * string, as Prometheus writes it; a number is taken too). A blank cell, a missing one, `null` or
 * `true` is no number (`Number('')` and `Number(null)` are 0: a hole in the trace must not read as
 * an idle pod). @throws Error at `where`, showing what the cell held
 */
function checkValue(raw: unknown, where: string): number {
  const v =
    typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : Number.NaN;
  if (!Number.isFinite(v) || v < 0 || v > 100) {
    const got = Number.isFinite(v) ? String(v) : raw === undefined ? 'nothing' : JSON.stringify(raw);
    throw new Error(`${where}: expected a utilisation in percent between 0 and 100, got ${got}`);
  }
  return v;
}

/** Sorts the instants, checks their gaps ({@link checkTraceGaps}) and counts the pods. */
function build(
  source: string,
  byTime: Map<number, Map<string, number>>,
  firstAt: Map<number, string>,
  disorder?: TraceDisorder,
): Trace {
  const pods = new Set<string>();
  const instants = [...byTime]
    .sort(([a], [b]) => a - b)
    .map(([t, m]) => {
      for (const p of m.keys()) pods.add(p);
      return { t, values: [...m.values()], pods: [...m.keys()] };
    });
  if (instants.length === 0) throw new Error(`${source}: no samples`);
  checkTraceGaps(
    instants.map((x) => x.t),
    (t) => firstAt.get(t) ?? source,
  );
  return { source, instants, pods: pods.size, ...(disorder ? { disorder } : {}) };
}

/**
 * The column index of each name in a CSV's first line (`lines[0]`).
 * @throws Error naming `source`, line 1 and the columns it has when `name` is not among them
 */
export function csvColumn(firstLine: string | undefined, source: string): (name: string) => number {
  const header = (firstLine ?? '').split(',').map((h) => h.trim());
  return (name) => {
    const i = header.indexOf(name);
    if (i < 0) throw new Error(`${source}:1: header: missing column "${name}" (have: ${header.join(', ')})`);
    return i;
  };
}

/**
 * Parses the trace CSV (header `value,timestamp_anon,container_ip`, columns in any order).
 * A pod reported twice at one instant keeps its last value. Times are bounded ({@link checkTraceTime},
 * {@link checkTraceGaps}).
 * @throws Error naming the file, line and field of the first bad row, or a missing column
 */
export function parseTraceCsv(text: string, source: string): Trace {
  const lines = text.split(/\r?\n/);
  const col = csvColumn(lines[0], source);
  const iv = col('value');
  const it = col('timestamp_anon');
  const ip = col('container_ip');
  const byTime = new Map<number, Map<string, number>>();
  const firstAt = new Map<number, string>();
  const order = disorderCounter();
  let prev: number | undefined;
  for (let n = 1; n < lines.length; n++) {
    const line = lines[n]!;
    if (line.trim() === '') continue;
    const cells = line.split(',');
    const where = (field: string) => `${source}:${n + 1}: ${field}`;
    const v = checkValue(cells[iv], where('value'));
    const t = Number(cells[it]);
    if (!Number.isFinite(t) || cells[it]?.trim() === '')
      throw new Error(`${where('timestamp_anon')}: expected a time in seconds, got "${cells[it] ?? ''}"`);
    checkTraceTime(t, where('timestamp_anon'));
    order.see(t, prev, () => where('timestamp_anon'));
    prev = t;
    if (!firstAt.has(t)) firstAt.set(t, where('timestamp_anon'));
    const pod = (cells[ip] ?? '').trim();
    if (pod === '') throw new Error(`${where('container_ip')}: missing pod identity`);
    let m = byTime.get(t);
    if (!m) byTime.set(t, (m = new Map()));
    m.set(pod, v);
  }
  return build(source, byTime, firstAt, order.result());
}

/** One series of a `query_range` answer, its samples checked (see {@link readRangeSeries}). */
export interface RangeSeries {
  /** Its index in `data.result`, for messages (`data.result[i]`). */
  index: number;
  metric: Record<string, string>;
  /** `[time, value]` in the answer's order: Unix seconds, percent 0..100. */
  samples: [number, number][];
}

/** Where sample `j` of series `i` was read, for messages: `file: data.result[i].values[j][0]`. */
export function sampleWhere(source: string, i: number, j: number): string {
  return `${source}: data.result[${i}].values[${j}][0]`;
}

/** The pod a series is: its `namespace`/`pod` labels, else all its labels. */
export function podOf(metric: Record<string, string>): string {
  return metric.pod !== undefined ? `${metric.namespace ?? ''}/${metric.pod}` : JSON.stringify(metric);
}

/**
 * The series of a Prometheus `query_range` answer (`{status, data: {resultType: "matrix", result}}`,
 * or its `data` alone), each sample's time bounded as in {@link parseTraceCsv} and its value a
 * percent. @throws Error naming the file and the JSON path of the first bad field
 */
export function readRangeSeries(text: string, source: string): RangeSeries[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new Error(`${source}: not JSON: ${(err as Error).message}`);
  }
  const d = doc as { status?: string; error?: string; data?: unknown; resultType?: unknown };
  if (d.status === 'error') throw new Error(`${source}: status: error: ${d.error ?? 'no message'}`);
  const data = (d.data ?? d) as { resultType?: unknown; result?: unknown };
  if (data.resultType !== 'matrix')
    throw new Error(
      `${source}: data.resultType: expected "matrix" (a query_range answer), got ${JSON.stringify(data.resultType)}`,
    );
  if (!Array.isArray(data.result)) throw new Error(`${source}: data.result: expected an array of series`);
  return data.result.map((series: { metric?: Record<string, string>; values?: unknown }, i: number) => {
    if (!Array.isArray(series.values))
      throw new Error(`${source}: data.result[${i}].values: expected an array`);
    const samples = series.values.map((pair: unknown, j: number): [number, number] => {
      const where = `${source}: data.result[${i}].values[${j}]`;
      if (!Array.isArray(pair) || pair.length !== 2) throw new Error(`${where}: expected [time, "value"]`);
      const t = Number(pair[0]);
      if (!Number.isFinite(t))
        throw new Error(`${where}[0]: expected a time in seconds, got ${JSON.stringify(pair[0])}`);
      checkTraceTime(t, `${where}[0]`);
      return [t, checkValue(pair[1], `${where}[1]`)];
    });
    return { index: i, metric: series.metric ?? {}, samples };
  });
}

/**
 * The trace of some series of the answer in `file`: each is one pod ({@link podOf}), its samples
 * the pod's utilisation at each time. `o.times` are instants the trace holds even where none of
 * these series has a sample (no pod then: load 0); `o.name` is the trace's source (default `file`).
 * @throws Error naming the file when there is no sample, or the sample after a gap
 */
export function traceOfSeries(
  series: readonly RangeSeries[],
  file: string,
  o: { name?: string; times?: readonly number[] } = {},
): Trace {
  const byTime = new Map<number, Map<string, number>>((o.times ?? []).map((t) => [t, new Map()]));
  const firstAt = new Map<number, string>();
  const order = disorderCounter();
  for (const s of series) {
    const pod = podOf(s.metric);
    s.samples.forEach(([t, v], j) => {
      order.see(t, s.samples[j - 1]?.[0], () => sampleWhere(file, s.index, j));
      if (!firstAt.has(t)) firstAt.set(t, sampleWhere(file, s.index, j));
      let byPod = byTime.get(t);
      if (!byPod) byTime.set(t, (byPod = new Map()));
      byPod.set(pod, v);
    });
  }
  return build(o.name ?? file, byTime, firstAt, order.result());
}

/**
 * Parses a Prometheus `query_range` answer ({@link readRangeSeries}) into one trace: a series is
 * one pod, named by its `namespace`/`pod` labels (else all labels).
 * @throws Error naming the file and the JSON path of the first bad field
 */
export function parsePrometheusRange(text: string, source: string): Trace {
  return traceOfSeries(readRangeSeries(text, source), source);
}

/** Parses either format: JSON (a `query_range` answer) when the text starts with `{`, else the CSV. */
export function parseTrace(text: string, source: string): Trace {
  return text.trimStart().startsWith('{') ? parsePrometheusRange(text, source) : parseTraceCsv(text, source);
}

/** Seconds from the trace's first instant to its last (0 for one instant). */
export function traceSpanSeconds(trace: Trace): number {
  return trace.instants[trace.instants.length - 1]!.t - trace.instants[0]!.t;
}

/**
 * The instants within `[from, from + seconds)` of the trace's start (for a shorter replay; seconds
 * may be `Infinity`: to the end). @throws Error naming the source, the window and the trace's span
 * when no instant is in it
 */
export function sliceTrace(trace: Trace, fromSeconds: number, seconds: number): Trace {
  const t0 = trace.instants[0]!.t + fromSeconds;
  const instants = trace.instants.filter((x) => x.t >= t0 && x.t < t0 + seconds);
  if (instants.length === 0) {
    const to = Number.isFinite(seconds) ? `${fromSeconds + seconds} s` : 'the end';
    throw new Error(
      `${trace.source}: no samples from ${fromSeconds} s to ${to} (the history spans ${traceSpanSeconds(trace)} s from its first instant to its last)`,
    );
  }
  return { ...trace, instants };
}
