/**
 * Pure: where one benchmark run stands, from one observation of its Job and pods. The step
 * (`step.ts`) observes, classifies, and acts on the answer; nothing here waits or reads a clock.
 */
import type { JobView, PodView } from '../cluster/index.js';
import type { BenchmarkRun } from '../store/index.js';
import { benchmarkContainer, podDisruption, startError } from './disruption.js';
import { measureContainer } from './measure.js';
import { QUEUE_NAME_LABEL } from '../manifests/index.js';

/** One read of a run's Job (null: it does not exist) and the pods labelled with its name. */
export interface RunObservation {
  job: JobView | null;
  pods: PodView[];
}

/** How a run ended; becomes a stored {@link BenchmarkRun}. */
export interface RunEnd {
  status: BenchmarkRun['status'];
  /** Seconds; set only when `Succeeded`. */
  durationSeconds: number | null;
  node: string | null;
  message: string;
}

/** The limits a run is judged by (seconds). */
export interface ClassifyLimits {
  /** The algorithm's `benchmark.timeoutSeconds` (the Job's activeDeadlineSeconds). */
  timeoutSeconds: number;
  /** Policy `benchmark.unschedulableTimeoutSeconds`. */
  unschedulableTimeoutSeconds: number;
  /** Policy `benchmark.startTimeoutSeconds`. */
  startTimeoutSeconds: number;
}

/** Where a run is. `ended` runs are recorded; `deleteJob` asks the step to delete the Job first. */
export type RunState =
  | { kind: 'absent' }
  | {
      kind: 'active';
      phase: 'scheduling' | 'running';
      /** Node of the pod, when bound. */
      node: string | null;
      /** Seconds since the Job was created (0 when unknown). */
      elapsedSeconds: number;
      message: string;
      /** With `running`: the pod whose benchmark container runs (its signal is sampled). */
      pod?: string;
    }
  | { kind: 'ended'; end: RunEnd; deleteJob: boolean };

/** Slack on top of activeDeadlineSeconds + the unschedulable and start limits before gpuops ends a Job itself (seconds). */
export const DEADLINE_SLACK_SECONDS = 60;

const secondsBetween = (from: Date, to: Date) => Math.round((to.getTime() - from.getTime()) / 1000);

function isTrue(job: JobView, type: string) {
  return job.conditions.find((c) => c.type === type && c.status === 'True');
}

/** `; 1 pod disrupted and replaced (pod x: DisruptionTarget …)`, or ''. */
function disruptionNote(pods: readonly PodView[]): string {
  const hit = pods
    .filter((p) => p.phase === 'Failed')
    .map((p) => [p, podDisruption(p)] as const)
    .filter(([, d]) => d !== null);
  if (hit.length === 0) return '';
  const list = hit.map(([p, d]) => `pod ${p.name}: ${d}`).join('; ');
  return `; ${hit.length} pod(s) disrupted and replaced by the Job (${list})`;
}

function failureDetail(pods: readonly PodView[]): string {
  for (const p of pods) {
    const c = benchmarkContainer(p);
    if (c?.state === 'terminated' && c.exitCode !== 0) {
      const msg = (c.message ?? '').trim().slice(-500);
      return `pod ${p.name}: ${c.reason ?? 'terminated'}, exit code ${c.exitCode ?? '?'}${msg ? `: ${msg}` : ''}`;
    }
  }
  return '';
}

/** A Job that reached `Complete` (or has a succeeded pod): measured, or Failed when nothing can be measured. */
function classifyComplete(obs: RunObservation & { job: JobView }): RunState | null {
  for (const p of obs.pods.filter((x) => x.phase === 'Succeeded')) {
    const c = benchmarkContainer(p);
    const m = c?.state === 'terminated' ? measureContainer(c) : null;
    if (m) {
      const end: RunEnd = {
        status: 'Succeeded',
        durationSeconds: m.seconds,
        node: p.nodeName,
        message: `${m.seconds} s (${m.source}) on ${p.nodeName ?? '?'}${disruptionNote(obs.pods)}`,
      };
      return { kind: 'ended', end, deleteJob: false };
    }
  }
  if (!isTrue(obs.job, 'Complete')) return null;
  const end: RunEnd = {
    status: 'Failed',
    durationSeconds: null,
    node: null,
    message: 'Job Complete, but no terminated benchmark container with times to measure',
  };
  return { kind: 'ended', end, deleteJob: false };
}

/**
 * A `Failed` Job: `DeadlineExceeded` → `TimedOut`; every failed pod a disruption
 * ({@link podDisruption}; the Job counted them, e.g. exit 137 without `DisruptionTarget`, or a
 * cluster without podFailurePolicy) → `Disrupted`, tried again by a new Job; else `Failed`.
 */
