/**
 * From `gpuops replay`'s parsed flags to what the replay needs: the checks of flags that go
 * together (usage errors, exit 2), the replay's settings, the trace's text and the slice of it
 * that `--hours` / `--from-hours` ask for.
 */
import { readFileSync } from 'node:fs';
import {
  FLEET_ENGINES,
  type FleetEngine,
  type FleetNodeOptions,
  ENGINES,
  type Engine,
  DEFAULT_REPLAY_SETTINGS,
  type ReplaySettings,
  parseServiceCsv,
  withServiceSeries,
  sliceTrace,
  traceSpanSeconds,
  type Trace,
  syntheticDayCsv,
  syntheticName,
  parseLatencyCsv,
  disorderWarning,
} from '../../replay/index.js';
import { fileURLToPath } from 'node:url';
import { missingTraceMessage } from '../bundled-trace.js';
import { UsageError } from '../settings.js';
import type { ReplayArgs, ReplayFlags } from './replay-options.js';

/** The checkout's (or the installed package's) root: three folders up from `src/cli/commands/` and from `dist/cli/commands/`. */
const PACKAGE_ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/**
 * The flags with `--trace` given. @throws UsageError naming `--trace`, what it takes and where the
 * bundled trace is (one line; `bundled-trace.ts`)
 */
export function withTrace(a: ReplayArgs): ReplayFlags {
  if (a.synthetic !== undefined) {
    if (a.trace !== undefined)
      throw new UsageError('--trace and --synthetic both name the history: give one');
    return { ...a, trace: syntheticName(seedOf(a.synthetic)) };
  }
  if (a.trace === undefined) throw new UsageError(missingTraceMessage(PACKAGE_ROOT));
  return { ...a, trace: a.trace };
}

/** `--synthetic`'s seed: 1 when the flag is given without one. */
const seedOf = (s: number | true): number => (s === true ? 1 : s);

/**
 * The history's text: the `--trace` file's, or the synthetic day's CSV (`--synthetic`).
 * @throws Error naming the file when it cannot be read
 */
export function traceTextOf(f: ReplayFlags): string {
  return f.synthetic !== undefined ? syntheticDayCsv({ seed: seedOf(f.synthetic) }) : readTraceText(f.trace);
}

/** Whether the flags ask for a fleet (`--services K` with K ≥ 2, `--group-by` or `--pod-groups`). */
export function isFleet(f: ReplayFlags): boolean {
  return f.services > 1 || f.groupBy !== undefined || f.podGroups !== undefined;
}

/**
 * Checks the flags that go together: `--nodes` only for a fleet, `--group-by` and `--services`
 * not both. @throws UsageError naming the flags
 */
export function checkReplayFlags(f: ReplayFlags): void {
  if (f.nodes !== undefined && !isFleet(f))
    throw new UsageError('--nodes replays a fleet: give --services K (K ≥ 2) or --group-by too');
  if (f.groupBy && f.services > 1)
    throw new UsageError('--group-by and --services both split the history: give one');
  if (f.podGroups !== undefined && (f.groupBy || f.services > 1))
    throw new UsageError(
      '--pod-groups splits the history too: give one of --services, --group-by, --pod-groups',
    );
  if (f.serviceFile !== undefined && isFleet(f))
    throw new UsageError(
      '--service-file replays one service: not with --services, --group-by or --pod-groups',
    );
}

/**
 * `t` with the `--service-file` series beside it (`service-series.ts`), or `t` without the flag.
 * @throws UsageError naming the flag and the file when it cannot be read; Error naming its line
 *   and field when a row is bad
 */
export function withServiceFile(f: ReplayFlags, t: Trace): Trace {
  if (f.serviceFile === undefined) return t;
  let text: string;
  try {
    text = readFileSync(f.serviceFile, 'utf8');
  } catch (err) {
    throw new UsageError(`--service-file ${f.serviceFile}: cannot read: ${(err as Error).message}`);
  }
  const unit = f.serviceUnit;
  return withServiceSeries(t, parseServiceCsv(text, f.serviceFile), {
    name: unit === 'requests/s' ? 'requests per second' : unit,
    unit,
    source: f.serviceFile,
  });
}

