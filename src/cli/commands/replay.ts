/**
 * `gpuops replay`: the command, its flags (`replay-options.ts`), their checks and settings
 * (`replay-flags.ts`), and the two runs: one service (`replay-one.ts`) or a fleet
 * (`replay-fleet.ts`).
 */
import type { Command } from 'commander';
import { parseTrace } from '../../replay/index.js';
import {
  checkReplayFlags,
  fleetEngines,
  isFleet,
  oneServiceEngines,
  traceTextOf,
  warnDisorder,
  replaySettings,
  oneServiceSlice,
  withServiceFile,
  withTrace,
} from './replay-flags.js';
import { replayFleetFromFlags } from './replay-fleet.js';
import { replayOneService } from './replay-one.js';
import { addReplayOptions, type ReplayArgs } from './replay-options.js';

export { replaySettings } from './replay-flags.js';

/** The replay the flags ask for: checks them (`--trace` first) and the engines, reads the trace, runs a fleet or one service. */
async function replayAction(a: ReplayArgs): Promise<void> {
  const f = withTrace(a);
  checkReplayFlags(f);
  const settings = replaySettings(f);
  if (isFleet(f)) {
    const engines = fleetEngines(f);
    return replayFleetFromFlags(f, traceTextOf(f), settings, engines);
  }
  const engines = oneServiceEngines(f);
  const trace = withServiceFile(f, warnDisorder(parseTrace(traceTextOf(f), f.trace)));
  await replayOneService(oneServiceSlice(f, trace), f, settings, engines);
}

/**
 * Registers `gpuops replay --trace FILE [--report DIR]`: a utilisation history (the trace CSV
 * `value,timestamp_anon,container_ip`, or a Prometheus `query_range` answer of
 * `DCGM_FI_DEV_GPU_UTIL` by pod; `--synthetic [SEED]`: the synthetic day, `replay/synthetic-day.ts`) through static allocation, the HPA, gpuops in patch and PR mode
 * (the real reconcile pass on a simulated cluster) and the ideal; prints the figures of each as a
 * table (or JSON lines); `--report DIR` writes `index.html` (self-contained, SVG charts) and
 * `figures.jsonl`. `--services K` (K shifted copies) or `--group-by LABELS` (one service per group
 * of a `query_range` answer) replays a fleet through the model instead. `--service-file FILE` (one
 * service) also scales on that per-pod series (e.g. requests per second) beside the duty cycle.
 * Exit 0, 1 on failure (a bad trace: the message names the file), 2 on usage errors.
 */
export function register(program: Command): void {
  const cmd = program
    .command('replay')
    .description('replay a GPU utilisation history through static, HPA, gpuops (patch, PR) and the ideal');
  addReplayOptions(cmd).action(replayAction);
}