function classifyFailed(
  obs: RunObservation & { job: JobView },
  failed: JobView['conditions'][number],
  limits: ClassifyLimits,
): RunState {
  const node = obs.pods.find((p) => p.nodeName)?.nodeName ?? null;
  const detail = failureDetail(obs.pods);
  const end = (status: RunEnd['status'], message: string): RunState => ({
    kind: 'ended',
    end: { status, durationSeconds: null, node, message },
    deleteJob: false,
  });
  if (failed.reason === 'DeadlineExceeded') {
    return end(
      'TimedOut',
      `no end within activeDeadlineSeconds ${limits.timeoutSeconds} s${detail ? `; ${detail}` : ''}`,
    );
  }
  const failedPods = obs.pods.filter((p) => p.phase === 'Failed');
  const disruptions = failedPods.map((p) => [p, podDisruption(p)] as const);
  if (failedPods.length > 0 && disruptions.every(([, d]) => d !== null)) {
    return end(
      'Disrupted',
      `disrupted, not a result (tried again by a new Job): ${disruptions.map(([p, d]) => `pod ${p.name} on ${p.nodeName ?? '?'}: ${d}`).join('; ')}`,
    );
  }
  const why = `${failed.reason ?? 'Failed'}${failed.message ? `: ${failed.message}` : ''}`;
  return end('Failed', `${why}${detail ? `; ${detail}` : ''}`);
}

/**
 * A suspended Job (`spec.suspend: true`, set by a queueing system's webhook such as Kueue's
 * `manageJobsWithoutQueueName`, or by a person): waiting to be admitted, not failed and not timing
 * out — no limit runs while it waits. The message names the queue it waits in (the label
 * `kueue.x-k8s.io/queue-name`) or that none is named, and the Job's `Suspended` condition.
 */
function suspended(job: JobView): RunState {
  const queue = job.labels?.[QUEUE_NAME_LABEL];
  const cond = job.conditions.find((c) => c.type === 'Suspended' && c.status === 'True');
  const why = cond?.message ? ` (${cond.reason ?? 'Suspended'}: ${cond.message})` : '';
  const where = queue
    ? `waiting for queue ${queue} to admit it`
    : `waiting to be admitted; no queue is named (set benchmark.queueName in the spec or policy for label ${QUEUE_NAME_LABEL})`;
  return {
    kind: 'active',
    phase: 'scheduling',
    node: null,
    elapsedSeconds: 0,
    message: `Job suspended (spec.suspend: true)${why}, ${where}; the wait does not count against the timeout`,
  };
}

const ended = (end: RunEnd): RunState => ({ kind: 'ended', end, deleteJob: true });

/**
 * What the stuck-pod checks of a running Job read: its live pods (neither `Failed` nor
 * `Succeeded`), when it started (`created`) and the seconds since, the limits and `now`.
 */
interface LiveRun {
  live: readonly PodView[];
  created: Date;
  elapsedSeconds: number;
  limits: ClassifyLimits;
  now: Date;
}

/**
 * A Job whose pod cannot be scheduled and none of whose pods has a node: ended `Unschedulable`
 * once the pod waited (seconds since `unschedulableSince`) past `unschedulableTimeoutSeconds`,
 * else still scheduling. Null when no live pod is unschedulable or one is on a node.
 */
function unschedulableState({ live, created, elapsedSeconds, limits, now }: LiveRun): RunState | null {
  const stuck = live.find((p) => p.unschedulable !== null && !p.nodeName);
  if (!stuck || live.some((p) => p.nodeName)) return null;
  const since = stuck.unschedulableSince ?? stuck.createdAt ?? created;
  const waited = Math.max(0, secondsBetween(since, now));
  const limit = limits.unschedulableTimeoutSeconds;
  const message = `pod ${stuck.name} Unschedulable for ${waited} s (limit ${limit} s): ${stuck.unschedulable}`;
  if (waited > limit) return ended({ status: 'Unschedulable', durationSeconds: null, node: null, message });
  return { kind: 'active', phase: 'scheduling', node: null, elapsedSeconds, message };
}

/**
 * The first live pod whose container cannot start (`startError`: image pull, bad config): ended
 * (`Failed` when the error is final, else `StartFailed`) once it waited past
 * `startTimeoutSeconds`, else still scheduling. Null when no container is failing to start.
 */
