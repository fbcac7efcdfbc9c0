/**
 * A utilisation history of several algorithms (pure: text in, traces out): a Prometheus
 * `query_range` answer grouped by labels — e.g. `max by (namespace, deployment, pod)
 * (DCGM_FI_DEV_GPU_UTIL)` grouped by `namespace,deployment` — split into one trace per group, each
 * a service of the fleet replay (docs/replay.md, "Your own fleet"). Within a group each series is
 * one pod and the group's offered load at an instant is the sum of its pods' utilisation, as for a
 * one-service answer (`parsePrometheusRange` in `trace.ts`).
 *
 * Every group's trace holds every instant of the answer (an instant where none of its pods
 * reports has no pod and load 0), so the services are stepped on one clock.
 */
import { readRangeSeries, traceOfSeries, sampleWhere, type RangeSeries, type Trace } from './trace.js';
import { byString } from '../util/index.js';

/** One group of the answer: its label values joined by `/` (`ml/resnet50`) and its trace. */
export interface TraceGroup {
  group: string;
  trace: Trace;
}

const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/**
 * The label names of a `--group-by` value (`namespace,deployment`).
 * @throws Error when empty or a name is not a Prometheus label name
 */
export function groupLabels(value: string): string[] {
  const names = value.split(',').map((s) => s.trim());
  for (const n of names)
    if (!LABEL.test(n))
      throw new Error(
        `--group-by: expected comma-separated label names (namespace,deployment), got "${value}"`,
      );
  return names;
}

/**
 * The answer's step (seconds): the smallest gap between two consecutive samples of one series.
 * Every sample must lie on its grid (the first time + k·step), and a series of three samples or
 * more must have a gap of exactly one step somewhere — else the series came from answers with
 * different steps, and summing them would read a coarse series as absent at the fine instants.
 * A series of one or two samples says nothing about its step. @throws Error naming the file and
 * the series or sample
 */
function checkSteps(series: readonly RangeSeries[], file: string): void {
  const gaps = series.map((s) => {
    const ts = [...new Set(s.samples.map(([t]) => t))].sort((a, b) => a - b);
    return Math.min(...ts.slice(1).map((t, j) => t - ts[j]!));
  });
  const step = Math.min(...gaps);
  if (!Number.isFinite(step)) return;
  const t0 = Math.min(...series.flatMap((s) => s.samples.map(([t]) => t)));
  const fine = series[gaps.indexOf(step)]!;
  for (const [i, s] of series.entries()) {
    if (s.samples.length >= 3 && gaps[i] !== step)
      throw new Error(
        `${file}: data.result[${s.index}] (${JSON.stringify(s.metric)}): mismatched steps: its samples are at least ` +
          `${gaps[i]} s apart, data.result[${fine.index}]'s ${step} s; export every group with one query_range (one step)`,
      );
    s.samples.forEach(([t], j) => {
      const k = (t - t0) / step;
      if (Math.abs(k - Math.round(k)) > 1e-6)
        throw new Error(
          `${sampleWhere(file, s.index, j)}: mismatched steps: time ${t} is off the ${step} s grid from ${t0}; ` +
            'export every group with one query_range (one step)',
        );
    });
  }
}

/**
 * Splits a `query_range` answer (see the module comment) into one trace per distinct value of
 * `labels`, sorted by group name; a trace's source is `file#group`.
 * @param text the answer's JSON; `file` names it in messages; `labels` from {@link groupLabels}
 * @throws Error naming the file and what is wrong: a CSV trace (grouping needs the JSON), no
 *   series, a series without a grouping label, mismatched steps, or a bad field ({@link readRangeSeries})
 */
export function parsePrometheusGroups(text: string, file: string, labels: readonly string[]): TraceGroup[] {
  if (!text.trimStart().startsWith('{'))
    throw new Error(
      `${file}: --group-by ${labels.join(',')} needs a Prometheus query_range answer (JSON); this is not JSON (a CSV trace is one service: use --services K to split it)`,
    );
  const series = readRangeSeries(text, file).filter((s) => s.samples.length > 0);
  if (series.length === 0)
    throw new Error(`${file}: data.result: no series with samples (the query matched nothing)`);
  const groups = new Map<string, RangeSeries[]>();
  for (const s of series) {
    const missing = labels.filter((l) => s.metric[l] === undefined || s.metric[l] === '');
    if (missing.length > 0)
      throw new Error(
        `${file}: data.result[${s.index}].metric: no label ${missing.map((l) => `"${l}"`).join(', ')} to group by ` +
          `(has: ${Object.keys(s.metric).join(', ') || 'none'}); put it in the query's "by (…)"`,
      );
    const key = labels.map((l) => s.metric[l]).join('/');
    groups.set(key, [...(groups.get(key) ?? []), s]);
  }
  checkSteps(series, file);
  const times = [...new Set(series.flatMap((s) => s.samples.map(([t]) => t)))];
  return [...groups]
    .sort(([a], [b]) => byString(a, b))
    .map(([group, ss]) => ({ group, trace: traceOfSeries(ss, file, { name: `${file}#${group}`, times }) }));
}
