/**
 * The figures of a replay (pure): from the trace's offered load and an engine's allocation over
 * time, the measures every engine is compared by (docs/replay.md). Units: time in seconds from the
 * trace's first instant, loads in GPU-percent (100 = one GPU fully busy), GPUs whole (1 GPU per
 * pod).
 *
 * Over every stretch of time where the offered load `o` (the trace's, piecewise constant from each
 * instant to the next) and the engine's state are constant, lasting `dt`:
 * - allocated GPU-time += `allocated × dt`: GPUs held by the algorithm's pods bound to a node,
 *   starting or Ready (a starting pod holds its GPU);
 * - served = min(o, 100 × ready) (only Ready pods serve), unserved = o − served;
 * - pod-time += `ready × dt`, and counts as above max when `o / ready > max` (the per-GPU
 *   utilisation the Ready pods show exceeds the max threshold; at exactly max it is not above).
 *
 * Mean utilisation of allocated GPUs = served GPU-time ÷ (100 × allocated GPU-time).
 * Replica changes are the changes of the engine's replica count; a flap is a change whose
 * direction reverses the previous change's within `flapWindowSeconds` of it (the scale-down
 * stabilisation window: the HPA's default behaviour is built to prevent exactly that).
 */
import { instantSeconds, offeredLoad, type Trace } from './trace.js';

/** An engine's state from `t` on (until the next point): see the module comment. */
export interface AllocationPoint {
  /** Seconds from the trace's first instant. */
  t: number;
  /** GPUs held (pods bound to a node, starting or Ready). */
  allocated: number;
  /** GPUs of Ready pods (serving). */
  ready: number;
  /** The engine's replica count (Deployment `spec.replicas`, or the static/ideal count). */
  replicas: number;
}

/** A marker: gpuops (or the HPA) changed replicas, or a node moved between pools. */
export interface ReplayEvent {
  t: number;
  kind: 'scale' | 'relabel';
  /** `3 → 5` or `gpu-a100-03: unused → short-task`. */
  text: string;
}

/** The measures of one engine (see the module comment). */
export interface EngineFigures {
  engine: string;
  /** Mean utilisation of allocated GPUs (percent). */
  utilizationPercent: number;
  allocatedGpuHours: number;
  /** Against static (negative: more than static). */
  savedGpuHours: number;
  savedPercent: number;
  /** Share of Ready pod-time above the max threshold (percent). */
  aboveMaxPercent: number;
  offeredGpuHours: number;
  servedGpuHours: number;
  unservedGpuHours: number;
  /** Unserved ÷ offered (percent). */
  unservedPercent: number;
  replicaChanges: number;
  flaps: number;
  nodeRelabels: number;
  /** Wall time of this engine's replay (seconds); 0 for computed engines. */
  wallSeconds: number;
}

/** Inputs of {@link computeFigures} beyond the trace and points. */
export interface FigureOptions {
  engine: string;
  /** Max threshold (percent). */
  max: number;
  flapWindowSeconds: number;
  /** Allocated GPU-hours of static (for the saving); omit for static itself. */
  staticGpuHours?: number;
  nodeRelabels?: number;
  wallSeconds?: number;
  /**
   * Pod-time above max measured otherwise (static: each pod's own value, not the spread load),
   * as `{ above, total }` pod-seconds.
   */
  podTime?: { above: number; total: number };
}

/** Replica changes and flaps of a replica count series (points sorted by time). */
export function changesAndFlaps(
  points: readonly Pick<AllocationPoint, 't' | 'replicas'>[],
  windowSeconds: number,
): { changes: number; flaps: number } {
  let changes = 0;
  let flaps = 0;
  let last: { t: number; dir: number } | null = null;
  for (let i = 1; i < points.length; i++) {
    const d = points[i]!.replicas - points[i - 1]!.replicas;
    if (d === 0) continue;
    changes++;
    const dir = Math.sign(d);
    const t = points[i]!.t;
    if (last !== null && dir !== last.dir && t - last.t < windowSeconds) flaps++;
    last = { t, dir };
  }
  return { changes, flaps };
}

const round = (x: number, digits = 2): number => Math.round(x * 10 ** digits) / 10 ** digits;

/** Each instant's stretch (seconds from the first instant, start and end) and offered load. */
interface InstantTable {
  start: Float64Array;
  end: Float64Array;
  load: Float64Array;
}

/**
 * The instant tables computed so far, by the trace's instants (the replay measures hundreds of
 * runs of one trace: the model's frontiers, every rule of the causal bounds). The key is sound
 * because a trace's instants cannot change once read: `Trace.instants` and each instant's `t` and
 * `values` are read-only (tsc refuses a push or an assignment), and a trace made of other instants
 * (`sliceTrace`, a spread with a new array) is a new key.
 */
const tables = new WeakMap<readonly unknown[], InstantTable>();

/** The stretch and offered load of every instant of `trace` (`instantSeconds`, `offeredLoad`). */
function instantTable(trace: Trace): InstantTable {
  const xs = trace.instants;
  const known = tables.get(xs);
  if (known !== undefined) return known;
  const t0 = xs[0]!.t;
  const table = {
    start: new Float64Array(xs.length),
    end: new Float64Array(xs.length),
    load: new Float64Array(xs.length),
  };
  for (let i = 0; i < xs.length; i++) {
    table.start[i] = xs[i]!.t - t0;
    table.end[i] = table.start[i]! + instantSeconds(trace, i);
    table.load[i] = offeredLoad(xs[i]!);
  }
  tables.set(xs, table);
  return table;
}

