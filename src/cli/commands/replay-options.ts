/**
 * The flags of `gpuops replay` (commander options, in the order `--help` lists them) and their
 * parsed shape, {@link ReplayFlags}. Three groups: what to replay and what to print, the replay's
 * delays and thresholds, and the fleet (`--services`, `--nodes`, `--group-by`).
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import {
  DEFAULT_REPLAY_SETTINGS,
  type ReplaySettings,
  DEFAULT_SCORED_RESOURCES,
  type ScoredResource,
} from '../../replay/index.js';
import {
  engineList,
  ENGINES_TEXT,
  headroomFactor,
  labelList,
  nodeCount,
  nonNegative,
  numberList,
  percent,
  positive,
  scoredResources,
  wholePositive,
  type ReplayEngine,
} from './replay-parsers.js';

/**
 * `gpuops replay`'s flags once `--trace` is known to be given (units: seconds, hours, percent, GPUs); the
 * delays and thresholds are {@link ReplaySettings}' own fields, each with its default there.
 */
export interface ReplayFlags extends Pick<
  ReplaySettings,
  | 'startupSeconds'
  | 'sampleDelaySeconds'
  | 'passIntervalSeconds'
  | 'mergeDelaySeconds'
  | 'min'
  | 'max'
  | 'gpusPerNode'
  | 'headroomFactor'
  | 'hpaTargets'
  | 'headroomFactors'
  | 'headroomDownMargins'
> {
  trace: string;
  /** `--synthetic [SEED]`: the synthetic day of that seed instead of a file (`trace` is then its name). */
  synthetic?: number | true;
  report?: string;
  output: 'table' | 'jsonl' | 'both';
  /** As given; which of them the replay runs: `oneServiceEngines`, `fleetEngines` (`replay-flags.ts`). */
  engines?: ReplayEngine[];
  hours?: number;
  fromHours?: number;
  workDir?: string;
  hpaTarget?: number;
  policy?: string;
  services: number;
  nodes?: number | 'auto';
  schedulerScoring: 'LeastAllocated' | 'MostAllocated';
  scoredResources: ScoredResource[];
  groupBy?: string[];
  /** `--pod-groups K`: K services of disjoint groups of the trace's pods. */
  podGroups?: number;
  /** `--claim-seconds S`: a standby claim's wake or switch in the fleet's standby section. */
  claimSeconds?: number;
  signalIntervalSeconds?: number;
  eventDriven?: boolean;
  tickSeconds?: number;
  startupLatencyFile?: string;
  loopsLatencyFile?: string;
  /** False with `--no-loops`. */
  loops: boolean;
  /** `--service-file`: a per-pod service series beside the trace (`replay/service-series.ts`). */
  serviceFile?: string;
  /** `--service-unit`: what its values are (default `requests/s`). */
  serviceUnit: string;
}

/** The flags as commander parses them: `--trace` may be missing (`withTrace` says what to give). */
export type ReplayArgs = Omit<ReplayFlags, 'trace'> & { trace?: string };

/** The history to replay, what to print and where, which engines and which slice of it. */
function inputOptions(cmd: Command): Command {
  return cmd
    .option(
      '--trace <file>',
      'the history (this or --synthetic): trace CSV (value,timestamp_anon,container_ip) or Prometheus query_range JSON',
    )
    .option(
      '--synthetic [seed]',
      'replay a synthetic day (seed default 1) whose statistics follow the published trace (docs/replay.md)',
      (v: string) => {
        const n = Number(v);
        if (!Number.isInteger(n) || n < 0 || n > 0xffffffff)
          throw new InvalidArgumentError('a seed is a whole number from 0 to 4294967295');
        return n;
      },
    )
    .option('--report <dir>', 'write index.html (charts) and figures.jsonl into this folder')
    .addOption(
      new Option('--output <format>', 'figures on stdout')
        .choices(['table', 'jsonl', 'both'])
        .default('table'),
    )
    .option('--engines <list>', `comma-separated subset (default: all) of ${ENGINES_TEXT}`, engineList)
    .option('--hours <h>', 'replay only the first H hours of the trace (from --from-hours)', positive)
    .option('--from-hours <h>', 'start the replay H hours into the trace', nonNegative)
    .option(
      '--work-dir <dir>',
      'folder for the simulated repos and databases (default: a temp folder, removed after)',
    )
    .option(
      '--service-file <file>',
      "the service's own load per pod at the trace's instants (CSV timestamp_anon,value,container_ip, e.g. the trace's qps.csv): the HPA and gpuops also scale on it per replica (model), printed beside the duty cycle",
    )
    .option('--service-unit <unit>', "the unit of --service-file's values", 'requests/s');
}

