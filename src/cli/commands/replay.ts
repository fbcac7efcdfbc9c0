import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { formatAnalysis } from '../../replay/analysis-text.js';
import { formatTable } from '../../replay/figures.js';
import { formatVerdicts } from '../../replay/targets.js';
import { renderReport } from '../../replay/report.js';
import { ENGINES, runReplay, type Engine } from '../../replay/run-replay.js';
import { DEFAULT_REPLAY_SETTINGS, type ReplaySettings } from '../../replay/sim-engine.js';
import { parseTrace, sliceTrace, type Trace } from '../../replay/trace.js';
import { UsageError } from '../settings.js';
import { makeDirs } from '../../util/make-dirs.js';
import { shiftedServices } from '../../replay/fleet-model.js';
import { replayFleetCommand } from './replay-fleet.js';
import { groupLabels, parsePrometheusGroups } from '../../replay/trace-groups.js';

interface ReplayFlags {
  trace: string;
  report?: string;
  output: 'table' | 'jsonl' | 'both';
  engines: Engine[];
  hours?: number;
  fromHours?: number;
  workDir?: string;
  startupSeconds: number;
  sampleDelaySeconds: number;
  passIntervalSeconds: number;
  mergeDelaySeconds: number;
  min: number;
  max: number;
  hpaTarget?: number;
  gpusPerNode: number;
  policy?: string;
  headroomFactor: number;
  hpaTargets: number[];
  headroomFactors: number[];
  services: number;
  nodes?: number | 'auto';
  schedulerScoring: 'LeastAllocated' | 'MostAllocated';
  groupBy?: string[];
}

function nonNegative(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError(`expected a number ≥ 0, got "${value}"`);
  return n;
}

function positive(value: string): number {
  const n = nonNegative(value);
  if (n === 0) throw new InvalidArgumentError(`expected a number > 0, got "${value}"`);
  return n;
}

function wholePositive(value: string): number {
  const n = positive(value);
  if (!Number.isInteger(n)) throw new InvalidArgumentError(`expected a whole number > 0, got "${value}"`);
  return n;
}

function nodeCount(value: string): number | 'auto' {
  if (value === 'auto') return 'auto';
  const n = nonNegative(value);
  if (!Number.isInteger(n))
    throw new InvalidArgumentError(`expected a whole number or "auto", got "${value}"`);
  return n;
}

function percent(value: string): number {
  const n = nonNegative(value);
  if (n > 100) throw new InvalidArgumentError(`expected a percent between 0 and 100, got "${value}"`);
  return n;
}

function engineList(value: string): Engine[] {
  const names = value.split(',').map((s) => s.trim());
  for (const n of names)
    if (!(ENGINES as readonly string[]).includes(n))
      throw new InvalidArgumentError(`unknown engine "${n}" (engines: ${ENGINES.join(', ')})`);
  return names as Engine[];
}

function numberList(parse: (v: string) => number): (value: string) => number[] {
  return (value) => {
    const xs = value.split(',').map((v) => parse(v.trim()));
    if (xs.length === 0) throw new InvalidArgumentError('expected a comma-separated list of numbers');
    return xs;
  };
}

function readPolicy(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`--policy ${file}: cannot read: ${(err as Error).message}`);
  }
}

/** Settings from the flags; @throws UsageError when min ≥ max. */
export function replaySettings(f: ReplayFlags): ReplaySettings {
  if (f.min >= f.max) throw new UsageError(`--min ${f.min} must be below --max ${f.max}`);
  return {
    ...DEFAULT_REPLAY_SETTINGS,
    startupSeconds: f.startupSeconds,
    sampleDelaySeconds: f.sampleDelaySeconds,
    passIntervalSeconds: f.passIntervalSeconds,
    mergeDelaySeconds: f.mergeDelaySeconds,
    min: f.min,
    max: f.max,
    hpaTarget: f.hpaTarget ?? (f.min + f.max) / 2,
    gpusPerNode: f.gpusPerNode,
    headroomFactor: f.headroomFactor,
    hpaTargets: f.hpaTargets,
    headroomFactors: f.headroomFactors,
    ...(f.policy === undefined ? {} : { policyText: readPolicy(f.policy) }),
  };
}

