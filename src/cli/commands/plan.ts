import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Option, type Command } from 'commander';
import { loadWorkloadTemplates } from '../../benchmark/index.js';
import type { Snapshot } from '../../cluster/index.js';
import type { PlanOutput } from '../../plan/index.js';
import { loadDefaultPolicy, outsideRoot } from '../../definitions/index.js';
import {
  planWorld,
  readWorld,
  type JudgeAt,
  directorySpecs,
  readBenchmarksFile,
  unknownRecordedNames,
} from '../../pass/index.js';
import type { WorldSources } from '../../pass/index.js';
import { createReconcilerMemory } from '../../plan/index.js';
import {
  openDatabase,
  clusterInput,
  metricsSettingsOf,
  utilizationSource,
  planJobsInput,
} from '../../compose/index.js';
import { formatPlanTable, planReport } from '../plan-build.js';
import { addConnectionOptions, resolveSettings } from '../settings.js';
import { unknownClusterWarning } from '../cluster-choice.js';

/**
 * The folders under `clusters/` of a local GitOps repo (none when it has no `clusters/`, or when
 * `clusters/` is a link out of the repo: nothing outside it is listed).
 */
function clusterFolders(repo: string): string[] {
  const dir = join(repo, 'clusters');
  if (!existsSync(dir) || outsideRoot(repo, 'clusters')) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name);
}

/**
 * The decision of `gpuops plan`: the world read from `sources` as a reconcile pass reads it
 * (`readWorld`: stored benchmarks, recorded decisions, node activity, HPA status) and planned by
 * `planWorld`, with no benchmark step and no write. The same world gives the plan a pass makes.
 * `names`: every algorithm name of the repo's files, valid or refused.
 * @throws as `readWorld`
 */
export async function planFromSources(
  sources: WorldSources,
  now: JudgeAt,
): Promise<{ output: PlanOutput; snapshot: Snapshot; names: Set<string> }> {
  const world = await readWorld(sources, now);
  const { output } = planWorld(world, { templates: loadWorkloadTemplates(), memory: sources.memory });
  // Every algorithm name of the repo's files, refused specs included (they are not unknown).
  const names = new Set([
    ...world.repo.algorithms.map((a) => a.name),
    ...[...(world.repo.names?.values() ?? [])].flat(),
  ]);
  return { output, snapshot: world.snapshot, names };
}

/**
 * The exit code of `gpuops plan --fail-on-refused` that refused a spec (listed under errors) and
 * planned the rest: not 0, so a pipeline fails on a spec gpuops would neither benchmark nor place,
 * and not 1 (no plan: an input could not be read) nor 2 (usage), so it can tell them apart. Without
 * the flag plan exits 0 with the errors listed, as docs/design.md's command-line contract fixes
 * (other tools rely on it).
 */
export const SPECS_REFUSED = 3;

interface PlanFlags {
  repo?: string;
  nodes?: string;
  pods?: string;
  metrics?: string[];
  benchmarks?: string;
  now?: string;
  failOnRefused?: boolean;
  output: 'text' | 'json';
  [key: string]: unknown;
}

/**
 * Registers `gpuops plan --repo DIR [--cluster NAME] [--nodes FILE --pods FILE] [--metrics FILE…]
 * [--benchmarks FILE] [--output json]`: the whole decision (pools, placements, scaling, files),
 * offline and read-only. The snapshot comes from the dumps, or the live cluster without them;
 * benchmark run times from `--benchmarks`, or the database; utilisation from `--metrics` (saved
 * dcgm-exporter pages or a Prometheus query-result JSON), or `--prometheus-url` / `--dcgm-url`.
 * Exit 0 (errors in specs are listed, not fatal; with `--fail-on-refused`, {@link SPECS_REFUSED}
 * when a spec or policy file was refused, the plan of the others printed all the same), 2 on usage
 * errors, 1 when an input cannot be read (no plan).
 */
export function register(program: Command): void {
  const cmd: Command = program
    .command('plan')
    .description('print the whole decision (pools, placements, scaling, files) without writing anything')
    .requiredOption('--repo <dir>', 'the GitOps repo (a working copy)')
    .option('--nodes <file>', 'Nodes dump: kubectl get nodes -o json')
    .option(
      '--pods <file>',
      'Pods dump: kubectl get pods -A -o json (or pods,replicasets: a Deployment owns the pods of its ReplicaSets)',
    )
    .option('--metrics <file...>', 'dcgm-exporter pages or a Prometheus query-result JSON')
    .option('--benchmarks <file>', 'recorded run times: YAML/JSON map of algorithm name to seconds')
    .option(
      '--now <time>',
      'judge the dumps at this ISO-8601 time (default: the newest sample in --metrics, else the clock)',
    )
    .option(
      '--fail-on-refused',
      `exit ${SPECS_REFUSED} when a spec or policy file is refused (the others are planned all the same)`,
    )
    .addOption(
      new Option('-o, --output <format>', 'output format').choices(['text', 'json']).default('text'),
    );
  addConnectionOptions(cmd, [
    'cluster',
    'kubeconfig',
    'prometheusUrl',
    'dcgmJob',
    'amdMetricsJob',
    'dcgmUrl',
    'database',
  ]);
  cmd.action((flags: PlanFlags) => runPlan(cmd, flags));
}

