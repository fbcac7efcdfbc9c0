/**
 * `gpuops replay --services K`: the trace split into K services (`shiftedServices`) and every
 * engine over the fleet through the model: static and ideal computed, the HPA per service at
 * `hpaTarget`, gpuops with the pool's headroom shared at `headroomFactor`; the fleet table and
 * its verdicts as text.
 */
import { loadDefaultPolicy } from '../definitions/load.js';
import { computedFleet, runFleetModel, shiftedServices } from './fleet-model.js';
import { formatFleet } from './fleet-text.js';
import { patchPolicy } from './replay-policy.js';
import { replayMaxReplicas } from './run-replay.js';
import type { ReplaySettings } from './sim-engine.js';
import type { Trace } from './trace.js';

/** The fleet replay's text (see the module comment). @throws Error when the trace is empty */
export async function replayFleet(trace: Trace, k: number, s: ReplaySettings): Promise<string> {
  return replayServices(shiftedServices(trace, k), s);
}

/**
 * The fleet replay of services given one by one (a `query_range` answer grouped by a label, see
 * `trace-groups.ts`; they share one clock), each service's `maxReplicas` the most any of them
 * may take. @throws Error when there is no service or one is empty
 */
export async function replayServices(services: readonly Trace[], s: ReplaySettings): Promise<string> {
  if (services.length === 0) throw new Error('fleet replay: no services');
  const m = {
    startupSeconds: s.startupSeconds,
    sampleDelaySeconds: s.sampleDelaySeconds,
    passIntervalSeconds: s.passIntervalSeconds,
    min: s.min,
    max: s.max,
    maxReplicas: Math.max(...services.map((t) => replayMaxReplicas(t, s.gpusPerNode))),
  };
  const base = await loadDefaultPolicy();
  const [stat, ideal] = computedFleet(services, s.max);
  const rows = [
    stat!,
    runFleetModel(services, { kind: 'hpa', target: s.hpaTarget }, m, `hpa ${s.hpaTarget} %`),
    runFleetModel(
      services,
      { kind: 'gpuops', policy: patchPolicy(base, s, s.headroomFactor) },
      m,
      `gpuops β ${s.headroomFactor}`,
    ),
    ideal!,
  ];
  return formatFleet(rows, services.length);
}
