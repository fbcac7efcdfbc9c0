/**
 * The simulated Job controller (batch/v1, https://kubernetes.io/docs/concepts/workloads/controllers/job/).
 *
 * Per Job that has not finished:
 * - `status.startTime` is set on the first pass (not while `spec.suspend` is true);
 * - it keeps min(`parallelism`, `completions` − succeeded) pods active (defaults 1 and 1), each
 *   named `<job>-<5 chars>` from the template, labelled `job-name`, `controller-uid` (and the
 *   `batch.kubernetes.io/` forms), owned by the Job;
 * - Complete (reason `CompletionsReached`) when `completions` pods succeeded, with
 *   `completionTime` = the last success's container `finishedAt`;
 * - Failed, reason `DeadlineExceeded`, when `activeDeadlineSeconds` passed since `startTime`
 *   before that: active pods are deleted and counted as failed (a pod that finished after the
 *   deadline counts as killed at the deadline, whatever the tick size);
 * - Failed, reason `BackoffLimitExceeded`, when failed pods exceed `backoffLimit` (default 6); a
 *   failed pod within the limit is replaced at once (no exponential back-off delay);
 * - `podFailurePolicy` (https://kubernetes.io/docs/concepts/workloads/controllers/job/#pod-failure-policy):
 *   each failed pod takes the action of the first rule it matches (`onExitCodes` on a non-zero
 *   exit code of its containers, or `onPodConditions`): `Ignore` — not counted against
 *   `backoffLimit`, and replaced (e.g. a pod with `DisruptionTarget` after an eviction);
 *   `FailJob` — Failed, reason `PodFailurePolicy`; `Count` or no match — counted as usual.
 * Finished Jobs with `ttlSecondsAfterFinished` are deleted that long after they finished (the TTL
 * controller); the garbage collector then removes their pods.
 */
import { SimApiError, type KubeObject, type SimController, type SimStore } from '../types.js';
import { ChangeGate } from './gate.js';
import { readAll, writeChangedStatus } from './read.js';
import { nameSuffix } from './names.js';
import { byOwner, isPodReady, isTerminal, ownedFrom, ownerReference, phaseOf, setCondition } from './pods.js';
import { k8sTime, parseTime } from './time.js';

/** When a pod ended: the latest container `finishedAt`, or undefined. */
export function podFinishedMs(pod: KubeObject): number | undefined {
  let last: number | undefined;
  for (const cs of (pod.status?.containerStatuses as
    { state?: { terminated?: { finishedAt?: string } } }[] | undefined) ?? []) {
    const t = parseTime(cs.state?.terminated?.finishedAt);
    if (t !== undefined) last = Math.max(last ?? t, t);
  }
  return last;
}

function finishedAt(job: KubeObject): number | undefined {
  for (const c of (job.status?.conditions as
    { type: string; status: string; lastTransitionTime?: string }[] | undefined) ?? []) {
    if ((c.type === 'Complete' || c.type === 'Failed') && c.status === 'True')
      return parseTime(c.lastTransitionTime) ?? 0;
  }
  return undefined;
}

interface PodFailureRule {
  action: 'FailJob' | 'FailIndex' | 'Ignore' | 'Count';
  onExitCodes?: { containerName?: string; operator: 'In' | 'NotIn'; values: number[] };
  onPodConditions?: { type: string; status?: string }[];
}

/**
 * The `podFailurePolicy` rule a failed pod matches first, with its index, or undefined (no
 * policy, or no rule matches: the failure counts). Exit codes 0 never match, as in Kubernetes.
 */