/**
 * The figures of an engine whose state is `points` (sorted by `t`; the state before the first
 * point is empty) over the whole trace. @throws Error when `points` is empty or unsorted
 */
export function computeFigures(
  trace: Trace,
  points: readonly AllocationPoint[],
  o: FigureOptions,
): EngineFigures {
  if (points.length === 0) throw new Error(`${o.engine}: no allocation points`);
  for (let i = 1; i < points.length; i++)
    if (points[i]!.t < points[i - 1]!.t)
      throw new Error(`${o.engine}: allocation points out of order at ${i}`);
  const { start: starts, end: ends, load: loads } = instantTable(trace);
  let allocated = 0; // GPU-seconds
  let served = 0; // GPU-percent-seconds
  let offered = 0;
  let podTime = 0;
  let above = 0;
  let p = 0;
  for (let i = 0; i < loads.length; i++) {
    const end = ends[i]!;
    const load = loads[i]!;
    let t = starts[i]!;
    while (p + 1 < points.length && points[p + 1]!.t <= t) p++;
    while (t < end) {
      const ahead = points[p]!.t > t ? points[p]!.t : p + 1 < points.length ? points[p + 1]!.t : end;
      const next = Math.min(end, ahead);
      const dt = next - t;
      const s = points[p]!.t <= t ? points[p]! : { allocated: 0, ready: 0 };
      allocated += s.allocated * dt;
      const cap = 100 * s.ready;
      served += Math.min(load, cap) * dt;
      offered += load * dt;
      podTime += s.ready * dt;
      if (s.ready > 0 && load / s.ready > o.max) above += s.ready * dt;
      t = next;
      if (p + 1 < points.length && points[p + 1]!.t <= t) p++;
    }
  }
  const pt = o.podTime ?? { above, total: podTime };
  const allocatedHours = allocated / 3600;
  const { changes, flaps } = changesAndFlaps(points, o.flapWindowSeconds);
  const staticHours = o.staticGpuHours ?? allocatedHours;
  return {
    engine: o.engine,
    utilizationPercent: round(allocated > 0 ? served / allocated : 0),
    allocatedGpuHours: round(allocatedHours),
    savedGpuHours: round(staticHours - allocatedHours),
    savedPercent: round(staticHours > 0 ? (100 * (staticHours - allocatedHours)) / staticHours : 0),
    aboveMaxPercent: round(pt.total > 0 ? (100 * pt.above) / pt.total : 0),
    offeredGpuHours: round(offered / 360000, 4),
    servedGpuHours: round(served / 360000, 4),
    unservedGpuHours: round((offered - served) / 360000, 4),
    unservedPercent: round(offered > 0 ? (100 * (offered - served)) / offered : 0, 3),
    replicaChanges: changes,
    flaps,
    nodeRelabels: o.nodeRelabels ?? 0,
    wallSeconds: round(o.wallSeconds ?? 0, 1),
  };
}

/** Static allocation: the pods reporting at each instant, all Ready. */
export function staticPoints(trace: Trace): AllocationPoint[] {
  const t0 = trace.instants[0]!.t;
  return trace.instants.map((x) => ({
    t: x.t - t0,
    allocated: x.values.length,
    ready: x.values.length,
    replicas: x.values.length,
  }));
}

/** Static's pod-time above max: each pod's own value at each instant (pod-seconds). */
export function staticPodTime(trace: Trace, max: number): { above: number; total: number } {
  let above = 0;
  let total = 0;
  trace.instants.forEach((x, i) => {
    const dt = instantSeconds(trace, i);
    total += x.values.length * dt;
    above += x.values.filter((v) => v > max).length * dt;
  });
  return { above, total };
}

/**
 * The ideal: at each instant the fewest GPUs that keep utilisation at or below max,
 * `ceil(offered / max)` (0 with no load), Ready at once. No controller beats it: it knows the load
 * before it comes and starts pods in no time.
 */
export function idealPoints(trace: Trace, max: number): AllocationPoint[] {
  const t0 = trace.instants[0]!.t;
  return trace.instants.map((x) => {
    const n = Math.ceil(offeredLoad(x) / max - 1e-9);
    return { t: x.t - t0, allocated: n, ready: n, replicas: n };
  });
}

/** One line per engine, aligned, for the terminal. */
export function formatTable(rows: readonly EngineFigures[]): string {
  const head = [
    'engine',
    'util %',
    'GPU-h',
    'saved GPU-h',
    'saved %',
    'above max %',
    'unserved GPU-h',
    'unserved %',
    'changes',
    'flaps',
    'relabels',
    'wall s',
  ];
  const body = rows.map((r) => [
    r.engine,
    r.utilizationPercent.toFixed(1),
    r.allocatedGpuHours.toFixed(1),
    r.savedGpuHours.toFixed(1),
    r.savedPercent.toFixed(1),
    r.aboveMaxPercent.toFixed(2),
    r.unservedGpuHours.toFixed(3),
    r.unservedPercent.toFixed(3),
    String(r.replicaChanges),
    String(r.flaps),
    String(r.nodeRelabels),
    r.wallSeconds.toFixed(1),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(head), ...body.map(line)].join('\n') + '\n';
}
