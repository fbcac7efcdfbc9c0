/**
 * A fleet of services through the fast model (pure): the bundled one-service trace split into K
 * services, and every engine over all of them at once, gpuops with the pool's headroom shared
 * (docs/replay.md, "A fleet of services"). Units as in `figures.ts`.
 */
import { computeFigures, idealPoints, staticPodTime, staticPoints, type EngineFigures } from './figures.js';
import { modelService, type ModelEngine, type ModelSettings } from './model-engine.js';
import type { Trace } from './trace.js';

/**
 * K services from one trace: K circularly shifted copies. Service i keeps the trace's instant
 * times and takes the pod values of instant `(j + round(i·n/K)) mod n` (n instants), so each
 * service has the trace's own load shape, started at another time of day, and the fleet's load
 * is the sum of K phases of one day. Service 0 is the trace itself; named `<source>#i`.
 * @throws Error when k is not a whole number ≥ 1 or the trace is empty
 */
export function shiftedServices(trace: Trace, k: number): Trace[] {
  if (!Number.isInteger(k) || k < 1) throw new Error(`--services: expected a whole number ≥ 1, got ${k}`);
  const n = trace.instants.length;
  if (n === 0) throw new Error(`${trace.source}: no instants to split`);
  return Array.from({ length: k }, (_, i) => {
    const shift = Math.round((i * n) / k);
    return {
      ...trace,
      source: `${trace.source}#${i}`,
      instants: trace.instants.map((x, j) => {
        const from = trace.instants[(j + shift) % n]!;
        return { t: x.t, values: from.values, ...(from.pods ? { pods: from.pods } : {}) };
      }),
    };
  });
}

/**
 * K services from one trace's pods: K disjoint groups, each pod in one (the pods in the order
 * they first report, then by name, dealt round-robin: pod j to group j mod K). Service i keeps
 * every instant of the trace with the values of its own pods (none: load 0), so the services
 * share one clock and their loads add up to the trace's. Named `<source>/pods#i`.
 * @throws Error when k is not a whole number ≥ 1, the trace is empty, or its instants do not
 * name their pods
 */
export function podGroupServices(trace: Trace, k: number): Trace[] {
  if (!Number.isInteger(k) || k < 1) throw new Error(`--pod-groups: expected a whole number ≥ 1, got ${k}`);
  if (trace.instants.length === 0) throw new Error(`${trace.source}: no instants to split`);
  const group = new Map<string, number>();
  for (const x of trace.instants) {
    if (x.pods === undefined) throw new Error(`${trace.source}: its instants do not name their pods`);
    for (const p of [...x.pods].sort()) if (!group.has(p)) group.set(p, group.size % k);
  }
  return Array.from({ length: k }, (_, i) => {
    const instants = trace.instants.map((x) => {
      const keep = x.pods!.flatMap((p, j) => (group.get(p) === i ? [j] : []));
      return { t: x.t, values: keep.map((j) => x.values[j]!), pods: keep.map((j) => x.pods![j]!) };
    });
    const pods = [...group.values()].filter((g) => g === i).length;
    return { source: `${trace.source}/pods#${i}`, instants, pods };
  });
}

/**
 * Node-level figures of one engine over a fleet of nodes (docs/replay.md, "A fleet of nodes"): the
 * nodes its serving pool(s) held over the trace. For gpuops the shared `short-task` pool of the
 * fixed fleet, for the HPA and static one static pool per service sized to its peak (held all the
 * time), for the ideal one pool of exactly the nodes its GPUs need at each instant.
 */
