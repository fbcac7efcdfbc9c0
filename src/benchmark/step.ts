/**
 * One level-triggered benchmark step, the thin adapter around the pure parts: for each algorithm
 * read its stored runs, observe the Job of its next run (by its stable name), classify it
 * (`classifyRun`), record a run that ended, and create the Jobs that are missing while test GPUs
 * are free. It never waits for a Job: a 30-minute benchmark is one Job that later steps read.
 */
import { KubeApiError } from '../cluster/index.js';
import { retry as retryWithBackoff } from '../retry/index.js';
import { BENCHMARK_JOB_LABEL, benchmarkJobName, renderBenchmarkJob } from '../manifests/index.js';
import type { ResolvedAlgorithm } from '../definitions/index.js';
import type { BenchmarkRun } from '../store/index.js';
import { classifyRun, type RunObservation, type RunState } from './classify.js';
import type { BenchmarkPhase, BenchmarkResult, RunnerDeps, TestCapacity } from './types.js';
import type { JobView } from '../cluster/index.js';
import { foreignJobMessage, judgeJob, type ExpectedJob, type RecordedJob } from './job-owner.js';
import { sampleSignal } from './sample-run.js';
import { specHash } from './spec-hash.js';
import { summarizeRuns, type RunsSummary } from './summary.js';

/** One algorithm after observing and recording: its summary and its next run's state. */
interface Observed {
  alg: ResolvedAlgorithm;
  hash: string;
  cached: boolean;
  summary: RunsSummary;
  recorded: BenchmarkRun[];
  /** The Job name of `summary.nextRun`. */
  jobName: string;
  /** `absent` (to create) or `active`; never `ended` (ends are recorded). */
  state: RunState;
}

/** A Job API call, retried on transient API errors: 1 s, 2 s, 4 s … of the runner's clock, no jitter. */
function retry<T>(deps: RunnerDeps, fn: () => Promise<T>): Promise<T> {
  return retryWithBackoff(fn, {
    attempts: deps.apiAttempts ?? 3,
    backoff: { baseMs: 1000, maxMs: Number.POSITIVE_INFINITY },
    random: () => 1,
    retryable: (err) => err instanceof KubeApiError && err.transient,
    sleep: (ms) => deps.clock.sleep(ms / 1000),
  });
}

/** Reads a run's Job and, when it exists, its pods (by the `gpuops.dev/benchmark-job` label). */
async function observe(deps: RunnerDeps, namespace: string, jobName: string): Promise<RunObservation> {
  const job = await retry(deps, () => deps.jobs.readJob(namespace, jobName));
  if (!job) return { job: null, pods: [] };
  const pods = await retry(deps, () => deps.jobs.listPods(namespace, `${BENCHMARK_JOB_LABEL}=${jobName}`));
  return { job, pods };
}

/** What the store recorded of a Job name, or null when the store keeps no uids. */
async function recordedJob(deps: RunnerDeps, namespace: string, name: string): Promise<RecordedJob | null> {
  const store = deps.store;
  if (!store.benchmarkJobOwner) return null;
  const r = await store.benchmarkJobOwner(namespace, name);
  const since = r.recordingSince === null ? null : new Date(r.recordingSince);
  return { uid: r.uid, recordingSince: since && !Number.isNaN(since.getTime()) ? since : null };
}

/**
 * Why gpuops will not follow `job` (`judgeJob`), or null when it is gpuops's; a Job made before
 * uids were recorded is adopted by its marks and its uid recorded (not in a dry run).
 */
async function notOurs(deps: RunnerDeps, job: JobView, want: ExpectedJob): Promise<string | null> {
  const verdict = judgeJob(job, want, await recordedJob(deps, job.namespace, job.name));
  if (verdict.kind === 'refuse') return verdict.why;
  if (verdict.adopt && !deps.dryRun && job.uid !== undefined)
    await recordUid(deps, job.namespace, job.name, job.uid);
  return null;
}

async function recordUid(deps: RunnerDeps, namespace: string, jobName: string, uid: string): Promise<void> {
  const at = deps.clock.now().toISOString();
  await deps.store.recordBenchmarkJobUid?.({ namespace, jobName, uid, at });
}

/**
 * Records the uid of the Job gpuops's create just made. When that fails the Job is deleted again
 * (and the error thrown): a Job gpuops cannot know as its own would be refused by every later pass,
 * while a deleted one is simply created again by the next.
 */