/**
 * The engines of one service: `--engines` or every one of {@link ENGINES}. @throws UsageError on
 * a fleet's engine (`gpuops`, the model's), saying which engines one service runs
 */
export function oneServiceEngines(f: ReplayFlags): Engine[] {
  const known: readonly string[] = ENGINES;
  const odd = (f.engines ?? []).filter((e) => !known.includes(e));
  if (odd.length > 0)
    throw new UsageError(
      `--engines ${odd.join(',')}: a fleet's engine (the model's; give --services K or --group-by); one service runs ${ENGINES.join(', ')}`,
    );
  return (f.engines as Engine[] | undefined) ?? [...ENGINES];
}

/**
 * The engines of a fleet: `--engines` or every one of {@link FLEET_ENGINES}. @throws UsageError
 * on an engine the fleet cannot run (the simulated `gpuops-patch`, `gpuops-pr`: one service only)
 */
export function fleetEngines(f: ReplayFlags): FleetEngine[] {
  const known: readonly string[] = FLEET_ENGINES;
  const odd = (f.engines ?? []).filter((e) => !known.includes(e));
  if (odd.length > 0)
    throw new UsageError(
      `--engines ${odd.join(',')}: a simulated engine, for one service only; a fleet replays through the model: ${FLEET_ENGINES.join(', ')}`,
    );
  return (f.engines as FleetEngine[] | undefined) ?? [...FLEET_ENGINES];
}

function readPolicy(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`--policy ${file}: cannot read: ${(err as Error).message}`);
  }
}

/** Settings from the flags; @throws UsageError when min ≥ max or `--policy` cannot be read. */
export function replaySettings(f: ReplayFlags): ReplaySettings {
  if (f.min >= f.max) throw new UsageError(`--min ${f.min} must be below --max ${f.max}`);
  return {
    ...DEFAULT_REPLAY_SETTINGS,
    ...loopSettings(f),
    startupSeconds: f.startupSeconds,
    passIntervalSeconds: f.passIntervalSeconds,
    mergeDelaySeconds: f.mergeDelaySeconds,
    min: f.min,
    max: f.max,
    hpaTarget: f.hpaTarget ?? (f.min + f.max) / 2,
    gpusPerNode: f.gpusPerNode,
    headroomFactor: f.headroomFactor,
    hpaTargets: f.hpaTargets,
    headroomFactors: f.headroomFactors,
    headroomDownMargins: f.headroomDownMargins,
    ...(f.claimSeconds === undefined ? {} : { claimSeconds: f.claimSeconds }),
    ...(f.policy === undefined ? {} : { policyText: readPolicy(f.policy) }),
  };
}

/**
 * The loop's flags as settings: `--signal-interval-seconds` sets the sample delay (with
 * `--sample-delay-seconds` other than its default: a usage error), `--event-driven`, `--tick-seconds`
 * (it must divide the signal and pass intervals), `--startup-latency-file` (read and checked here;
 * the replay's own loop draws from it), `--loops-latency-file` (the drawn loop beside it; default
 * the same file), `--no-loops`. @throws UsageError naming the flag
 */