/** The replay's delays, thresholds, policy and the parameters of its frontiers. */
function settingOptions(cmd: Command): Command {
  const d = DEFAULT_REPLAY_SETTINGS;
  return cmd
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
      headroomFactor,
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
      numberList(headroomFactor),
      d.headroomFactors,
    )
    .option(
      '--headroom-down-margins <list>',
      'scale-down margins (headroomDownMargin) the first-half choice tries with every factor, refined to 0.05 between the two around the limits (comma-separated)',
      numberList(headroomFactor),
      d.headroomDownMargins,
    );
}

/** A fleet instead of one service: K shifted copies or groups of a `query_range` answer, and its nodes. */
function fleetOptions(cmd: Command): Command {
  return cmd
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
      '--scored-resources <list>',
      "with --nodes: the resources kube-scheduler's NodeResourcesFit scores, of cpu, memory, nvidia.com/gpu (default cpu,memory: the default profile's; the replay's pods ask cpu and memory in proportion to their GPUs; docs/standby.md)",
      scoredResources,
      [...DEFAULT_SCORED_RESOURCES],
    )
    .option(
      '--group-by <labels>',
      'replay a fleet: one service per value of these labels of a query_range answer (e.g. namespace,deployment)',
      labelList,
    )
    .option(
      '--pod-groups <k>',
      "replay a fleet of K services: K disjoint groups of the trace's pods, dealt round-robin (docs/standby.md)",
      wholePositive,
    )
    .option(
      '--claim-seconds <s>',
      "with --nodes: a warm standby claim's wake or switch, claimed → Ready in the service (default 5; docs/standby.md)",
      nonNegative,
    );
}

/**
 * The loop's own delays beyond the sample, pass and start-up (trigger, tick, drawn start-ups), so a
 * replay can price each.
 */
function loopOptions(cmd: Command): Command {
  return cmd
    .option(
      '--signal-interval-seconds <s>',
      "the utilisation signal's interval: what gpuops reads is this old (the same as --sample-delay-seconds; give one)",
      nonNegative,
    )
    .option(
      '--event-driven',
      'gpuops also passes as soon as the algorithm leaves its band on a signal sample (the pass interval stays the backstop)',
    )
    .option(
      '--tick-seconds <s>',
      "the model's tick (default: the largest of at most 15 s that divides the signal and pass intervals)",
      positive,
    )
    .option(
      '--startup-latency-file <file>',
      "draw each new replica's start-up from this CSV of latencies (column value, milliseconds), as on a pre-pulled image",
    )
    .option(
      '--loops-latency-file <file>',
      "the latencies (as --startup-latency-file) of the loop beside the replay's own that draws its start-ups: the fast loop on pre-pulled images",
    )
    .option('--no-loops', "leave out the fast loop and the drawn start-ups' loop beside the replay's own");
}

/** Adds every flag of `gpuops replay` to `cmd`, in `--help` order; returns `cmd`. */
export function addReplayOptions(cmd: Command): Command {
  return fleetOptions(loopOptions(settingOptions(inputOptions(cmd))));
}
