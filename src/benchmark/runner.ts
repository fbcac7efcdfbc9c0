import { KubeApiError, type JobApi, type PodView } from '../cluster/jobs.js';
import {
  BENCHMARK_CONTAINER,
  BENCHMARK_JOB_LABEL,
  benchmarkJobName,
  renderBenchmarkJob,
} from '../manifests/benchmark-job.js';
import type { WorkloadTemplates } from '../manifests/templates.js';
import type { BenchmarkOutcome } from '../placement/types.js';
import type { PolicySpec, ResolvedAlgorithm } from '../spec/types.js';
import type { BenchmarkRun, Store } from '../store/types.js';
import type { RunnerClock } from './clock.js';
import { GpuSlots } from './gpu-slots.js';
import { measureContainer } from './measure.js';
import { specHash } from './spec-hash.js';
import { summarizeRuns } from './summary.js';

/** Where one benchmark run is. */
export type BenchmarkPhase = 'cached' | 'queued' | 'scheduling' | 'running' | 'succeeded' | 'failed';

/** A progress report: the CLI prints these on long waits. */
export interface BenchmarkProgress {
  algorithm: string;
  /** 1-based run being done, of `runs`. */
  run: number;
  runs: number;
  phase: BenchmarkPhase;
  /** Seconds since this run was queued (runner clock). */
  elapsedSeconds: number;
  jobName: string | null;
  message: string;
}

/** What the runner needs; all injected (no module-level state). */
export interface RunnerDeps {
  jobs: JobApi;
  store: Pick<Store, 'recordBenchmarkRun' | 'benchmarkRuns'>;
  clock: RunnerClock;
  policy: PolicySpec;
  templates: WorkloadTemplates;
  /** Called on every phase change and at least every `progressEverySeconds` while waiting. */
  onProgress?: (p: BenchmarkProgress) => void;
  /** Status polling: first interval, growth factor, cap (seconds). Default 2 s ×1.5 up to 15 s. */
  poll?: { initialSeconds: number; factor: number; maxSeconds: number };
  /** Default 30 s. */
  progressEverySeconds?: number;
  /** Attempts of one API call on transient errors (network, 429, 5xx), with doubling waits from 1 s. Default 5. */
  apiAttempts?: number;
  /** The GPU product to pin an algorithm's benchmark to (with `pools.test.perGPUProduct`), or null. */
  gpuProduct?: (algorithm: ResolvedAlgorithm) => string | null;
}

/** The benchmark of one algorithm at its current spec hash. */
export interface BenchmarkResult extends BenchmarkOutcome {
  algorithm: string;
  specHash: string;
  /** True when the stored runs already decided it and no Job was created. */
  cached: boolean;
  /** Successful run times counted so far (seconds), oldest first. */
  durations: number[];
  /** Runs recorded by this call. */
  recorded: BenchmarkRun[];
}

interface RunEnd {
  status: BenchmarkRun['status'];
  durationSeconds: number | null;
  node: string | null;
  message: string;
}

const DEFAULT_POLL = { initialSeconds: 2, factor: 1.5, maxSeconds: 15 };
/** Slack on top of activeDeadlineSeconds + the unschedulable limit before gpuops gives up on a Job itself (seconds). */
const DEADLINE_SLACK_SECONDS = 60;

function seconds(from: Date, to: Date): number {
  return (to.getTime() - from.getTime()) / 1000;
}

async function retry<T>(deps: RunnerDeps, fn: () => Promise<T>): Promise<T> {
  const attempts = deps.apiAttempts ?? 5;
  for (let i = 1; ; i++) {
    try {
      return await fn();
    } catch (err) {
      if (!(err instanceof KubeApiError) || !err.transient || i >= attempts) throw err;
      await deps.clock.sleep(2 ** (i - 1));
    }
  }
}

function failureDetail(pods: PodView[]): string {
  for (const p of pods) {
    const c = p.containers.find((x) => x.name === BENCHMARK_CONTAINER && x.state === 'terminated');
    if (c && c.exitCode !== 0) {
      const msg = (c.message ?? '').trim().slice(-500);
      return `pod ${p.name}: ${c.reason ?? 'terminated'}, exit code ${c.exitCode ?? '?'}${msg ? `: ${msg}` : ''}`;
    }
  }
  return '';
}

