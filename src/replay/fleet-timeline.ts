/**
 * A fleet replay over time, for its report (pure): per engine, the GPUs allocated to every service
 * together and the load they left unserved, from each service's allocation (`AllocationPoint`s).
 * Without a fleet of nodes the modelled engines' allocation comes from the model of
 * `model-engine.ts`, every service stepped on the same ticks as `runFleetModel` steps them (a test
 * pins the figures of one to the other); with one, from the node model's own run (`FleetRun`).
 * Units: seconds from the services' first instant, whole GPUs, unserved load in GPUs.
 */
import { idealPoints, staticPoints, type AllocationPoint } from './figures.js';
import { fleetModelSettings, fleetPolicy, type FleetRun } from './fleet-replay.js';
import { modelService, type ModelEngine, type ModelSettings } from './model-engine.js';
import { unservedBuckets } from './report.js';
import type { ReplaySettings } from './replay-settings.js';
import { instantSeconds, offeredLoad, type Trace } from './trace.js';

/** One engine of a fleet over time. */
export interface FleetTimeline {
  /** The engine's row name (`static`, `hpa 55 %`, `gpuops β 1`, `ideal`). */
  engine: string;
  /** Σ GPUs allocated over every service, from `t` on: one point per change. */
  allocated: { t: number; v: number }[];
  /** Σ unserved load over every service (GPUs, mean of each `bucketSeconds` from `t`). */
  unserved: { t: number; v: number }[];
}

const TICK = 15;

/** Seconds from the services' first instant to the end of the last (its step), as the model ends. */
export function fleetEndSeconds(services: readonly Trace[]): number {
  return Math.max(
    ...services.map((t) => {
      const last = t.instants.length - 1;
      return t.instants[last]!.t - t.instants[0]!.t + instantSeconds(t, last);
    }),
  );
}

/** Each service's allocation under `engine`, the services stepped together (see the module comment). */
export function fleetModelPoints(
  services: readonly Trace[],
  engine: ModelEngine,
  s: ModelSettings,
): AllocationPoint[][] {
  const ms = services.map((t, i) => modelService(t, engine, s, `s${i}`));
  const endS = Math.max(...ms.map((m) => m.endS));
  for (let t = TICK; t < endS; t += TICK) {
    const pool = engine.kind === 'gpuops' ? ms.reduce((a, m) => a + m.seen(t), 0) / 100 : undefined;
    for (const m of ms) if (t < m.endS) m.step(t, pool);
  }
  return ms.map((m) => m.points);
}

/** Σ of step series: at every time any service changes, the sum of each one's value then. */
export function sumSteps(series: readonly { t: number; v: number }[][]): { t: number; v: number }[] {
  const times = [...new Set(series.flatMap((s) => s.map((p) => p.t)))].sort((a, b) => a - b);
  const at = series.map(() => -1);
  const out: { t: number; v: number }[] = [];
  for (const t of times) {
    let v = 0;
    series.forEach((s, i) => {
      while (at[i]! + 1 < s.length && s[at[i]! + 1]!.t <= t) at[i]!++;
      v += at[i]! >= 0 ? s[at[i]!]!.v : 0;
    });
    if (out.length === 0 || out[out.length - 1]!.v !== v) out.push({ t, v });
  }
  return out;
}

/** The timeline of one engine whose services' allocation is `points` (one array per service). */
export function fleetTimeline(
  engine: string,
  services: readonly Trace[],
  points: readonly AllocationPoint[][],
  endS: number,
  bucketSeconds = 600,
): FleetTimeline {
  const unserved = services.map((trace, i) => {
    const t0 = trace.instants[0]!.t;
    const offered = trace.instants.map((x) => ({ t: x.t - t0, load: offeredLoad(x) }));
    return unservedBuckets(offered, points[i]!, endS, bucketSeconds);
  });
  return {
    engine,
    allocated: sumSteps(points.map((ps) => ps.map((p) => ({ t: p.t, v: p.allocated })))),
    unserved: unserved[0]!.map((b, j) => ({ t: b.t, v: unserved.reduce((a, u) => a + u[j]!.v, 0) })),
  };
}

/**
 * Every engine of a fleet replay over time, named and ordered as `run.rows` (static, the HPA,
 * gpuops, the ideal, those of them that ran): static's and the ideal's allocation computed, the
 * HPA's and gpuops's from `run.allocation` (with a fleet of nodes) or else from the model stepped
 * again (only for an engine in `run.rows`).
 */
export async function fleetTimelines(
  services: readonly Trace[],
  s: ReplaySettings,
  run: FleetRun,
): Promise<FleetTimeline[]> {
  const m = fleetModelSettings(services, s);
  const endS = fleetEndSeconds(services);
  const modelled = async (kind: 'hpa' | 'gpuops'): Promise<AllocationPoint[][]> =>
    run.allocation?.[kind] ??
    fleetModelPoints(
      services,
      kind === 'hpa' ? { kind, target: s.hpaTarget } : { kind, policy: await fleetPolicy(s) },
      m,
    );
  const pointsOf = async (engine: string): Promise<AllocationPoint[][]> => {
    const kind = engine.split(/[ ,]/)[0]!;
    if (kind === 'static') return services.map(staticPoints);
    if (kind === 'ideal') return services.map((t) => idealPoints(t, s.max));
    if (kind === 'hpa' || kind === 'gpuops') return modelled(kind);
    throw new Error(`fleet timeline: no allocation for engine "${engine}"`);
  };
  const out: FleetTimeline[] = [];
  for (const r of run.rows) out.push(fleetTimeline(r.engine, services, await pointsOf(r.engine), endS));
  return out;
}