/**
 * The flags as settings, after the usage rules of `plan` that commander does not check (exit 2
 * through `cmd.error`): `--nodes` with `--pods`, `--repo` a folder, `--now` a time (`given`).
 */
function planFlags(
  cmd: Command,
  flags: PlanFlags,
): { settings: ReturnType<typeof resolveSettings>; given?: Date } {
  if (Boolean(flags.nodes) !== Boolean(flags.pods)) {
    cmd.error('gpuops plan: --nodes and --pods go together (or neither, to read the live cluster)', {
      exitCode: 2,
      code: 'gpuops.usage',
    });
  }
  const settings = resolveSettings(flags);
  if (!statSync(flags.repo!, { throwIfNoEntry: false })?.isDirectory()) {
    cmd.error(`gpuops plan: ${flags.repo} is not a directory`, { exitCode: 2, code: 'gpuops.usage' });
  }
  const given = flags.now === undefined ? undefined : new Date(flags.now);
  if (given !== undefined && Number.isNaN(given.getTime())) {
    cmd.error(`gpuops plan: --now ${JSON.stringify(flags.now)} is not an ISO-8601 time`, {
      exitCode: 2,
      code: 'gpuops.usage',
    });
  }
  return given ? { settings, given } : { settings };
}

/** The `plan` command's action: see {@link register}. */
async function runPlan(cmd: Command, flags: PlanFlags): Promise<void> {
  const { settings, given } = planFlags(cmd, flags);
  const clock = given ?? new Date();
  const metrics = utilizationSource(
    {
      ...metricsSettingsOf(settings, process.env),
      metricsFiles: flags.metrics,
      ...(given ? { evaluatedAt: given } : {}),
    },
    () => clock,
  );
  // Offline, the dumps are judged at their own time: --now, else the newest sample of the
  // --metrics files (a dump from last week gives last week's decision), never the wall clock.
  const now: JudgeAt =
    given ??
    ((reading) =>
      flags.metrics?.length && reading.ok && reading.evaluatedAt !== undefined
        ? new Date(reading.evaluatedAt)
        : clock);
  const input = { nodesFile: flags.nodes, podsFile: flags.pods, kubeconfig: settings.kubeconfig };
  const [clusterRead, defaults, recorded] = await Promise.all([
    clusterInput(input),
    loadDefaultPolicy(),
    flags.benchmarks ? readBenchmarksFile(flags.benchmarks) : undefined,
  ]);
  // plan is read-only: no database yet means no benchmark, no decision, no node history yet.
  const noDatabase =
    settings.database.startsWith('sqlite:') && !existsSync(settings.database.slice('sqlite:'.length));
  const store = noDatabase ? null : await openDatabase(settings.database, { readOnly: true });
  const jobs = await planJobsInput(input);
  let planned;
  try {
    planned = await planFromSources(
      {
        cluster: settings.cluster,
        specs: directorySpecs(flags.repo!),
        clusterRead,
        store,
        metrics,
        defaults,
        memory: createReconcilerMemory(),
        ...(recorded ? { recordedBenchmarks: recorded.outcomes } : {}),
        ...(jobs ? { jobs } : {}),
      },
      now,
    );
  } finally {
    await store?.close();
  }
  const { output, snapshot, names } = planned;
  const unknown = unknownClusterWarning(settings.cluster, clusterFolders(flags.repo!));
  const unused = recorded ? unknownRecordedNames(flags.benchmarks!, recorded, names) : [];
  const warnings = [...(unknown ? [unknown] : []), ...unused, ...(output.warnings ?? [])];
  if (warnings.length > 0) output.warnings = warnings;
  process.stdout.write(
    flags.output === 'json'
      ? `${JSON.stringify(planReport(output, snapshot), null, 2)}\n`
      : formatPlanTable(output, snapshot),
  );
  process.exitCode = flags.failOnRefused === true && output.errors.length > 0 ? SPECS_REFUSED : 0;
}