/**
 * Creates one benchmark Job and follows it to its end by polling with backoff.
 * - Job `Complete`: the run time is measured on the successful pod's benchmark container
 *   ({@link measureContainer}).
 * - Job `Failed` with reason `DeadlineExceeded` (activeDeadlineSeconds): `TimedOut`; any other
 *   `Failed`: `Failed`, with the container's reason, exit code and termination message.
 * - Its pod `PodScheduled=False/Unschedulable` for longer than
 *   `benchmark.unschedulableTimeoutSeconds`: the Job is deleted, `Unschedulable`.
 * - No end after activeDeadlineSeconds + the unschedulable limit + 60 s: deleted, `TimedOut`.
 * A Job of the same name that already exists (left by an earlier pass) is followed, not replaced.
 */
async function executeRun(
  alg: ResolvedAlgorithm,
  hash: string,
  run: number,
  index: number,
  deps: RunnerDeps,
  queuedAt: Date,
): Promise<RunEnd & { jobName: string; startedAt: Date }> {
  const { clock, jobs, policy } = deps;
  const poll = deps.poll ?? DEFAULT_POLL;
  const every = deps.progressEverySeconds ?? 30;
  const job = renderBenchmarkJob({
    algorithm: alg,
    policy,
    specHash: hash,
    sequence: run,
    gpuProduct: deps.gpuProduct?.(alg) ?? null,
    template: deps.templates.benchmarkJob,
  });
  const jobName = benchmarkJobName(alg.name, hash, run);
  const ns = alg.namespace;
  const startedAt = clock.now();
  const created = await retry(deps, () => jobs.createJob(job));
  const runs = alg.benchmark.runs;
  let phase: BenchmarkPhase | null = null;
  let lastEmit = startedAt;
  const emit = (p: BenchmarkPhase, message: string, now: Date, force = false) => {
    if (!force && p === phase && seconds(lastEmit, now) < every) return;
    phase = p;
    lastEmit = now;
    deps.onProgress?.({
      algorithm: alg.name,
      run: index,
      runs,
      phase: p,
      elapsedSeconds: seconds(queuedAt, now),
      jobName,
      message,
    });
  };
  emit(
    'scheduling',
    created === 'exists' ? `following existing Job ${ns}/${jobName}` : `created Job ${ns}/${jobName}`,
    startedAt,
  );

  const unschedLimit = policy.benchmark.unschedulableTimeoutSeconds;
  const guard = alg.benchmark.timeoutSeconds + unschedLimit + DEADLINE_SLACK_SECONDS;
  let interval = poll.initialSeconds;
  let unschedSince: Date | null = null;
  const end = async (r: RunEnd, remove: boolean) => {
    if (remove) await retry(deps, () => jobs.deleteJob(ns, jobName));
    emit(r.status === 'Succeeded' ? 'succeeded' : 'failed', `${r.status}: ${r.message}`, clock.now(), true);
    return { ...r, jobName, startedAt };
  };

  for (;;) {
    const view = await retry(deps, () => jobs.readJob(ns, jobName));
    const now = clock.now();
    if (!view) {
      return end(
        {
          status: 'Failed',
          durationSeconds: null,
          node: null,
          message: 'the Job disappeared before it ended',
        },
        false,
      );
    }
    const pods = await retry(deps, () => jobs.listPods(ns, `${BENCHMARK_JOB_LABEL}=${jobName}`));
    const isTrue = (type: string) => view.conditions.find((c) => c.type === type && c.status === 'True');

    if (isTrue('Complete') || view.succeeded > 0) {
      for (const p of pods.filter((x) => x.phase === 'Succeeded')) {
        const c = p.containers.find((x) => x.name === BENCHMARK_CONTAINER && x.state === 'terminated');
        const m = c ? measureContainer(c) : null;
        if (m) {
          return end(
            {
              status: 'Succeeded',
              durationSeconds: m.seconds,
              node: p.nodeName,
              message: `${m.seconds} s (${m.source}) on ${p.nodeName ?? '?'}`,
            },
            false,
          );
        }
      }
      if (isTrue('Complete')) {
        return end(
          {
            status: 'Failed',
            durationSeconds: null,
            node: null,
            message: 'Job Complete, but no terminated benchmark container with times to measure',
          },
          false,
        );
      }
    }
    const failed = isTrue('Failed');
    if (failed) {
      const detail = failureDetail(pods);
      const node = pods.find((p) => p.nodeName)?.nodeName ?? null;
      if (failed.reason === 'DeadlineExceeded') {
        return end(
          {
            status: 'TimedOut',
            durationSeconds: null,
            node,
            message: `no end within activeDeadlineSeconds ${alg.benchmark.timeoutSeconds} s${detail ? `; ${detail}` : ''}`,
          },
          false,
        );
      }
      return end(
        {
          status: 'Failed',
          durationSeconds: null,
          node,
          message: `${failed.reason ?? 'Failed'}${failed.message ? `: ${failed.message}` : ''}${detail ? `; ${detail}` : ''}`,
        },
        false,
      );
    }

    const stuck = pods.find((p) => p.unschedulable !== null && !p.nodeName);
    if (stuck && !pods.some((p) => p.nodeName)) {
      unschedSince ??= now;
      const waited = Math.round(seconds(unschedSince, now));
      if (waited > unschedLimit) {
        return end(
          {
            status: 'Unschedulable',
            durationSeconds: null,
            node: null,
            message: `pod ${stuck.name} Unschedulable for ${waited} s (limit ${unschedLimit} s): ${stuck.unschedulable}`,
          },
          true,
        );
      }
      emit('scheduling', `pod ${stuck.name} Unschedulable for ${waited} s: ${stuck.unschedulable}`, now);
    } else {
      unschedSince = null;
      const running = pods.find((p) =>
        p.containers.some((c) => c.name === BENCHMARK_CONTAINER && c.state === 'running'),
      );
      if (running) emit('running', `pod ${running.name} running on ${running.nodeName ?? '?'}`, now);
      else {
        const waiting = pods.flatMap((p) => p.containers).find((c) => c.state === 'waiting' && c.reason);
        emit(
          'scheduling',
          waiting ? `container waiting: ${waiting.reason}` : 'waiting for the pod to start',
          now,
        );
      }
    }
    if (seconds(startedAt, now) > guard) {
      return end(
        {
          status: 'TimedOut',
          durationSeconds: null,
          node: null,
          message: `no end ${guard} s after creation (activeDeadlineSeconds not enforced?)`,
        },
        true,
      );
    }
    await clock.sleep(interval);
    interval = Math.min(interval * poll.factor, poll.maxSeconds);
  }
}

