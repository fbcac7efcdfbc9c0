import { Option, type Command } from 'commander';
import {
  systemClock,
  loadWorkloadTemplates,
  waitForBenchmark,
  type BenchmarkProgress,
  specHash,
} from '../../benchmark/index.js';
import { jobApiOf, kubeConfigOf, openDatabase } from '../../compose/index.js';
import { renderBenchmarkJob, renderYaml } from '../../manifests/index.js';
import { place } from '../../placement/index.js';
import { formatSpecError, loadRepo } from '../../definitions/index.js';
import { addConnectionOptions, resolveSettings } from '../settings.js';
import { VENDORS } from '../../util/index.js';

interface BenchmarkFlags {
  repo: string;
  gpuProduct?: string;
  output: 'text' | 'json';
  dryRun?: boolean;
  [key: string]: unknown;
}

/** `1h02m05s`, `2m05s`, `42s`. */
export function formatElapsed(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = s % 60;
  if (h > 0) return `${h}h${String(m).padStart(2, '0')}m${String(rest).padStart(2, '0')}s`;
  if (m > 0) return `${m}m${String(rest).padStart(2, '0')}s`;
  return `${rest}s`;
}

/** One progress line: `resnet50-infer run 2/3 running 4m10s: pod … running on gpu-a100-01`. */
export function formatProgress(p: BenchmarkProgress): string {
  return `${p.algorithm} run ${p.run}/${p.runs} ${p.phase} ${formatElapsed(p.elapsedSeconds)}: ${p.message}`;
}

/**
 * Registers `gpuops benchmark NAME`: benchmarks one algorithm of the GitOps repo at `--repo`
 * against the live cluster (a Job per run on a `test` node; runs stored in `--database`), prints
 * progress lines on stderr while it waits, then the result and the placement it leads to.
 * An unchanged spec is not benchmarked again: the stored result is printed.
 * `--dry-run` prints the first run's Job and creates nothing.
 * Exit 0 when the benchmark succeeded, 1 when it did not or the cluster/database failed, 2 on
 * usage errors.
 */
export function register(program: Command): void {
  const cmd: Command = program
    .command('benchmark')
    .description('benchmark one algorithm on a test node of the live cluster and show its placement')
    .argument('<name>', 'algorithm name (metadata.name)')
    .option('--repo <dir>', 'GitOps repo that holds algorithms/ and policies/', '.')
    .option(
      '--gpu-product <product>',
      `pin the benchmark to test nodes of this GPU product (${VENDORS.map((v) => v.productLabel).join(' or ')})`,
    )
    .option('--dry-run', 'print the Job of the first run; create nothing')
    .addOption(
      new Option('-o, --output <format>', 'output format').choices(['text', 'json']).default('text'),
    );
  addConnectionOptions(cmd, ['kubeconfig', 'database']);
  cmd.action(runBenchmark);
}

/** The `benchmark` command's action: see {@link register}. */
async function runBenchmark(name: string, flags: BenchmarkFlags): Promise<void> {
  const settings = resolveSettings(flags);
  const repo = await loadRepo(flags.repo);
  const alg = repo.algorithms.find((a) => a.name === name);
  if (!alg) {
    const errors = repo.errors.map((e) => formatSpecError(e)).join('\n');
    process.stderr.write(
      `gpuops benchmark: no valid algorithm named ${JSON.stringify(name)} in ${flags.repo}/algorithms` +
        `${repo.algorithms.length ? ` (known: ${repo.algorithms.map((a) => a.name).join(', ')})` : ''}\n` +
        (errors ? `${errors}\n` : ''),
    );
    process.exitCode = 1;
    return;
  }
  const policy = repo.policy.spec;
  const templates = loadWorkloadTemplates();
  const hash = specHash(alg.spec, alg.annotations);
  if (settings.dryRun) {
    const job = renderBenchmarkJob({
      algorithm: alg,
      policy,
      specHash: hash,
      sequence: 1,
      gpuProduct: flags.gpuProduct,
      template: templates.benchmarkJob,
    });
    process.stdout.write(renderYaml(job, null));
    return;
  }
  const jobs = jobApiOf(kubeConfigOf(settings.kubeconfig));
  const store = await openDatabase(settings.database);
  try {
    const free = await jobs.freeTestGpus(policy.pools.labelKey);
    if (free < alg.spec.resources.gpus) {
      process.stderr.write(
        `${name}: ${free} free GPU(s) on ${policy.pools.labelKey}=test nodes, the benchmark asks for ${alg.spec.resources.gpus}; it may stay Unschedulable\n`,
      );
    }
    // The controller's own step, looped with the clock. The test pool counts as idle for this
    // one algorithm (as before: a request larger than the free GPUs is left to the scheduler).
    const result = await waitForBenchmark(
      alg,
      {
        jobs,
        store,
        clock: systemClock,
        policy,
        templates,
        gpuProduct: () => flags.gpuProduct ?? null,
        onProgress: (p) => process.stderr.write(`${formatProgress(p)}\n`),
      },
      async () => {
        const f = Math.max(await jobs.freeTestGpus(policy.pools.labelKey), 1);
        return { free: f, total: f };
      },
    );
    const placement = place(
      { algorithm: name, pinned: alg.placement, benchmark: result },
      policy.placement.longTaskThresholdSeconds,
    );
    printBenchmark(name, hash, result, placement, flags.output);
    process.exitCode = result.status === 'Succeeded' ? 0 : 1;
  } finally {
    await store.close();
  }
}

/** Prints the benchmark's result and the placement it leads to, as text or one JSON line. */
function printBenchmark(
  name: string,
  hash: string,
  result: Awaited<ReturnType<typeof waitForBenchmark>>,
  placement: ReturnType<typeof place>,
  output: BenchmarkFlags['output'],
): void {
  if (output === 'json') {
    const { recorded, ...benchmark } = result;
    process.stdout.write(`${JSON.stringify({ benchmark: { ...benchmark, runs: recorded }, placement })}\n`);
  } else {
    process.stdout.write(
      `${name} spec ${hash.slice(0, 12)}: ${result.status}${result.cached ? ' (stored)' : ''}` +
        `${result.medianSeconds === null ? '' : `, median ${result.medianSeconds} s`}: ${result.message}\n` +
        `placement: ${placement.pool ?? 'none'} (${placement.reason}): ${placement.message}\n`,
    );
  }
}