/**
 * Registers `gpuops replay --trace FILE [--report DIR]`: a utilisation history (the trace CSV
 * `value,timestamp_anon,container_ip`, or a Prometheus `query_range` answer of
 * `DCGM_FI_DEV_GPU_UTIL` by pod) through static allocation, the HPA, gpuops in patch and PR mode
 * (the real reconcile pass on a simulated cluster) and the ideal; prints the figures of each as a
 * table (or JSON lines); `--report DIR` writes `index.html` (self-contained, SVG charts) and
 * `figures.jsonl`. `--services K` (K shifted copies) or `--group-by LABELS` (one service per group
 * of a `query_range` answer) replays a fleet through the model instead. Exit 0, 1 on failure (a bad
 * trace: the message names the file), 2 on usage errors.
 */
export function register(program: Command): void {
  const d = DEFAULT_REPLAY_SETTINGS;
  program
    .command('replay')
    .description('replay a GPU utilisation history through static, HPA, gpuops (patch, PR) and the ideal')
    .requiredOption(
      '--trace <file>',
      'trace CSV (value,timestamp_anon,container_ip) or Prometheus query_range JSON',
    )
    .option('--report <dir>', 'write index.html (charts) and figures.jsonl into this folder')
    .addOption(
      new Option('--output <format>', 'figures on stdout')
        .choices(['table', 'jsonl', 'both'])
        .default('table'),
    )
    .option('--engines <list>', `comma-separated subset of ${ENGINES.join(',')}`, engineList, [...ENGINES])
    .option('--hours <h>', 'replay only the first H hours of the trace (from --from-hours)', positive)
    .option('--from-hours <h>', 'start the replay H hours into the trace', nonNegative)
    .option(
      '--work-dir <dir>',
      'folder for the simulated repos and databases (default: a temp folder, removed after)',
    )
    .option(
      '--startup-seconds <s>',
      'pod start-up until Ready (image pull, model load)',
      nonNegative,
      d.startupSeconds,
    )
    .option(
      '--sample-delay-seconds <s>',
      'dcgm-exporter / Prometheus sample delay',
      nonNegative,
      d.sampleDelaySeconds,
    )
    .option('--pass-interval-seconds <s>', 'time between reconcile passes', positive, d.passIntervalSeconds)
    .option(
      '--merge-delay-seconds <s>',
      'PR mode: time until a person merges',
      nonNegative,
      d.mergeDelaySeconds,
    )
    .option('--min <percent>', 'utilisation min threshold', percent, d.min)
    .option('--max <percent>', 'utilisation max threshold', percent, d.max)
    .option('--policy <file>', 'a Policy document to replay with (overrides the shipped defaults)')
    .option('--gpus-per-node <n>', 'GPUs per node of the simulated fleet', wholePositive, d.gpusPerNode)
    .option('--hpa-target <percent>', 'HPA target utilisation (default: the middle of min and max)', percent)
    .option(
      '--headroom-factor <beta>',
      'patch mode: β of headroom sizing, fixed before the run',
      nonNegative,
      d.headroomFactor,
    )
    .option(
      '--hpa-targets <list>',
      'HPA targets of the frontier (percent, comma-separated)',
      numberList(percent),
      d.hpaTargets,
    )
    .option(
      '--headroom-factors <list>',
      'headroom factors of the frontier (comma-separated)',
      numberList(nonNegative),
      d.headroomFactors,
    )
    .option(
      '--services <k>',
      'replay a fleet of K services: K circularly shifted copies of the trace, through the model (docs/replay.md)',
      wholePositive,
      1,
    )
    .option(
      '--nodes <n>',
      'with --services or --group-by: a fixed fleet of N nodes of --gpus-per-node GPUs that gpuops moves into and out of the short-task pool; "auto": as many as the HPA\'s static pools hold (docs/replay.md)',
      nodeCount,
    )
    .addOption(
      new Option('--scheduler-scoring <scoring>', "with --nodes: kube-scheduler's scoring of free GPUs")
        .choices(['LeastAllocated', 'MostAllocated'])
        .default('LeastAllocated'),
    )
    .option(
      '--group-by <labels>',
      'replay a fleet: one service per value of these labels of a query_range answer (e.g. namespace,deployment)',
      (v: string) => {
        try {
          return groupLabels(v);
        } catch (err) {
          throw new InvalidArgumentError((err as Error).message);
        }
      },
    )
    .action(async (f: ReplayFlags) => {
      if (f.nodes !== undefined && f.services === 1 && !f.groupBy)
        throw new UsageError('--nodes replays a fleet: give --services K (K ≥ 2) or --group-by too');
      const settings = replaySettings(f);
      let text: string;
      try {
        text = readFileSync(f.trace, 'utf8');
      } catch (err) {
        throw new Error(`${f.trace}: cannot read the trace: ${(err as Error).message}`);
      }
      const nodes = f.nodes === undefined ? undefined : { nodes: f.nodes, scoring: f.schedulerScoring };
      const slice = (t: Trace) =>
        f.hours !== undefined || f.fromHours !== undefined
          ? sliceTrace(t, (f.fromHours ?? 0) * 3600, (f.hours ?? Infinity) * 3600)
          : t;
      if (f.groupBy) {
        if (f.services > 1)
          throw new UsageError('--group-by and --services both split the history: give one');
        const groups = parsePrometheusGroups(text, f.trace, f.groupBy);
        process.stdout.write(
          `services of ${f.trace} by ${f.groupBy.join(',')}: ${groups.map((g, i) => `${i} ${g.group}`).join(', ')}\n`,
        );
        const input = {
          source: f.trace,
          split: `grouped by ${f.groupBy.join(',')}`,
          services: groups.map((g) => slice(g.trace)),
          names: groups.map((g) => g.group),
        };
        await replayFleetCommand(input, settings, f.report, nodes);
        return;
      }
      const trace = slice(parseTrace(text, f.trace));
      if (f.services > 1) {
        const input = {
          source: f.trace,
          split: `as ${f.services} circularly shifted copies`,
          services: shiftedServices(trace, f.services),
          names: Array.from({ length: f.services }, (_, i) => `#${i}`),
        };
        await replayFleetCommand(input, settings, f.report, nodes);
        return;
      }
      const dir = f.workDir ? path.resolve(f.workDir) : mkdtempSync(path.join(os.tmpdir(), 'gpuops-replay-'));
      const err = process.stderr;
      err.write(
        `gpuops replay: ${trace.instants.length} instants of ${f.trace} through ${f.engines.join(', ')}\n`,
      );
      try {
        const result = await runReplay(trace, {
          settings,
          dir,
          engines: f.engines,
          processes: true,
          onEngine: (e) =>
            err.write(
              `  ${e.figures.engine} done${
                e.cost
                  ? ` (${e.cost.passes} passes, ${e.cost.cpuSeconds.toFixed(1)} s CPU, ${((e.cost.cpuSeconds / Math.max(1, e.cost.passes)) * 1000).toFixed(0)} ms CPU per pass)`
                  : ''
              }\n`,
            ),
        });
        const lines = result.engines.map((e) => JSON.stringify(e.figures)).join('\n') + '\n';
        const table = formatTable(result.engines.map((e) => e.figures));
        if (f.output !== 'table') process.stdout.write(lines);
        if (f.output !== 'jsonl') {
          process.stdout.write(table);
          process.stdout.write(
            formatAnalysis(
              result.analysis,
              settings,
              result.engines.map((e) => e.figures),
            ),
          );
          process.stdout.write(`targets:\n${formatVerdicts(result.verdicts)}`);
        }
        if (f.report) {
          const out = path.resolve(f.report);
          makeDirs(out);
          writeFileSync(path.join(out, 'index.html'), renderReport(result));
          writeFileSync(path.join(out, 'figures.jsonl'), lines);
          writeFileSync(
            path.join(out, 'analysis.json'),
            JSON.stringify({ analysis: result.analysis, verdicts: result.verdicts }, null, 2) + '\n',
          );
          err.write(`report: ${path.join(out, 'index.html')}\n`);
        }
        err.write(`replay took ${result.wallSeconds.toFixed(1)} s\n`);
      } finally {
        if (!f.workDir) rmSync(dir, { recursive: true, force: true });
      }
    });
}
