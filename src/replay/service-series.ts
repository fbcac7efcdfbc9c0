/**
 * A service's own load beside a utilisation trace (pure: text in, trace out), so the replay can
 * scale on it instead of the GPU duty cycle. The bundled trace's `qps.csv` is such a series:
 * header `timestamp_anon,value,container_ip,request_type`, `value` in requests per second per
 * pod at the trace's own sampling instants. Rows without a pod (`container_ip` empty: the
 * gateway's `API Requests`) are the whole service's, not one replica's, and are left out.
 *
 * The file has a row only where a pod served requests (no row holds 0; its smallest value is one
 * request per sample), so within the series' span an instant without a row is 0 requests per
 * second. Before its first row and after its last the service was not recorded: those instants
 * carry no reading, and an engine on this signal holds there (no scale-down on missing data).
 */
import { checkTraceTime } from './trace-bounds.js';
import { csvColumn, type ServiceSeries, type Trace } from './trace.js';

/** The service's load summed over its pods at each time it was sampled (seconds → unit). */
export interface ServiceSums {
  /** Time (seconds) → Σ of the pods' values then. */
  byTime: Map<number, number>;
  /** Rows left out because they name no pod. */
  withoutPod: number;
}

/**
 * Parses a per-pod service CSV (columns `timestamp_anon`, `value`, `container_ip` in any order;
 * other columns ignored) into its sums per time. @throws Error naming the file, line and field of
 * the first bad row (a value not a finite number ≥ 0, a time not in Unix seconds), a missing
 * column, or a file with no per-pod row
 */
export function parseServiceCsv(text: string, source: string): ServiceSums {
  const lines = text.split(/\r?\n/);
  const col = csvColumn(lines[0], source);
  const [iv, it, ip] = [col('value'), col('timestamp_anon'), col('container_ip')];
  const byTime = new Map<number, number>();
  let withoutPod = 0;
  for (let n = 1; n < lines.length; n++) {
    const line = lines[n]!;
    if (line.trim() === '') continue;
    const cells = line.split(',');
    const where = (field: string) => `${source}:${n + 1}: ${field}`;
    if ((cells[ip] ?? '').trim() === '') {
      withoutPod++;
      continue;
    }
    const cell = (cells[iv] ?? '').trim();
    const v = Number(cell);
    if (cell === '' || !Number.isFinite(v) || v < 0)
      throw new Error(`${where('value')}: expected a finite number 0 or more, got "${cell}"`);
    const tc = (cells[it] ?? '').trim();
    const t = Number(tc);
    if (tc === '' || !Number.isFinite(t))
      throw new Error(`${where('timestamp_anon')}: expected a time in seconds, got "${tc}"`);
    checkTraceTime(t, where('timestamp_anon'));
    byTime.set(t, (byTime.get(t) ?? 0) + v);
  }
  if (byTime.size === 0) throw new Error(`${source}: no row names a pod (container_ip): no per-pod series`);
  return { byTime, withoutPod };
}

/**
 * `trace` with each instant's `service` set from `sums`: the sum of the rows at or after that
 * instant and before the next (a row between two instants belongs to the one before it; rows
 * before the first instant are left out); 0 within the series' span where no row falls, absent
 * outside it (no reading: see the module comment). `series` names what the values are.
 */
export function withServiceSeries(trace: Trace, sums: ServiceSums, series: ServiceSeries): Trace {
  const times = [...sums.byTime.keys()].sort((a, b) => a - b);
  const first = times[0]!;
  const last = times[times.length - 1]!;
  const xs = trace.instants;
  const inSpan = (i: number) => (xs[i + 1] === undefined || xs[i + 1]!.t > first) && xs[i]!.t <= last;
  let j = 0;
  const instants = xs.map((x, i) => {
    const next = xs[i + 1]?.t ?? Infinity;
    while (j < times.length && times[j]! < x.t) j++;
    let sum = 0;
    while (j < times.length && times[j]! < next) sum += sums.byTime.get(times[j++]!)!;
    const { service: _old, ...rest } = x;
    return inSpan(i) ? { ...rest, service: sum } : rest;
  });
  return { ...trace, instants, service: series };
}