export function loopSettings(f: ReplayFlags): Partial<ReplaySettings> & { sampleDelaySeconds: number } {
  const d = DEFAULT_REPLAY_SETTINGS;
  if (f.signalIntervalSeconds !== undefined && f.sampleDelaySeconds !== d.sampleDelaySeconds)
    throw new UsageError(
      "--signal-interval-seconds and --sample-delay-seconds both set the signal's age: give one",
    );
  const sample = f.signalIntervalSeconds ?? f.sampleDelaySeconds;
  const drawn = f.loopsLatencyFile ?? f.startupLatencyFile;
  if (f.tickSeconds !== undefined)
    for (const [flag, v] of [
      ['the signal interval', sample],
      ['--pass-interval-seconds', f.passIntervalSeconds],
    ] as const)
      if (!Number.isInteger(v / f.tickSeconds))
        throw new UsageError(`--tick-seconds ${f.tickSeconds} must divide ${flag} (${v} s)`);
  return {
    sampleDelaySeconds: sample,
    ...(f.eventDriven ? { eventDriven: true } : {}),
    ...(f.tickSeconds !== undefined ? { tickSeconds: f.tickSeconds } : {}),
    ...(f.startupLatencyFile !== undefined
      ? { startupLatencies: readLatencies('--startup-latency-file', f.startupLatencyFile) }
      : {}),
    ...(drawn !== undefined
      ? {
          loopsLatencies: readLatencies(
            f.loopsLatencyFile ? '--loops-latency-file' : '--startup-latency-file',
            drawn,
          ),
        }
      : {}),
    loops: f.loops !== false,
  };
}

function readLatencies(flag: string, file: string): number[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`${flag} ${file}: cannot read: ${(err as Error).message}`);
  }
  try {
    return parseLatencyCsv(text, file);
  } catch (err) {
    throw new UsageError(`${flag} ${(err as Error).message}`);
  }
}

/** The text of the `--trace` file. @throws Error naming the file when it cannot be read */
export function readTraceText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`${file}: cannot read the trace: ${(err as Error).message}`);
  }
}

/** Hours of `seconds`, cut (not rounded) to two decimals, so "or less" holds as printed. */
const hoursDown = (seconds: number) => (Math.floor(seconds / 36) / 100).toFixed(2);

/**
 * The part of `t` that `--from-hours` / `--hours` ask for (all of it without either). A start at
 * the last instant keeps that instant; one after it is refused. @throws UsageError naming
 * `--from-hours`, the asked start (seconds), the file and its history's span (hours, and the last
 * instant's seconds after the first) when the start is past the last instant
 */
export function sliceOf(f: ReplayFlags, t: Trace): Trace {
  if (f.hours === undefined && f.fromHours === undefined) return t;
  const from = (f.fromHours ?? 0) * 3600;
  const span = traceSpanSeconds(t);
  if (from > span)
    throw new UsageError(
      `--from-hours ${f.fromHours} asks for a start ${from} s into ${f.trace}, past its history: it spans ${hoursDown(span)} h (its last instant is ${span} s after its first); give --from-hours ${hoursDown(span)} or less`,
    );
  return sliceTrace(t, from, (f.hours ?? Infinity) * 3600);
}

/**
 * One service's history as the flags slice it, with 2 instants or more (the replay chooses its
 * headroom factor on the first half and reports it on the second). @throws UsageError naming the
 * file, the slice's flags and the instants it holds when it holds one
 */
export function oneServiceSlice(f: ReplayFlags, t: Trace): Trace {
  const sliced = sliceOf(f, t);
  if (sliced.instants.length < 2) {
    const flags = [
      f.fromHours === undefined ? '' : ` --from-hours ${f.fromHours}`,
      f.hours === undefined ? '' : ` --hours ${f.hours}`,
    ].join('');
    throw new UsageError(
      `${f.trace}${flags}: 1 instant to replay; one service needs 2 or more (the headroom factor is chosen on the first half)`,
    );
  }
  return sliced;
}

/** The fleet of nodes `--nodes` / `--scheduler-scoring` ask for, if any. */
export function nodeOptions(f: ReplayFlags): FleetNodeOptions | undefined {
  return f.nodes === undefined
    ? undefined
    : { nodes: f.nodes, scoring: f.schedulerScoring, resources: f.scoredResources };
}

/**
 * `trace`, after saying on stderr where its rows are out of time order, if they are: the replay
 * goes on with them sorted (each row carries its own time), but a history read in an order it was
 * not written in may be several exports joined, which changes every figure of the replay.
 */
export function warnDisorder<T extends Parameters<typeof disorderWarning>[0]>(trace: T): T {
  const warning = disorderWarning(trace);
  if (warning) process.stderr.write(`gpuops replay: warning: ${warning}\n`);
  return trace;
}
