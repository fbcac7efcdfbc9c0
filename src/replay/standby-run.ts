/**
 * The standby fleet of a fleet replay with nodes (pure): under each loop — the flags' delays, and
 * a fast loop (event-driven on a 5 s signal, 5 s ticks) — the fair baseline, the HPA per service on
 * one shared pool grown and shrunk by the cluster-autoscaler model (`autoscaled-pool.ts`), beside
 * gpuops with the pool's shared warm standby set (`standby-fleet.ts`) at every pair of a service β
 * and a standby β of a small grid, on the same nodes, scoring and start-ups. Chosen on the trace
 * itself (said so where printed): the pair of the highest pod-level utilisation that keeps every
 * service within ≤ 2 % pod-time above max and ≤ 0.5 % unserved, and the pair of the fewest pool
 * node-hours at no more unserved load than the baseline.
 */
import type { Policy } from '../definitions/index.js';
import { runHpaOnAutoscaledPool } from './autoscaled-pool.js';
import type { FleetFigures } from './fleet-model.js';
import type { NodeModelSettings } from './fleet-nodes.js';
import { runStandbyOnNodes, type StandbyFigures } from './standby-fleet.js';
import type { Trace } from './trace.js';

/** A claim's wake or switch in the replay (seconds): a model already in GPU memory, woken (vLLM's sleep mode wakes in under a second), or a switch from host memory. */
export const CLAIM_SECONDS = 5;
/** The service β of the grid (each service's own headroom, its share of the pool's). */
export const SERVICE_FACTORS = [0.25, 0.5, 1] as const;
/** The standby β of the grid (the standby set's `β·√ΣL`). */
export const STANDBY_FACTORS = [0.25, 0.5, 1] as const;
/** Limits every service is held to. */
export const STANDBY_LIMITS = { aboveMaxPercent: 2, unservedPercent: 0.5 } as const;

/** One loop's delays for the standby section. */
export interface StandbyLoop {
  name: string;
  sampleDelaySeconds: number;
  tickSeconds: number;
  eventDriven: boolean;
}

/** The fast loop: event-driven on a 5 s signal, 5 s ticks (the pass interval stays the backstop). */
export const FAST_STANDBY_LOOP: StandbyLoop = {
  name: 'fast loop (event-driven, 5 s signal)',
  sampleDelaySeconds: 5,
  tickSeconds: 5,
  eventDriven: true,
};

/** What one loop gave. */
export interface StandbyLoopRun {
  loop: StandbyLoop;
  /** A claim's wake or switch in this run (seconds). */
  claimSeconds: number;
  baseline: FleetFigures;
  grid: StandbyFigures[];
  /** Highest utilisation within the limits (null: no pair kept them). */
  chosen: StandbyFigures | null;
  /** Fewest pool node-hours at unserved ≤ the baseline's (null: none). */
  cheapest: StandbyFigures | null;
}

/** Every service's worst pod-time above max and unserved (percent). */
export function worstService(f: FleetFigures): { aboveMaxPercent: number; unservedPercent: number } {
  return {
    aboveMaxPercent: Math.max(...f.services.map((x) => x.aboveMaxPercent)),
    unservedPercent: Math.max(...f.services.map((x) => x.unservedPercent)),
  };
}

/**
 * The standby section under `loop`: `policyAt(β)` is gpuops's policy at a service β, `s` the
 * fleet's node settings (its delays replaced by the loop's), `fleet` the nodes gpuops runs on; the
 * baseline runs on at least as many (`baselineNodes`), so its pool is never bounded by the fleet.
 * @throws Error when a trace is empty
 */
export async function runStandbyLoop(
  services: readonly Trace[],
  policyAt: (beta: number) => Promise<Policy>,
  s: NodeModelSettings,
  fleet: number,
  baselineNodes: number,
  hpaTarget: number,
  loop: StandbyLoop,
  claimSeconds: number = CLAIM_SECONDS,
): Promise<StandbyLoopRun> {
  const n: NodeModelSettings = {
    ...s,
    sampleDelaySeconds: loop.sampleDelaySeconds,
    tickSeconds: loop.tickSeconds,
    eventDriven: loop.eventDriven,
  };
  const baseline = runHpaOnAutoscaledPool(
    services,
    hpaTarget,
    n,
    Math.max(fleet, baselineNodes),
    `hpa ${hpaTarget} %, one autoscaled pool`,
  ).figures;
  const grid: StandbyFigures[] = [];
  for (const b of SERVICE_FACTORS) {
    const policy = await policyAt(b);
    for (const sb of STANDBY_FACTORS)
      grid.push(
        runStandbyOnNodes(
          services,
          policy,
          n,
          fleet,
          { claimSeconds, standbyFactor: sb },
          `standby β ${b}/${sb}, ${fleet} nodes`,
        ).figures,
      );
  }
  const within = grid.filter((g) => {
    const w = worstService(g);
    return (
      w.aboveMaxPercent <= STANDBY_LIMITS.aboveMaxPercent &&
      w.unservedPercent <= STANDBY_LIMITS.unservedPercent
    );
  });
  const chosen = [...within].sort((a, b) => b.utilizationPercent - a.utilizationPercent)[0] ?? null;
  const cheapest =
    grid
      .filter((g) => g.unservedPercent <= baseline.unservedPercent)
      .sort((a, b) => a.nodes!.poolNodeHours - b.nodes!.poolNodeHours)[0] ?? null;
  return { loop, claimSeconds, baseline, grid, chosen, cheapest };
}