export function matchPodFailureRule(
  job: KubeObject,
  pod: KubeObject,
): { rule: PodFailureRule; index: number; detail: string } | undefined {
  const rules = (job.spec?.podFailurePolicy as { rules?: PodFailureRule[] } | undefined)?.rules ?? [];
  const statuses =
    (pod.status?.containerStatuses as
      { name: string; state?: { terminated?: { exitCode?: number } } }[] | undefined) ?? [];
  const conditions = (pod.status?.conditions as { type: string; status: string }[] | undefined) ?? [];
  for (const [index, rule] of rules.entries()) {
    const ex = rule.onExitCodes;
    if (ex) {
      const hit = statuses.find((c) => {
        const code = c.state?.terminated?.exitCode;
        if (code === undefined || code === 0) return false;
        if (ex.containerName && ex.containerName !== c.name) return false;
        return ex.operator === 'In' ? ex.values.includes(code) : !ex.values.includes(code);
      });
      if (hit) {
        const detail = `Container ${hit.name} for pod ${pod.metadata.namespace}/${pod.metadata.name} failed with exit code ${hit.state!.terminated!.exitCode} matching ${rule.action} rule at index ${index}`;
        return { rule, index, detail };
      }
    }
    for (const pc of rule.onPodConditions ?? []) {
      if (conditions.some((c) => c.type === pc.type && c.status === (pc.status ?? 'True'))) {
        const detail = `Pod ${pod.metadata.namespace}/${pod.metadata.name} has condition ${pc.type} matching ${rule.action} rule at index ${index}`;
        return { rule, index, detail };
      }
    }
  }
  return undefined;
}

/** Builds the Job's `index`-th pod from its template (not stored). */
export function jobPod(job: KubeObject, index: number): KubeObject {
  const tpl = (job.spec?.template ?? {}) as { metadata?: KubeObject['metadata']; spec?: unknown };
  const uid = job.metadata.uid ?? '';
  const labels: Record<string, string> = {
    ...(tpl.metadata?.labels ?? {}),
    'batch.kubernetes.io/controller-uid': uid,
    'batch.kubernetes.io/job-name': job.metadata.name,
    'controller-uid': uid,
    'job-name': job.metadata.name,
  };
  const metadata: KubeObject['metadata'] = {
    name: `${job.metadata.name}-${nameSuffix(`${uid || job.metadata.name}/${index}`)}`,
    namespace: job.metadata.namespace,
    labels,
    ownerReferences: [ownerReference(job)],
  };
  if (tpl.metadata?.annotations) metadata.annotations = { ...tpl.metadata.annotations };
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata,
    spec: structuredClone(tpl.spec ?? {}),
    status: { phase: 'Pending' },
  };
}

/** Creates the Job's next pod; tries further suffixes while a name is taken. Returns the pod. */
function createPod(store: SimStore, job: KubeObject, firstIndex: number): KubeObject | undefined {
  for (let i = firstIndex; i < firstIndex + 100; i++) {
    try {
      return store.create('pods', jobPod(job, i));
    } catch (err) {
      if (err instanceof SimApiError && err.code === 409) continue; // name taken: next suffix
      throw err;
    }
  }
  return undefined;
}

function deletePods(store: SimStore, pods: KubeObject[]): void {
  for (const p of pods) store.delete('pods', p.metadata.namespace, p.metadata.name);
}

/** The Job controller (and the TTL-after-finished controller) as a {@link SimController}. */
export function jobController(): SimController {
  const gate = new ChangeGate();
  return {
    name: 'job',
    reconcile(store: SimStore, now: Date): void {
      if (!gate.open(store, now)) return;
      const rv = store.resourceVersion();
      const jobs = readAll(store, 'jobs');
      let nextDue = Number.POSITIVE_INFINITY;
      if (jobs.length > 0) {
        const pods = byOwner(readAll(store, 'pods'));
        for (const job of jobs) {
          try {
            const due = syncJob(store, job, ownedFrom(pods, job), now.getTime());
            if (due !== undefined) nextDue = Math.min(nextDue, due);
          } catch (err) {
            if (!(err instanceof SimApiError)) throw err; // a bug, not a race: let the simulator report it
            // One Job's write failing (deleted or changed meanwhile) never stops the others.
          }
        }
      }
      gate.close(rv, nextDue);
    },
  };
}