export interface NodeFigures {
  gpusPerNode: number;
  /** Nodes of the fleet the engine ran on (gpuops: `--nodes`; static pools: Σ of their nodes). */
  fleetNodes: number;
  /** Node-hours of the serving pool(s): ∫ nodes held dt (hours). */
  poolNodeHours: number;
  /** GPU-hours of the nodes held: node-hours × `gpusPerNode`. */
  poolGpuHours: number;
  /** The most nodes the pool(s) held at once. */
  peakPoolNodes: number;
  /** Nodes moved from `unused` into the pool (gpuops: `relabel` decisions). */
  nodeMoves: number;
  /** Nodes returned to `unused` (gpuops: `ReturnedIdle`). */
  nodesReturned: number;
}

/** One engine over the fleet: the figures of each service and of all together. */
export interface FleetFigures {
  engine: string;
  services: EngineFigures[];
  /** Σ served ÷ Σ allocated GPU-hours of every service (percent): pod-level utilisation. */
  utilizationPercent: number;
  allocatedGpuHours: number;
  /** Σ unserved ÷ Σ offered (percent). */
  unservedPercent: number;
  /** Pod-time above max over every service (percent; pod-time weighted by allocated hours). */
  aboveMaxPercent: number;
  flaps: number;
  /** With a fleet of nodes (`--nodes`): the node-level figures. */
  nodes?: NodeFigures;
}

const TICK = 15;
const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

/** The fleet figures of per-service figures (see {@link FleetFigures}). */
export function fleetFigures(engine: string, services: EngineFigures[]): FleetFigures {
  const sum = (f: (x: EngineFigures) => number) => services.reduce((a, x) => a + f(x), 0);
  const allocated = sum((x) => x.allocatedGpuHours);
  const offered = sum((x) => x.offeredGpuHours);
  return {
    engine,
    services,
    utilizationPercent: round(allocated > 0 ? (100 * sum((x) => x.servedGpuHours)) / allocated : 0),
    allocatedGpuHours: round(allocated),
    unservedPercent: round(offered > 0 ? (100 * sum((x) => x.unservedGpuHours)) / offered : 0, 3),
    aboveMaxPercent: round(
      allocated > 0 ? sum((x) => x.aboveMaxPercent * x.allocatedGpuHours) / allocated : 0,
    ),
    flaps: sum((x) => x.flaps),
  };
}

/**
 * Every service under `engine` (the model of `model-engine.ts`), stepped together on the same
 * ticks. gpuops reads the pool's summed load — Σ of what each service's pods show, in GPUs — so its
 * headroom is sized for the pool, β·√ΣL, each service carrying its share (`decide-in-turn.ts`);
 * the HPA sizes each service alone. Capacity never binds (no fleet of nodes is modelled here).
 */
export function runFleetModel(
  services: readonly Trace[],
  engine: ModelEngine,
  s: ModelSettings,
  name: string,
): FleetFigures {
  const ms = services.map((t, i) => modelService(t, engine, s, `s${i}`));
  const endS = Math.max(...ms.map((m) => m.endS));
  for (let t = TICK; t < endS; t += TICK) {
    const pool = engine.kind === 'gpuops' ? ms.reduce((a, m) => a + m.seen(t), 0) / 100 : undefined;
    for (const m of ms) if (t < m.endS) m.step(t, pool);
  }
  const figures = ms.map((m, i) =>
    computeFigures(services[i]!, m.points, { engine: `${name}#${i}`, max: s.max, flapWindowSeconds: 300 }),
  );
  return fleetFigures(name, figures);
}

/** Static and ideal over the fleet (computed, as in a one-service replay: static's pod-time above max from each pod's own value). */
export function computedFleet(services: readonly Trace[], max: number): FleetFigures[] {
  const figures = (name: string, t: Trace, i: number) =>
    computeFigures(t, name === 'static' ? staticPoints(t) : idealPoints(t, max), {
      engine: `${name}#${i}`,
      max,
      flapWindowSeconds: 300,
      ...(name === 'static' ? { podTime: staticPodTime(t, max) } : {}),
    });
  return ['static', 'ideal'].map((name) =>
    fleetFigures(
      name,
      services.map((t, i) => figures(name, t, i)),
    ),
  );
}