/**
 * Benchmarks one algorithm at its current spec hash ({@link specHash}), or returns the stored
 * result when the stored runs already decide it (an unchanged spec is never benchmarked again;
 * see `summarizeRuns`). Runs one Job per run until `benchmark.runs` runs succeeded, each holding
 * its GPUs in `slots` while it runs; the first run that does not succeed ends the benchmark.
 * Every run is recorded through the store. The median of the successful runs counts.
 * @throws KubeApiError when the API stays unreachable (the Job, if created, is followed again
 *   by the next call), or a store error
 */
export async function runBenchmark(
  alg: ResolvedAlgorithm,
  deps: RunnerDeps,
  slots: GpuSlots,
): Promise<BenchmarkResult> {
  const hash = specHash(alg.spec);
  const wanted = alg.benchmark.runs;
  const stored = await deps.store.benchmarkRuns(alg.name, hash);
  const before = summarizeRuns(stored, wanted);
  const base = { algorithm: alg.name, specHash: hash };
  if (before.final) {
    deps.onProgress?.({
      algorithm: alg.name,
      run: Math.min(before.durations.length, wanted),
      runs: wanted,
      phase: 'cached',
      elapsedSeconds: 0,
      jobName: null,
      message: `${before.status} at spec ${hash.slice(0, 12)} (stored): ${before.message}`,
    });
    return {
      ...base,
      status: before.status,
      medianSeconds: before.medianSeconds,
      message: before.message,
      cached: true,
      durations: before.durations,
      recorded: [],
    };
  }
  const recorded: BenchmarkRun[] = [];
  let run = before.nextRun;
  for (let done = before.durations.length; done < wanted; done++, run++) {
    const queuedAt = deps.clock.now();
    deps.onProgress?.({
      algorithm: alg.name,
      run: done + 1,
      runs: wanted,
      phase: 'queued',
      elapsedSeconds: 0,
      jobName: null,
      message: `waiting for ${alg.spec.resources.gpus} free test GPU(s)`,
    });
    const release = await slots.acquire(alg.spec.resources.gpus);
    let end;
    try {
      end = await executeRun(alg, hash, run, done + 1, deps, queuedAt);
    } finally {
      release();
    }
    const record: BenchmarkRun = {
      algorithm: alg.name,
      specHash: hash,
      run,
      status: end.status,
      durationSeconds: end.durationSeconds,
      node: end.node,
      jobName: end.jobName,
      startedAt: end.startedAt.toISOString(),
      finishedAt: deps.clock.now().toISOString(),
      message: end.message,
    };
    await deps.store.recordBenchmarkRun(record);
    recorded.push(record);
    if (end.status !== 'Succeeded') break;
  }
  const after = summarizeRuns([...stored, ...recorded], wanted);
  return {
    ...base,
    status: after.status,
    medianSeconds: after.medianSeconds,
    message: after.message,
    cached: false,
    durations: after.durations,
    recorded,
  };
}

