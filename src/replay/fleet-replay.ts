/**
 * `gpuops replay --services K [--nodes N]`: the trace split into K services (`shiftedServices`)
 * and every engine over the fleet through the model. Without a fleet of nodes: static and ideal
 * computed, the HPA per service at `hpaTarget`, gpuops with the pool's headroom shared at
 * `headroomFactor` (capacity never binds). With one (`fleet-nodes.ts`): gpuops on N nodes that it
 * moves in and returns, the HPA per service on static pools sized to its peak, static's pools and
 * the ideal's pool, each with node-level figures. The fleet table and its verdicts as text, the
 * rows (and with nodes, each engine's allocation over time) for the report.
 */
import { loadDefaultPolicy } from '../definitions/index.js';
import type { Policy } from '../definitions/index.js';
import type { AllocationPoint } from './figures.js';
import { computedFleet, runFleetModel, shiftedServices, type FleetFigures } from './fleet-model.js';
import { idealPoolFigures, staticPoolFigures } from './fleet-node-pools.js';
import {
  runGpuopsOnNodes,
  runGpuopsOnNodesWithPoints,
  runHpaOnPools,
  type NodeModelSettings,
} from './fleet-nodes.js';
import { formatFleet } from './fleet-text.js';
import type { ModelSettings } from './model-engine.js';
import { staticPoolNodes } from './node-fleet.js';
import { patchPolicy } from './replay-policy.js';
import { replayMaxReplicas } from './run-replay.js';
import type { ReplaySettings } from './replay-settings.js';
import {
  DEFAULT_SCORED_RESOURCES,
  fitProfileText,
  type FitProfile,
  type FitScoring,
  type ScoredResource,
} from './scheduler-score.js';
import { FAST_STANDBY_LOOP, runStandbyLoop, type StandbyLoop, type StandbyLoopRun } from './standby-run.js';
import { formatStandby } from './standby-text.js';
import type { Trace } from './trace.js';

/** The fleet of nodes of a fleet replay. */
export interface FleetNodeOptions {
  /**
   * Nodes of the fleet gpuops runs on; `auto`: as many as the HPA's static pools hold together
   * (the same hardware as a team's fixed cluster).
   */
  nodes: number | 'auto';
  /** kube-scheduler's NodeResourcesFit strategy; default `LeastAllocated` (its default). */
  scoring?: FitScoring;
  /** The resources NodeResourcesFit scores; default the default profile's cpu and memory. */
  resources?: readonly ScoredResource[];
}

/** A fleet replay's figures: one row per engine (static, HPA, gpuops, ideal), and the nodes gpuops had. */
export interface FleetRun {
  rows: FleetFigures[];
  /** With a fleet of nodes: the nodes gpuops ran on, and each service's HPA static pool (nodes). */
  nodes?: { fleet: number; hpaPools: number[]; scoring?: string };
  /**
   * With a fleet of nodes: gpuops on the same nodes at every factor of `headroomFactors` (its
   * node-hours against unserved load, to read at the HPA's unserved load).
   */
  frontier?: FleetFigures[];
  /**
   * With a fleet of nodes: the HPA's and gpuops's allocation over time (of those that ran), each
   * service's points (the report's charts; without nodes `fleet-timeline.ts` steps the model for them).
   */
  allocation?: { hpa?: AllocationPoint[][]; gpuops?: AllocationPoint[][] };
  /**
   * With a fleet of nodes, the HPA and gpuops: the shared warm standby set beside the HPA on one
   * autoscaled pool, under the flags' loop and the fast loop (`standby-run.ts`).
   */
  standby?: StandbyLoopRun[];
}

/**
 * The model's settings for a fleet: the replay's delays and limits, each service's `maxReplicas`
 * the most any of them may take. @throws Error when there is no service
 */
export function fleetModelSettings(services: readonly Trace[], s: ReplaySettings): ModelSettings {
  if (services.length === 0) throw new Error('fleet replay: no services');
  return {
    startupSeconds: s.startupSeconds,
    sampleDelaySeconds: s.sampleDelaySeconds,
    passIntervalSeconds: s.passIntervalSeconds,
    min: s.min,
    max: s.max,
    maxReplicas: Math.max(...services.map((t) => replayMaxReplicas(t, s.gpusPerNode))),
  };
}

/** The row names of the fleet's HPA (at `hpaTarget`) and gpuops (at `headroomFactor`) without nodes. */
export function fleetEngineNames(s: ReplaySettings): { hpa: string; gpuops: string } {
  return { hpa: `hpa ${s.hpaTarget} %`, gpuops: `gpuops β ${s.headroomFactor}` };
}

/** gpuops's policy in a fleet replay: the shipped defaults, patch mode, headroom sizing at `beta` (default `headroomFactor`). */
export async function fleetPolicy(s: ReplaySettings, beta = s.headroomFactor): Promise<Policy> {
  return patchPolicy(await loadDefaultPolicy(), s, beta);
}

/** The engines a fleet replay runs, in the order of its rows: all through the model (no simulated cluster). */
export const FLEET_ENGINES = ['static', 'hpa', 'gpuops', 'ideal'] as const;
/** One engine of {@link FLEET_ENGINES}. */
export type FleetEngine = (typeof FLEET_ENGINES)[number];

/**
 * The engines of `engines` (default every one) over `services` (one trace per service, on the
 * same clock); the rows in the order of {@link FLEET_ENGINES}, an engine left out is not run
 * (with a fleet of nodes the HPA's static pools are still sized, for the fleet's head line and
 * `--nodes auto`; gpuops's frontier only with gpuops). @throws Error when a service's trace is
 * empty or `nodes` is not a whole number ≥ 0
 */
