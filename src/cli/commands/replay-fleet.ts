/**
 * `gpuops replay` of a fleet (`--services K` or `--group-by LABELS`): the fleet table and its
 * verdicts on stdout and, with `--report DIR`, the fleet report (`index.html`, see
 * `replay/report-fleet.ts`) and `figures.jsonl` (one fleet row per engine) in DIR.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { runFleet, type FleetNodeOptions } from '../../replay/fleet-replay.js';
import { formatFleet, fleetVerdicts } from '../../replay/fleet-text.js';
import { fleetEndSeconds, fleetTimelines } from '../../replay/fleet-timeline.js';
import { renderFleetReport } from '../../replay/report-fleet.js';
import type { ReplaySettings } from '../../replay/sim-engine.js';
import type { Trace } from '../../replay/trace.js';
import { makeDirs } from '../../util/make-dirs.js';

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