/**
 * Benchmarks several algorithms at once, never holding more GPUs than `freeGpus` (the free GPUs
 * of the test pool) together. One algorithm's error never stops the others: it comes back as
 * `Pending` with the error in `message`. With no free GPU, nothing new starts: algorithms without
 * a stored result come back `Pending`. Results are in the order of `algorithms`.
 */
export async function runBenchmarks(
  algorithms: readonly ResolvedAlgorithm[],
  deps: RunnerDeps,
  freeGpus: number,
): Promise<BenchmarkResult[]> {
  if (freeGpus < 1) {
    return Promise.all(
      algorithms.map(async (alg) => {
        const hash = specHash(alg.spec);
        const s = summarizeRuns(await deps.store.benchmarkRuns(alg.name, hash), alg.benchmark.runs);
        const status = s.final ? s.status : 'Pending';
        const message = s.final ? s.message : `no free GPU in the test pool; ${s.message}`;
        return {
          algorithm: alg.name,
          specHash: hash,
          status,
          medianSeconds: s.medianSeconds,
          message,
          cached: true,
          durations: s.durations,
          recorded: [],
        };
      }),
    );
  }
  const slots = new GpuSlots(Math.floor(freeGpus));
  return Promise.all(
    algorithms.map((alg) =>
      runBenchmark(alg, deps, slots).catch((err: unknown) => ({
        algorithm: alg.name,
        specHash: specHash(alg.spec),
        status: 'Pending' as const,
        medianSeconds: null,
        message: `benchmark interrupted: ${err instanceof Error ? err.message : String(err)}`,
        cached: false,
        durations: [],
        recorded: [],
      })),
    ),
  );
}

/** The benchmark outcome the stored runs give for an algorithm's current spec (for `plan` from the database), with those runs (oldest first). */
export async function storedOutcome(
  alg: ResolvedAlgorithm,
  store: Pick<Store, 'benchmarkRuns'>,
): Promise<BenchmarkOutcome & { specHash: string; runs: BenchmarkRun[] }> {
  const hash = specHash(alg.spec);
  const runs = await store.benchmarkRuns(alg.name, hash);
  const s = summarizeRuns(runs, alg.benchmark.runs);
  return { status: s.status, medianSeconds: s.medianSeconds, message: s.message, specHash: hash, runs };
}