async function recordCreated(
  deps: RunnerDeps,
  namespace: string,
  jobName: string,
  uid: string | null,
): Promise<void> {
  if (!deps.store.recordBenchmarkJobUid) return;
  try {
    if (uid === null)
      throw new Error(`create Job ${namespace}/${jobName}: the API server answered without metadata.uid`);
    await recordUid(deps, namespace, jobName, uid);
  } catch (err) {
    await retry(deps, () => deps.jobs.deleteJob(namespace, jobName));
    throw err;
  }
}

function summarize(deps: RunnerDeps, alg: ResolvedAlgorithm, runs: readonly BenchmarkRun[]): RunsSummary {
  return summarizeRuns(runs, alg.benchmark.runs, deps.policy.benchmark.startRetryBackoffSeconds);
}

/**
 * Phase 1 of a step for one algorithm: stored runs → observe the next run's Job → when it ended,
 * delete it if asked, record it and go on to the run after it (whose Job does not exist yet).
 */
async function observeAlgorithm(alg: ResolvedAlgorithm, deps: RunnerDeps): Promise<Observed> {
  const hash = specHash(alg.spec, alg.annotations);
  const stored = [...(deps.storedRuns?.get(alg.name) ?? (await deps.store.benchmarkRuns(alg.name, hash)))];
  let summary = summarize(deps, alg, stored);
  const base = { alg, hash, recorded: [] as BenchmarkRun[] };
  if (summary.final) {
    const jobName = benchmarkJobName(alg.name, hash, summary.nextRun);
    return { ...base, cached: true, summary, jobName, state: { kind: 'absent' } };
  }
  const now = deps.clock.now();
  let jobName = benchmarkJobName(alg.name, hash, summary.nextRun);
  const obs = await observe(deps, alg.namespace, jobName);
  const foreign = obs.job && (await notOurs(deps, obs.job, { algorithm: alg.name, specHash: hash, jobName }));
  if (obs.job && foreign) {
    // Never followed, never recorded, never replaced by deleting someone else's Job.
    const message = foreignJobMessage(obs.job, foreign);
    const state: RunState = { kind: 'active', phase: 'scheduling', node: null, elapsedSeconds: 0, message };
    return { ...base, cached: false, summary, jobName, state };
  }
  const limits = {
    timeoutSeconds: alg.benchmark.timeoutSeconds,
    unschedulableTimeoutSeconds: deps.policy.benchmark.unschedulableTimeoutSeconds,
    startTimeoutSeconds: deps.policy.benchmark.startTimeoutSeconds,
  };
  let state = classifyRun(obs, limits, now);
  if (state.kind === 'active')
    await sampleSignal(deps, alg, { hash, run: summary.nextRun, jobName }, state, now);
  if (state.kind !== 'ended') return { ...base, cached: false, summary, jobName, state };
  if (deps.dryRun) {
    const message = `${state.end.status}: ${state.end.message} (recorded by the next pass that writes)`;
    state = { kind: 'active', phase: 'scheduling', node: state.end.node, elapsedSeconds: 0, message };
    return { ...base, cached: false, summary, jobName, state };
  }
  // Delete before recording: a record whose Job lingers would hold its GPU with nobody reading it.
  if (state.deleteJob) await retry(deps, () => deps.jobs.deleteJob(alg.namespace, jobName));
  const record: BenchmarkRun = {
    algorithm: alg.name,
    specHash: hash,
    run: summary.nextRun,
    status: state.end.status,
    durationSeconds: state.end.durationSeconds,
    node: state.end.node,
    gpuProduct: state.end.node === null ? null : (deps.productOfNode?.(state.end.node) ?? null),
    jobName,
    startedAt: (obs.job?.createdAt ?? now).toISOString(),
    finishedAt: now.toISOString(),
    message: state.end.message,
  };
  await deps.store.recordBenchmarkRun(record);
  summary = summarize(deps, alg, [...stored, record]);
  jobName = benchmarkJobName(alg.name, hash, summary.nextRun);
  return { ...base, recorded: [record], cached: false, summary, jobName, state: { kind: 'absent' } };
}

function result(
  o: Observed,
  outcome: Pick<BenchmarkResult, 'status' | 'message' | 'medianSeconds'>,
  inFlight: string | null,
): BenchmarkResult {
  return {
    algorithm: o.alg.name,
    specHash: o.hash,
    ...outcome,
    cached: o.cached,
    final: o.summary.final,
    inFlight,
    durations: o.summary.durations,
    recorded: o.recorded,
  };
}

