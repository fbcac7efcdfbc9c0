/**
 * Why a Deployment waits for a model cache fill that gpuops cannot read (pure), other than a
 * failed fill (`fill-failure.ts`): the fill Jobs of its namespace could not be listed, or the fill
 * Job in Git lacks gpuops's labels, so no list selects it. Either way the fill state is `Unknown`
 * and the Deployment stays held; without these words nothing tells an operator why. The typical
 * list failure is an upgrade of gpuops without the `gpuops-benchmark` ClusterRole of its version
 * (it grants `list` on `batch/jobs`, bound in each algorithm namespace by the RoleBinding gpuops
 * writes), which the API server answers 403 on every pass.
 */

/** The hold reasons, as the status page and `gpuops_algorithm_held{reason}` name them. */
export type FillHoldReason = 'ModelCacheFillNotListed' | 'ModelCacheFillUnlabelled';

/** A Deployment held because its fill Job cannot be read (see the module comment). */
export interface FillHold {
  namespace: string;
  algorithm: string;
  /** `<namespace>/<name>` (`fillKey`). */
  job: string;
  reason: FillHoldReason;
  /** Why, for a person: what went wrong and what to do (the status page and the pull request). */
  why: string;
  /**
   * What warns once: `list <namespace>` for a list failure (one warning per namespace), `job
   * <namespace>/<name>` for an unlabelled Job; with {@link FillHold.code}.
   */
  scope: string;
  /** The cause within the scope (`HTTP 403`, `no answer`, `unlabelled`): a new one warns again. */
  code: string;
}

/** A failed `list` of Jobs: the HTTP status (null: no answer) and the API server's message. */
export interface ListError {
  status: number | null;
  detail: string;
}

/** What an operator does about a list answered with `status` (the API server's status codes). */
function listAdvice(status: number | null, namespace: string): string {
  if (status === 403)
    return `apply the gpuops-benchmark ClusterRole of this version (it grants list on batch/jobs; the RoleBinding gpuops writes in namespace ${namespace} binds it there)`;
  if (status === 401) return "the API server refused gpuops's credentials (its ServiceAccount token)";
  if (status === 404) return 'the API server does not serve batch/v1 Jobs';
  if (status === null) return 'no answer from the API server; tried again next pass';
  if (status === 429 || status >= 500) return 'the API server failed to answer; tried again next pass';
  return 'tried again next pass';
}

/**
 * The holds of the fills `waiting` in `namespace` when its list of Jobs failed with `err`: one per
 * Job, all with the same words (`fill Jobs could not be listed: HTTP 403: <detail> — <advice>`).
 */
export function listFailureHolds(
  namespace: string,
  err: ListError,
  waiting: readonly { algorithm: string; job: string }[],
): FillHold[] {
  const code = err.status === null ? 'no answer' : `HTTP ${err.status}`;
  const detail = err.detail.trim() === '' ? '' : `: ${err.detail.trim().slice(0, 300)}`;
  const why = `fill Jobs could not be listed: ${code}${detail} — ${listAdvice(err.status, namespace)}`;
  return waiting.map((w) => ({
    namespace,
    algorithm: w.algorithm,
    job: w.job,
    reason: 'ModelCacheFillNotListed',
    why,
    scope: `list ${namespace}`,
    code,
  }));
}

/**
 * The hold of a fill Job that Git holds without the labels gpuops lists fill Jobs by
 * (`labels`, e.g. `app.kubernetes.io/managed-by=gpuops, gpuops.dev/model-cache-fill`): gpuops
 * never reads a Job it cannot tell is its own, and the model cache admission policy refuses it.
 */
export function unlabelledHold(namespace: string, algorithm: string, job: string, labels: string): FillHold {
  return {
    namespace,
    algorithm,
    job,
    reason: 'ModelCacheFillUnlabelled',
    why: `the fill Job in Git lacks gpuops's labels (${labels}): gpuops does not list it and the model cache admission policy refuses it; the placement pull request restores them`,
    scope: `job ${job}`,
    code: 'unlabelled',
  };
}

/**
 * The holds to warn about this pass, one per scope and code not warned about yet; `warned` (scope →
 * code) becomes this pass's: a scope that no longer holds is forgotten, so when it holds again
 * (the ClusterRole applied, then removed) it warns again.
 */
export function newFillHolds(holds: Iterable<FillHold>, warned: Map<string, string>): FillHold[] {
  const now = new Map<string, FillHold>();
  for (const h of holds) if (!now.has(h.scope)) now.set(h.scope, h);
  const fresh = [...now.values()].filter((h) => warned.get(h.scope) !== h.code);
  warned.clear();
  for (const [scope, h] of now) warned.set(scope, h.code);
  return fresh;
}

/** What the status page says of each algorithm held by a fill it cannot read, by algorithm. */
export function heldByFillHolds(
  holds: Iterable<FillHold>,
): Map<string, { reason: FillHoldReason; message: string }> {
  return new Map(
    [...holds].map((h) => [
      h.algorithm,
      {
        reason: h.reason,
        message: `fill Job ${h.job}: ${h.why}; the Deployment is held until gpuops reads the fill Complete`,
      },
    ]),
  );
}