function startErrorState({ live, created, elapsedSeconds, limits, now }: LiveRun): RunState | null {
  for (const p of live) {
    const err = startError(p);
    if (!err) continue;
    // Kubernetes keeps no time for a waiting reason: count from when the kubelet took the pod.
    const since = p.startedAt ?? p.createdAt ?? created;
    const waited = Math.max(0, secondsBetween(since, now));
    const limit = limits.startTimeoutSeconds;
    const what = `container ${err.reason} (image ${err.image ?? '?'})${err.message ? `: ${err.message}` : ''}`;
    if (waited > limit) {
      return ended({
        status: err.final ? 'Failed' : 'StartFailed',
        durationSeconds: null,
        node: p.nodeName,
        message: `could not start: ${what}; pod ${p.name} on ${p.nodeName ?? '?'} waited ${waited} s (limit ${limit} s)`,
      });
    }
    const message = `pod ${p.name} on ${p.nodeName ?? '?'}: ${what}, for ${waited} s (limit ${limit} s)`;
    return { kind: 'active', phase: 'scheduling', node: p.nodeName, elapsedSeconds, message };
  }
  return null;
}

/** A Job still running: ends it when a pod is stuck past a limit, else reports progress. */
function classifyActive(obs: RunObservation & { job: JobView }, limits: ClassifyLimits, now: Date): RunState {
  const { job, pods } = obs;
  if (job.suspended) return suspended(job);
  // A Job that waited suspended starts when it resumes (`status.startTime`, reset on resume, as
  // activeDeadlineSeconds counts): the wait never counts against the timeout.
  const created = job.startedAt ?? job.createdAt ?? now;
  const elapsedSeconds = Math.max(0, secondsBetween(created, now));
  const live = pods.filter((p) => p.phase !== 'Failed' && p.phase !== 'Succeeded');
  const note = disruptionNote(pods);

  const run: LiveRun = { live, created, elapsedSeconds, limits, now };
  const stuckState = unschedulableState(run);
  if (stuckState) return stuckState;
  const startState = startErrorState(run);
  if (startState) return startState;

  const guard =
    limits.timeoutSeconds +
    limits.unschedulableTimeoutSeconds +
    limits.startTimeoutSeconds +
    DEADLINE_SLACK_SECONDS;
  if (elapsedSeconds > guard) {
    return ended({
      status: 'TimedOut',
      durationSeconds: null,
      node: live.find((p) => p.nodeName)?.nodeName ?? null,
      message: `no end ${guard} s after creation (activeDeadlineSeconds not enforced?)`,
    });
  }

  const running = live.find((p) => benchmarkContainer(p)?.state === 'running');
  if (running) {
    const started = benchmarkContainer(running)!.startedAt ?? running.startedAt ?? created;
    const message = `running on ${running.nodeName ?? '?'} for ${Math.max(0, secondsBetween(started, now))} s${note}`;
    return {
      kind: 'active',
      phase: 'running',
      node: running.nodeName,
      elapsedSeconds,
      message,
      pod: running.name,
    };
  }
  const waiting = live.flatMap((p) => p.containers).find((c) => c.state === 'waiting' && c.reason);
  const node = live.find((p) => p.nodeName)?.nodeName ?? null;
  const message = waiting
    ? `container ${waiting.reason} on ${node ?? '?'}${note}`
    : `waiting for the pod to start${note}`;
  return { kind: 'active', phase: 'scheduling', node, elapsedSeconds, message };
}

/**
 * Where one run stands (pure):
 * - no Job: `absent` (create it);
 * - Job `Complete` (or a succeeded pod): `Succeeded`, measured on the benchmark container
 *   ({@link measureContainer}); pods the Job replaced after a disruption are named in the message;
 * - Job `Failed`: `TimedOut` / `Disrupted` / `Failed` (see {@link classifyFailed});
 * - its pod `Unschedulable` longer than `unschedulableTimeoutSeconds`: `Unschedulable`, Job deleted;
 * - its container waiting in a start error ({@link startError}) longer than
 *   `startTimeoutSeconds` (counted from the pod's `status.startTime`): `StartFailed`, or `Failed`
 *   for an invalid image name; Job deleted so its GPU is free;
 * - suspended (`spec.suspend`, a queue such as Kueue's holds it): `active`, waiting, no limit runs;
 * - no end `timeout + both limits + 60 s` after the Job started (`status.startTime`, reset when it
 *   resumes; its creation when absent): `TimedOut`, Job deleted.
 * A limit is a "longer than": at exactly the limit the run still waits (like a Job's own
 * activeDeadlineSeconds, which fires only once it has passed). Otherwise `active`.
 */
export function classifyRun(obs: RunObservation, limits: ClassifyLimits, now: Date): RunState {
  const { job } = obs;
  if (!job) return { kind: 'absent' };
  const withJob = { ...obs, job };
  if (isTrue(job, 'Complete') || job.succeeded > 0) {
    const done = classifyComplete(withJob);
    if (done) return done;
  }
  const failed = isTrue(job, 'Failed');
  if (failed) return classifyFailed(withJob, failed, limits);
  return classifyActive(withJob, limits, now);
}