/** `benchmark run 2 of 3` of an algorithm that is not final. */
function runLabel(o: Observed): string {
  return `benchmark run ${Math.min(o.summary.durations.length + 1, o.alg.benchmark.runs)} of ${o.alg.benchmark.runs}`;
}

function progress(
  deps: RunnerDeps,
  o: Observed,
  phase: BenchmarkPhase,
  message: string,
  elapsedSeconds = 0,
  jobName: string | null = null,
): void {
  deps.onProgress?.({
    algorithm: o.alg.name,
    run: Math.min(o.summary.durations.length + (phase === 'cached' ? 0 : 1), o.alg.benchmark.runs),
    runs: o.alg.benchmark.runs,
    phase,
    elapsedSeconds,
    jobName,
    message,
  });
}

/** A request larger than the free GPUs starts only when the whole test pool is idle (the scheduler then says whether it fits). */
function fits(gpus: number, budget: number, capacity: TestCapacity, anyInFlight: boolean): boolean {
  if (capacity.total <= 0) return false;
  if (gpus <= budget) return true;
  return !anyInFlight && budget >= capacity.total;
}

/**
 * One benchmark step over `algorithms` (never waits on a Job):
 * 1. every algorithm, in parallel: stored runs at its spec hash → done when final; else observe
 *    the Job of its next run; a run that ended is recorded (its Job deleted when gpuops ended it)
 *    and the algorithm moves on to its next run, whose Job does not exist yet;
 * 2. in the order given: an algorithm whose next Job is missing gets it created when its GPUs fit
 *    in the free test GPUs left (minus those of Jobs in flight whose pod is not bound yet), and
 *    its backoff after a failed start is over. First come, first served: once one does not fit,
 *    later ones wait too, so a large request is never starved by small ones.
 * Runs of one algorithm are sequential: run k+1's Job is created once run k has ended (in the
 * same step when it ended there). Results come in the order of `algorithms`; an algorithm still
 * running, waiting or just started is `Pending` with a message such as
 * `benchmark run 2 of 3 running on gpu-t4-01 for 412 s`. One algorithm's API error never stops the
 * others: it comes back `Pending` with the error in `message`.
 */
export async function stepBenchmarks(
  algorithms: readonly ResolvedAlgorithm[],
  deps: RunnerDeps,
  capacity: TestCapacity,
): Promise<BenchmarkResult[]> {
  const observed = await Promise.all(
    algorithms.map((alg) => observeAlgorithm(alg, deps).catch((err: unknown) => ({ alg, err }))),
  );
  const unbound = observed.reduce(
    (sum, o) =>
      sum +
      ('state' in o && o.state.kind === 'active' && o.state.node === null ? o.alg.spec.resources.gpus : 0),
    0,
  );
  const queue: Queue = {
    budget: Math.max(0, Math.floor(capacity.free) - unbound),
    blocked: false,
    anyInFlight: observed.some((o) => 'state' in o && o.state.kind === 'active'),
  };
  const now = deps.clock.now();
  const out: BenchmarkResult[] = [];
  for (const o of observed) {
    const err = 'err' in o ? o.err : undefined;
    if (err === undefined) {
      try {
        out.push(await decide(o as Observed, deps, capacity, now, queue));
        continue;
      } catch (e) {
        out.push(failedStep(o.alg, e, (o as Observed).recorded));
        continue;
      }
    }
    out.push(failedStep(o.alg, err, []));
  }
  return out;
}

/** The free test GPUs left in this step, and whether an earlier algorithm is waiting for them. */
interface Queue {
  budget: number;
  blocked: boolean;
  anyInFlight: boolean;
}

function failedStep(alg: ResolvedAlgorithm, err: unknown, recorded: BenchmarkRun[]): BenchmarkResult {
  const message = `benchmark step failed (tried again next pass): ${err instanceof Error ? err.message : String(err)}`;
  return {
    algorithm: alg.name,
    specHash: specHash(alg.spec, alg.annotations),
    status: 'Pending',
    medianSeconds: null,
    message,
    cached: false,
    final: false,
    inFlight: null,
    durations: [],
    recorded,
  };
}