export async function runFleet(
  services: readonly Trace[],
  s: ReplaySettings,
  o?: FleetNodeOptions,
  engines: readonly FleetEngine[] = FLEET_ENGINES,
): Promise<FleetRun> {
  const m = fleetModelSettings(services, s);
  const policy = await fleetPolicy(s);
  const [stat, ideal] = computedFleet(services, s.max);
  const { hpa: hpaName, gpuops: gpuopsName } = fleetEngineNames(s);
  const want = (e: FleetEngine) => engines.includes(e);
  const rows = (r: Partial<Record<FleetEngine, FleetFigures>>) =>
    FLEET_ENGINES.filter(want).map((e) => r[e]!);
  if (o === undefined)
    return {
      rows: rows({
        static: stat!,
        ideal: ideal!,
        ...(want('hpa')
          ? { hpa: runFleetModel(services, { kind: 'hpa', target: s.hpaTarget }, m, hpaName) }
          : {}),
        ...(want('gpuops')
          ? { gpuops: runFleetModel(services, { kind: 'gpuops', policy }, m, gpuopsName) }
          : {}),
      }),
    };
  const scoring: FitProfile = {
    strategy: o.scoring ?? 'LeastAllocated',
    resources: o.resources ?? DEFAULT_SCORED_RESOURCES,
  };
  const n: NodeModelSettings = { ...m, gpusPerNode: s.gpusPerNode, scoring };
  const free = runHpaOnPools(services, s.hpaTarget, n, null, hpaName);
  const hpaPools = free.peakReplicas.map((r) => staticPoolNodes(r, s.gpusPerNode));
  const fleet = o.nodes === 'auto' ? hpaPools.reduce((a, x) => a + x, 0) : o.nodes;
  const hpa = want('hpa')
    ? runHpaOnPools(services, s.hpaTarget, n, hpaPools, `${hpaName}, static pools`)
    : undefined;
  const gpuops = want('gpuops')
    ? runGpuopsOnNodesWithPoints(services, policy, n, fleet, `${gpuopsName}, ${fleet} nodes`)
    : undefined;
  return {
    rows: rows({
      static: { ...stat!, nodes: staticPoolFigures(services, s.gpusPerNode) },
      ideal: { ...ideal!, nodes: idealPoolFigures(services, s.max, s.gpusPerNode) },
      ...(hpa ? { hpa: hpa.figures } : {}),
      ...(gpuops ? { gpuops: gpuops.figures } : {}),
    }),
    nodes: { fleet, hpaPools, scoring: fitProfileText(scoring) },
    allocation: { ...(hpa ? { hpa: hpa.points } : {}), ...(gpuops ? { gpuops: gpuops.points } : {}) },
    ...(gpuops ? { frontier: await nodeFrontier(services, s, n, fleet, gpuops.figures) } : {}),
    ...(hpa && gpuops ? { standby: await standbyLoops(services, s, n, fleet, hpaPools) } : {}),
  };
}

/** The standby section under the flags' loop and the fast loop (see `standby-run.ts`). */
async function standbyLoops(
  services: readonly Trace[],
  s: ReplaySettings,
  n: NodeModelSettings,
  fleet: number,
  hpaPools: readonly number[],
): Promise<StandbyLoopRun[]> {
  const flags: StandbyLoop = {
    name: "the flags' loop",
    sampleDelaySeconds: s.sampleDelaySeconds,
    tickSeconds: s.tickSeconds ?? 15,
    eventDriven: s.eventDriven ?? false,
  };
  const baselineNodes = hpaPools.reduce((a, x) => a + x, 0);
  const policyAt = (b: number) => fleetPolicy(s, b);
  const out: StandbyLoopRun[] = [];
  for (const loop of [flags, FAST_STANDBY_LOOP])
    out.push(
      await runStandbyLoop(services, policyAt, n, fleet, baselineNodes, s.hpaTarget, loop, s.claimSeconds),
    );
  return out;
}

/** gpuops on the same `fleet` nodes at every factor of `headroomFactors` (`atFactor`: the run at `headroomFactor`). */
async function nodeFrontier(
  services: readonly Trace[],
  s: ReplaySettings,
  n: NodeModelSettings,
  fleet: number,
  atFactor: FleetFigures,
): Promise<FleetFigures[]> {
  return Promise.all(
    s.headroomFactors.map(async (b) =>
      b === s.headroomFactor
        ? atFactor
        : runGpuopsOnNodes(services, await fleetPolicy(s, b), n, fleet, `gpuops β ${b}, ${fleet} nodes`),
    ),
  );
}

/** The fleet replay's text of K shifted copies of `trace` (see the module comment). @throws Error when the trace is empty */
export async function replayFleet(
  trace: Trace,
  k: number,
  s: ReplaySettings,
  o?: FleetNodeOptions,
): Promise<string> {
  return replayServices(shiftedServices(trace, k), s, o);
}

/**
 * The fleet replay's text of services given one by one (a `query_range` answer grouped by a
 * label, see `trace-groups.ts`; they share one clock), each service's `maxReplicas` the most any
 * of them may take. @throws Error when there is no service or one is empty
 */
export async function replayServices(
  services: readonly Trace[],
  s: ReplaySettings,
  o?: FleetNodeOptions,
): Promise<string> {
  const run = await runFleet(services, s, o);
  return fleetText(run, services.length, 'the services given');
}

/** The fleet table and verdicts, then the standby section when there is one. */
export function fleetText(run: FleetRun, services: number, split: string): string {
  return (
    formatFleet(run.rows, services, run.nodes, run.frontier) +
    (run.standby ? formatStandby(run.standby, split) : '')
  );
}
