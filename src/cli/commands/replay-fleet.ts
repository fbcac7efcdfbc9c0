/**
 * `gpuops replay` of a fleet (`--services K` or `--group-by LABELS`): the services from the flags
 * and the trace, every engine of `--engines` through the model, and on stdout as `--output` asks
 * one JSON line per engine's fleet row (`jsonl`, `both`; the same rows as `figures.jsonl`) and the
 * fleet table with its verdicts (`table`, `both`); with `--report DIR`, the fleet report
 * (`index.html`, see `replay/report-fleet.ts`) and `figures.jsonl` (one fleet row per engine) in DIR.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { FleetFigures, ReplaySettings } from '../../replay/index.js';
import {
  podGroupServices,
  shiftedServices,
  fleetText,
  runFleet,
  type FleetEngine,
  type FleetNodeOptions,
  type FleetRun,
  fleetVerdicts,
  fleetEndSeconds,
  fleetTimelines,
  renderFleetReport,
  parseTrace,
  type Trace,
  parsePrometheusGroups,
} from '../../replay/index.js';
import { makeDirs } from '../../disk/index.js';
import { nodeOptions, sliceOf, warnDisorder } from './replay-flags.js';
import type { ReplayFlags } from './replay-options.js';

/** The services of a fleet replay, their names and how the history was split (for the report). */
export interface FleetInput {
  source: string;
  split: string;
  services: Trace[];
  names: string[];
}

/** What a fleet replay prints and writes, and on what. */
export interface FleetOutput {
  /** `table` (default): the fleet table and verdicts; `jsonl`: one JSON line per row; `both`: lines, then the table. */
  output?: ReplayFlags['output'];
  /** The engines to run (default every one of `FLEET_ENGINES`). */
  engines?: readonly FleetEngine[];
  /** Folder for `index.html` and `figures.jsonl`. */
  reportDir?: string;
  nodes?: FleetNodeOptions;
}

/** One JSON line per fleet row (each engine's fleet figures, with its services' and nodes'). */
export function fleetLines(rows: readonly FleetFigures[]): string {
  return rows.map((r) => JSON.stringify(r)).join('\n') + '\n';
}

/** Writes the fleet report of `run` into `dir`: `index.html` and `figures.jsonl`. */
async function writeFleetReport(
  input: FleetInput,
  settings: ReplaySettings,
  run: FleetRun,
  dir: string,
  started: number,
): Promise<void> {
  const timelines = await fleetTimelines(input.services, settings, run);
  const out = path.resolve(dir);
  makeDirs(out);
  const html = renderFleetReport({
    source: input.source,
    split: input.split,
    services: input.names,
    settings,
    rows: run.rows,
    timelines,
    verdicts: fleetVerdicts(run.rows, run.frontier),
    ...(run.nodes ? { nodes: run.nodes } : {}),
    ...(run.frontier
      ? { frontier: run.frontier.map((figures, i) => ({ beta: settings.headroomFactors[i]!, figures })) }
      : {}),
    endSeconds: fleetEndSeconds(input.services),
    wallSeconds: (Date.now() - started) / 1000,
  });
  writeFileSync(path.join(out, 'index.html'), html);
  writeFileSync(path.join(out, 'figures.jsonl'), fleetLines(run.rows));
  process.stderr.write(`report: ${path.join(out, 'index.html')}\n`);
}

/** Runs the fleet replay of `input`, prints it as `o.output` asks, and writes the report when `o.reportDir` is given. */
export async function replayFleetCommand(
  input: FleetInput,
  settings: ReplaySettings,
  o: FleetOutput = {},
): Promise<void> {
  const started = Date.now();
  const run = await runFleet(input.services, settings, o.nodes, o.engines);
  const output = o.output ?? 'table';
  if (output !== 'table') process.stdout.write(fleetLines(run.rows));
  if (output !== 'jsonl') process.stdout.write(fleetText(run, input.services.length, input.split));
  if (o.reportDir !== undefined) await writeFleetReport(input, settings, run, o.reportDir, started);
}

/**
 * The services the flags ask for from the trace's `text`: one per group of `--group-by` (the
 * groups listed on stdout, on stderr with `--output jsonl`), else `--services` circularly shifted
 * copies, each sliced as `--hours` / `--from-hours` ask. @throws Error naming the file when the
 * trace is bad
 */
export function fleetInput(f: ReplayFlags, text: string): FleetInput {
  if (f.groupBy) {
    const groups = parsePrometheusGroups(text, f.trace, f.groupBy);
    for (const g of groups) warnDisorder(g.trace);
    (f.output === 'jsonl' ? process.stderr : process.stdout).write(
      `services of ${f.trace} by ${f.groupBy.join(',')}: ${groups.map((g, i) => `${i} ${g.group}`).join(', ')}\n`,
    );
    return {
      source: f.trace,
      split: `grouped by ${f.groupBy.join(',')}`,
      services: groups.map((g) => sliceOf(f, g.trace)),
      names: groups.map((g) => g.group),
    };
  }
  const trace = sliceOf(f, warnDisorder(parseTrace(text, f.trace)));
  if (f.podGroups !== undefined)
    return {
      source: f.trace,
      split: `as ${f.podGroups} disjoint groups of its pods`,
      services: podGroupServices(trace, f.podGroups),
      names: Array.from({ length: f.podGroups }, (_, i) => `pods#${i}`),
    };
  return {
    source: f.trace,
    split: `as ${f.services} circularly shifted copies`,
    services: shiftedServices(trace, f.services),
    names: Array.from({ length: f.services }, (_, i) => `#${i}`),
  };
}

/**
 * The fleet replay the flags ask for, of the trace's `text`, with `settings`, through `engines`.
 * @throws Error from the trace or the model
 */
export async function replayFleetFromFlags(
  f: ReplayFlags,
  text: string,
  settings: ReplaySettings,
  engines: readonly FleetEngine[],
): Promise<void> {
  const nodes = nodeOptions(f);
  await replayFleetCommand(fleetInput(f, text), settings, {
    output: f.output,
    engines,
    ...(f.report === undefined ? {} : { reportDir: f.report }),
    ...(nodes ? { nodes } : {}),
  });
}