/** One Job's pass; returns the epoch ms of its next timed event (deadline, TTL), if any. */
function syncJob(store: SimStore, job: KubeObject, pods: KubeObject[], nowMs: number): number | undefined {
  const done = finishedAt(job);
  if (done !== undefined) {
    const ttl = job.spec?.ttlSecondsAfterFinished as number | undefined;
    if (typeof ttl !== 'number') return undefined;
    const expires = done + ttl * 1000;
    if (nowMs >= expires) store.delete('jobs', job.metadata.namespace, job.metadata.name);
    return nowMs >= expires ? undefined : expires;
  }
  const spec = job.spec ?? {};
  const status = (job.status ?? {}) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  if (spec.suspend === true && !status.startTime) return undefined;
  const startMs = parseTime(status.startTime) ?? nowMs;
  const completions = typeof spec.completions === 'number' ? spec.completions : 1;
  const parallelism = typeof spec.parallelism === 'number' ? spec.parallelism : 1;
  const backoffLimit = typeof spec.backoffLimit === 'number' ? spec.backoffLimit : 6;
  const deadlineMs =
    typeof spec.activeDeadlineSeconds === 'number'
      ? startMs + spec.activeDeadlineSeconds * 1000
      : Number.POSITIVE_INFINITY;

  const live = pods.filter((p) => !p.metadata.deletionTimestamp);
  const succeededPods = live.filter(
    (p) => phaseOf(p) === 'Succeeded' && (podFinishedMs(p) ?? nowMs) <= deadlineMs,
  );
  const lateSucceeded = live.filter(
    (p) => phaseOf(p) === 'Succeeded' && (podFinishedMs(p) ?? nowMs) > deadlineMs,
  );
  const failedPods = live.filter((p) => phaseOf(p) === 'Failed');
  const matched = failedPods.map((p) => ({ pod: p, match: matchPodFailureRule(job, p) }));
  // Ignored failures (e.g. disruptions) never count against backoffLimit; their pods are replaced.
  const counted = matched.filter((m) => m.match?.rule.action !== 'Ignore');
  const failJob = matched.find((m) => m.match?.rule.action === 'FailJob');
  const active = live.filter((p) => !isTerminal(p));
  let failed = Math.max(status.failed ?? 0, counted.length);
  const succeeded = succeededPods.length;

  let conditions = status.conditions as Record<string, unknown>[] | undefined;
  let completionTime: string | undefined;
  let stillActive = active;
  let nextDue: number | undefined;
  const fail = (reason: string, message: string, atMs: number, killed: KubeObject[]): void => {
    deletePods(store, killed);
    failed += killed.length;
    stillActive = [];
    const at = k8sTime(atMs);
    conditions = setCondition(conditions, { type: 'Failed', status: 'True', reason, message }, at, {
      lastProbeTime: at,
    });
  };

  if (succeeded >= completions) {
    deletePods(store, active);
    stillActive = [];
    const lastMs = Math.max(...succeededPods.map((p) => podFinishedMs(p) ?? nowMs));
    completionTime = k8sTime(lastMs);
    conditions = setCondition(
      conditions,
      {
        type: 'Complete',
        status: 'True',
        reason: 'CompletionsReached',
        message: 'Reached expected number of succeeded pods',
      },
      completionTime,
      { lastProbeTime: completionTime },
    );
  } else if (nowMs >= deadlineMs) {
    fail('DeadlineExceeded', 'Job was active longer than specified deadline', deadlineMs, [
      ...active,
      ...lateSucceeded,
    ]);
  } else if (failJob) {
    const lastMs = Math.max(podFinishedMs(failJob.pod) ?? nowMs, startMs);
    fail('PodFailurePolicy', failJob.match!.detail, lastMs, active);
  } else if (failed > backoffLimit) {
    const lastMs = Math.max(...counted.map((m) => podFinishedMs(m.pod) ?? nowMs), startMs);
    fail('BackoffLimitExceeded', 'Job has reached the specified backoff limit', lastMs, active);
  } else {
    if (spec.suspend !== true) {
      const want = Math.min(parallelism, completions - succeeded) - active.length;
      for (let i = 0; i < want; i++) {
        const pod = createPod(store, job, pods.length + i);
        if (pod) stillActive = [...stillActive, pod];
      }
    }
    if (Number.isFinite(deadlineMs)) nextDue = deadlineMs;
  }

  const next: Record<string, unknown> = {};
  if (conditions) next.conditions = conditions;
  next.startTime = k8sTime(startMs);
  if (completionTime) next.completionTime = completionTime;
  next.active = stillActive.length;
  next.ready = stillActive.filter(isPodReady).length;
  next.succeeded = succeeded;
  next.failed = failed;
  next.terminating = 0;
  next.uncountedTerminatedPods = {};
  for (const k of ['active', 'succeeded', 'failed'] as const) if (next[k] === 0) delete next[k];
  writeChangedStatus(store, 'jobs', job.metadata.namespace, job.metadata.name, next);
  return nextDue;
}