/** Reports each run recorded in this step (`deps.onProgress`): succeeded or failed, its duration in seconds. */
function reportRecorded(o: Observed, deps: RunnerDeps): void {
  const { summary: s, alg } = o;
  for (const r of o.recorded) {
    deps.onProgress?.({
      algorithm: alg.name,
      run: Math.max(1, Math.min(s.durations.length, alg.benchmark.runs)),
      runs: alg.benchmark.runs,
      phase: r.status === 'Succeeded' ? 'succeeded' : 'failed',
      elapsedSeconds: (Date.parse(r.finishedAt ?? r.startedAt) - Date.parse(r.startedAt)) / 1000,
      jobName: r.jobName,
      message: `${r.status}: ${r.message}`,
    });
  }
}

/** Phase 2 of a step for one algorithm: report, or create its next Job when it may start. */
async function decide(
  o: Observed,
  deps: RunnerDeps,
  capacity: TestCapacity,
  now: Date,
  queue: Queue,
): Promise<BenchmarkResult> {
  const { summary: s, alg } = o;
  reportRecorded(o, deps);
  if (s.final) {
    if (o.cached)
      progress(deps, o, 'cached', `${s.status} at spec ${o.hash.slice(0, 12)} (stored): ${s.message}`);
    return result(o, s, null);
  }
  const ns = alg.namespace;
  if (o.state.kind === 'active') {
    const sep = o.state.phase === 'running' ? ' ' : ': ';
    const message = `${runLabel(o)}${sep}${o.state.message}`;
    progress(deps, o, o.state.phase, o.state.message, o.state.elapsedSeconds, o.jobName);
    return result(o, { status: 'Pending', medianSeconds: null, message }, o.jobName);
  }
  const pending = (message: string) => {
    progress(deps, o, 'queued', message);
    // An Unschedulable last run keeps its status until the next run is under way.
    const status = s.status === 'Unschedulable' ? 'Unschedulable' : 'Pending';
    return result(o, { status, medianSeconds: null, message: `${runLabel(o)} waits: ${message}` }, null);
  };
  if (s.retryAt && now.getTime() < s.retryAt.getTime()) return pending(s.message);
  // Capacity may come back, but not within this step: the next pass tries again.
  if (o.recorded.some((r) => r.status === 'Unschedulable'))
    return pending(`${s.message}; tried again next pass`);
  const gpus = alg.spec.resources.gpus;
  if (capacity.total <= 0) {
    return pending(capacity.noCapacityMessage ?? 'no free GPU in the test pool');
  }
  if (queue.blocked || !fits(gpus, queue.budget, capacity, queue.anyInFlight)) {
    queue.blocked = true;
    return pending(
      `${gpus} free test GPU(s) needed, ${queue.budget} free${queue.blocked ? ' (queued behind an earlier benchmark)' : ''}; ${s.message}`,
    );
  }
  queue.budget = Math.max(0, queue.budget - gpus);
  if (deps.dryRun) {
    const message = `${runLabel(o)}: would create Job ${ns}/${o.jobName}`;
    progress(deps, o, 'queued', message);
    return result(o, { status: 'Pending', medianSeconds: null, message }, null);
  }
  const job = renderBenchmarkJob({
    algorithm: alg,
    policy: deps.policy,
    specHash: o.hash,
    sequence: s.nextRun,
    gpuProduct: deps.gpuProduct?.(alg) ?? null,
    template: deps.templates.benchmarkJob,
  });
  const created = await retry(deps, () => deps.jobs.createJob(job));
  if (created.outcome === 'created') await recordCreated(deps, ns, o.jobName, created.uid);
  else {
    // Made between this pass's read and its create: followed only when it is gpuops's.
    const found = await retry(deps, () => deps.jobs.readJob(ns, o.jobName));
    const why =
      found && (await notOurs(deps, found, { algorithm: alg.name, specHash: o.hash, jobName: o.jobName }));
    if (found && why) {
      const message = `${runLabel(o)}: ${foreignJobMessage(found, why)}`;
      progress(deps, o, 'queued', message);
      return result(o, { status: 'Pending', medianSeconds: null, message }, null);
    }
  }
  const what = created.outcome === 'exists' ? 'following existing' : 'created';
  const message = `${runLabel(o)}: ${what} Job ${ns}/${o.jobName}`;
  progress(deps, o, 'scheduling', `${what} Job ${ns}/${o.jobName}`, 0, o.jobName);
  return result(o, { status: 'Pending', medianSeconds: null, message }, o.jobName);
}
