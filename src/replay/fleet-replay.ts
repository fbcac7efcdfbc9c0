/**
 * `gpuops replay --services K` or `--group-by LABELS`: a fleet of services (K shifted copies of
 * the trace, `shiftedServices`, or one per group of a `query_range` answer) and every engine over
 * the fleet through the model: static and ideal computed, the HPA per service at `hpaTarget`,
 * gpuops with the pool's headroom shared at `headroomFactor`; the fleet table and its verdicts
 * as text, the rows for the report.
 */
import { loadDefaultPolicy } from '../definitions/load.js';
import { computedFleet, runFleetModel, shiftedServices, type FleetFigures } from './fleet-model.js';
import { formatFleet } from './fleet-text.js';
import type { ModelEngine, ModelSettings } from './model-engine.js';
import { patchPolicy } from './replay-policy.js';
import { replayMaxReplicas } from './run-replay.js';
import type { ReplaySettings } from './sim-engine.js';
import type { Trace } from './trace.js';

/** A fleet replay's figures: one row per engine (static, HPA, gpuops, ideal). */
export interface FleetRun {
  rows: FleetFigures[];
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

/** The two engines the fleet model steps, by row name: the HPA at `hpaTarget`, gpuops at `headroomFactor`. */
export async function fleetModelEngines(s: ReplaySettings): Promise<[string, ModelEngine][]> {
  const base = await loadDefaultPolicy();
  return [
    [`hpa ${s.hpaTarget} %`, { kind: 'hpa', target: s.hpaTarget }],
    [`gpuops β ${s.headroomFactor}`, { kind: 'gpuops', policy: patchPolicy(base, s, s.headroomFactor) }],
  ];
}

/**
 * Every engine over `services` (one trace per service, on the same clock; see the module
 * comment). @throws Error when there is no service or one is empty
 */
export async function runFleet(services: readonly Trace[], s: ReplaySettings): Promise<FleetRun> {
  const m = fleetModelSettings(services, s);
  const [stat, ideal] = computedFleet(services, s.max);
  const modelled = (await fleetModelEngines(s)).map(([name, e]) => runFleetModel(services, e, m, name));
  return { rows: [stat!, ...modelled, ideal!] };
}

/** The fleet replay's text of K shifted copies of `trace`. @throws Error when the trace is empty */
export async function replayFleet(trace: Trace, k: number, s: ReplaySettings): Promise<string> {
  return formatFleet((await runFleet(shiftedServices(trace, k), s)).rows, k);
}
