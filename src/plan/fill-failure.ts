/**
 * A model cache fill Job that failed (pure): the Job controller set its `Failed` condition (after
 * `spec.backoffLimit` pod failures, `BackoffLimitExceeded`, or past `activeDeadlineSeconds`,
 * `DeadlineExceeded`: https://kubernetes.io/docs/concepts/workloads/controllers/job/#job-termination-and-cleanup).
 * The Job is never run again while it exists, so the algorithm's Deployment stays held
 * (`plan/model-cache.ts`) until a person changes the fill step (a new Job name) or deletes the Job.
 */

/** A failed fill Job: its algorithm, `namespace/name`, and its `Failed` condition's reason and message. */
export interface FillFailure {
  namespace: string;
  algorithm: string;
  /** `<namespace>/<name>` (`fillKey`). */
  job: string;
  reason: string | null;
  message: string | null;
}

/** A Job condition as the cluster reports it (`status.conditions[]`). */
interface Condition {
  type: string;
  status: string;
  reason: string | null;
  message: string | null;
}

/** The `Failed` condition (status `True`) of a Job's conditions, or null when it has not failed. */
export function failedCondition(
  conditions: readonly Condition[],
): Pick<Condition, 'reason' | 'message'> | null {
  const c = conditions.find((x) => x.type === 'Failed' && x.status === 'True');
  return c ? { reason: c.reason, message: c.message } : null;
}

/**
 * Why the fill failed, for a person: `reason: message`, either alone when the other is missing,
 * `no reason given` when both are (a condition written by something other than the Job controller).
 */
export function fillFailureText(f: Pick<FillFailure, 'reason' | 'message'>): string {
  const parts = [f.reason, f.message].filter((p): p is string => p !== null && p.trim() !== '');
  return parts.length > 0 ? parts.join(': ') : 'no reason given';
}

/**
 * The failures of `failures` not warned about yet, by Job key; marks them in `warned`. A failed
 * Job is immutable (a changed fill step is a new Job name), so one warning per Job name per
 * process says all there is; a Job deleted and recreated under the same name that fails again is
 * not warned twice (its state stays on the placement pull request). A restarted process starts
 * `warned` with what the last one recorded ({@link recordedFillFailures}).
 */
export function newFillFailures(failures: Iterable<FillFailure>, warned: Set<string>): FillFailure[] {
  const fresh = [...failures].filter((f) => !warned.has(f.job));
  for (const f of fresh) warned.add(f.job);
  return fresh;
}

/**
 * The Job keys of `failures` that the stored fleet status already records (`algorithms`: its
 * entries, `FleetStatusRecord.algorithms`): the algorithm is held with `ModelCacheFillFailed` and
 * the very message {@link heldByFailedFills} gives the failure now (the same Job, reason and
 * message). A pass that records a failure has warned about it first (`pass/reconcile.ts`), so a
 * restarted process marks these as warned (`newFillFailures`) and does not warn again. A record
 * of another Job (a changed fill step), another reason, or held for another cause matches nothing;
 * nor does one algorithm's second failed Job, or a failure the record shows as a fill hold (the
 * record keeps one cause per algorithm, `pass/write.ts`): those are warned again after a restart,
 * the side this errs on (a warning repeated, never one lost).
 */
export function recordedFillFailures(
  failures: Iterable<FillFailure>,
  algorithms: readonly { name: string; held?: { reason: string; message: string } }[],
): string[] {
  const held = new Map(algorithms.map((a) => [a.name, a.held]));
  return [...failures]
    .filter((f) => {
      const recorded = held.get(f.algorithm);
      const want = heldByFailedFills([f]).get(f.algorithm)!;
      return recorded?.reason === want.reason && recorded.message === want.message;
    })
    .map((f) => f.job);
}

/**
 * What the status page says of each algorithm held by a failed fill, by algorithm:
 * `ModelCacheFillFailed` and which Job failed, why, and how to retry.
 */
export function heldByFailedFills(
  failures: Iterable<FillFailure>,
): Map<string, { reason: 'ModelCacheFillFailed'; message: string }> {
  return new Map(
    [...failures].map((f) => [
      f.algorithm,
      {
        reason: 'ModelCacheFillFailed',
        message: `fill Job ${f.job} failed (${fillFailureText(f)}); the Deployment is held until the fill step changes or the Job is deleted`,
      },
    ]),
  );
}
