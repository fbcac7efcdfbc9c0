/**
 * `gpuops replay` of a fleet (`--services K` or `--group-by LABELS`): the services from the flags
 * and the trace, the fleet table and its verdicts on stdout and, with `--report DIR`, the fleet
 * report (`index.html`, see `replay/report-fleet.ts`) and `figures.jsonl` (one fleet row per
 * engine) in DIR.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { runFleet, type FleetNodeOptions } from '../../replay/fleet-replay.js';
import { formatFleet, fleetVerdicts } from '../../replay/fleet-text.js';
import { fleetEndSeconds, fleetTimelines } from '../../replay/fleet-timeline.js';
import { renderFleetReport } from '../../replay/report-fleet.js';
import type { ReplaySettings } from '../../replay/sim-engine.js';
import { shiftedServices } from '../../replay/fleet-model.js';
import { parseTrace, type Trace } from '../../replay/trace.js';
import { parsePrometheusGroups } from '../../replay/trace-groups.js';
import { makeDirs } from '../../util/make-dirs.js';
import { nodeOptions, sliceOf } from './replay-flags.js';
import type { ReplayFlags } from './replay-options.js';

/** The services of a fleet replay, their names and how the history was split (for the report). */
export interface FleetInput {
  source: string;
  split: string;
  services: Trace[];
  names: string[];
}

/** Runs the fleet replay of `input` (on `nodes` when given), prints it, and writes the report into `reportDir` when given. */
export async function replayFleetCommand(
  input: FleetInput,
  settings: ReplaySettings,
  reportDir?: string,
  nodes?: FleetNodeOptions,
): Promise<void> {
  const started = Date.now();
  const run = await runFleet(input.services, settings, nodes);
  const rows = run.rows;
  const verdicts = fleetVerdicts(rows, run.frontier);
  process.stdout.write(formatFleet(rows, input.services.length, run.nodes, run.frontier));
  if (reportDir === undefined) return;
  const timelines = await fleetTimelines(input.services, settings, run);
  const out = path.resolve(reportDir);
  makeDirs(out);
  const html = renderFleetReport({
    source: input.source,
    split: input.split,
    services: input.names,
    settings,
    rows,
    timelines,
    verdicts,
    ...(run.nodes ? { nodes: run.nodes } : {}),
    ...(run.frontier
      ? { frontier: run.frontier.map((figures, i) => ({ beta: settings.headroomFactors[i]!, figures })) }
      : {}),
    endSeconds: fleetEndSeconds(input.services),
    wallSeconds: (Date.now() - started) / 1000,
  });
  writeFileSync(path.join(out, 'index.html'), html);
  writeFileSync(path.join(out, 'figures.jsonl'), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  process.stderr.write(`report: ${path.join(out, 'index.html')}\n`);
}

/**
 * The services the flags ask for from the trace's `text`: one per group of `--group-by` (the
 * groups listed on stdout), else `--services` circularly shifted copies, each sliced as
 * `--hours` / `--from-hours` ask. @throws Error naming the file when the trace is bad
 */
export function fleetInput(f: ReplayFlags, text: string): FleetInput {
  if (f.groupBy) {
    const groups = parsePrometheusGroups(text, f.trace, f.groupBy);
    process.stdout.write(
      `services of ${f.trace} by ${f.groupBy.join(',')}: ${groups.map((g, i) => `${i} ${g.group}`).join(', ')}\n`,
    );
    return {
      source: f.trace,
      split: `grouped by ${f.groupBy.join(',')}`,
      services: groups.map((g) => sliceOf(f, g.trace)),
      names: groups.map((g) => g.group),
    };
  }
  const trace = sliceOf(f, parseTrace(text, f.trace));
  return {
    source: f.trace,
    split: `as ${f.services} circularly shifted copies`,
    services: shiftedServices(trace, f.services),
    names: Array.from({ length: f.services }, (_, i) => `#${i}`),
  };
}

/** The fleet replay the flags ask for, of the trace's `text`, with `settings`. @throws Error from the trace or the model */
export async function replayFleetFromFlags(
  f: ReplayFlags,
  text: string,
  settings: ReplaySettings,
): Promise<void> {
  await replayFleetCommand(fleetInput(f, text), settings, f.report, nodeOptions(f));
}
