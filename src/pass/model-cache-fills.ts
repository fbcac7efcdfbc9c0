/**
 * The read of a pass's model cache fill Jobs: the fill Jobs of the valid algorithms whose fill Job
 * is in Git at the base branch head and whose Deployment in Git does not read that fill yet, by one
 * `list` of Jobs per namespace selected by gpuops's labels (`FILL_SELECTOR`), however many
 * algorithms wait there (the `gpuops-benchmark` role's `list` of `batch/jobs`, granted only in the
 * algorithm namespaces by the RoleBindings gpuops writes). No namespace is listed when no fill
 * waits. The plan then writes the Deployment only once the fill is Complete (`plan/model-cache.ts`).
 */
import { KubeApiError, statusOf, type JobApi, type JobView } from '../cluster/index.js';
import type { ResolvedAlgorithm } from '../definitions/index.js';
import { modelCacheFilePath, modelCacheFillName, MODEL_CACHE_FILL } from '../manifests/index.js';
import { MANAGED_BY } from '../util/index.js';
import {
  failedCondition,
  fillKey,
  readsFill,
  listFailureHolds,
  unlabelledHold,
  type FillFailure,
  type FillHold,
  type FillState,
  type GitModel,
  type ListError,
} from '../plan/index.js';

/**
 * A Job's state from its conditions (`Complete` / `Failed` with status `True`), else `Running`;
 * `Failed` is read by `failedCondition` alone, so the state and the failure's reason never disagree.
 */
export function fillStateOf(job: Pick<JobView, 'conditions'> | null): FillState {
  if (job === null) return 'Absent';
  if (job.conditions.some((c) => c.type === 'Complete' && c.status === 'True')) return 'Complete';
  return failedCondition(job.conditions) ? 'Failed' : 'Running';
}

/** A fill Job as Git holds it: whether it carries the labels {@link FILL_SELECTOR} selects by. */
interface GitFillJob {
  labelled: boolean;
}

/**
 * Git's `model-cache-fill.yaml` (`text`) when it parses to a Job named `name` (the parsed `kind`
 * and `metadata.name`, whatever YAML layout a person wrote); null otherwise.
 */
function gitFillJob(
  text: string | undefined,
  name: string,
  parse: (text: string) => unknown,
): GitFillJob | null {
  if (text === undefined) return null;
  const doc = parse(text) as {
    kind?: unknown;
    metadata?: { name?: unknown; labels?: Record<string, unknown> | null };
  } | null;
  if (typeof doc !== 'object' || doc === null || doc.kind !== 'Job' || doc.metadata?.name !== name)
    return null;
  const labels = doc.metadata.labels ?? {};
  return { labelled: labels[MANAGED_BY.key] === MANAGED_BY.value && labels[MODEL_CACHE_FILL] != null };
}

/**
 * True when `text` (Git's `model-cache-fill.yaml`) parses to a Job named `name`: the parsed
 * `kind` and `metadata.name`, whatever YAML layout a person wrote (flow style, quoted keys,
 * comments); the name in another field is not the Job's.
 */
export function holdsFillJob(
  text: string | undefined,
  name: string,
  parse: (text: string) => unknown,
): boolean {
  return gitFillJob(text, name, parse) !== null;
}

/** What {@link readModelCacheFills} reports beside the states, by `<namespace>/<name>`. */
export interface FillReport {
  /** Each `Failed` Job's reason and message. */
  failed?: Map<string, FillFailure>;
  /** Each fill read `Unknown`, with why (`plan/fill-hold.ts`): its namespace's list failed, or Git's Job is unlabelled. */
  held?: Map<string, FillHold>;
}

/**
 * The fill Jobs the plan needs to know, by `<namespace>/<name>` (see the module comment): a Job
 * missing from its namespace's list is `Absent`; every Job of a namespace whose list fails is
 * `Unknown` (its Deployment waits another pass), never a failed pass. A Job that Git holds
 * without gpuops's labels is not in any list: when the list has no labelled Job of that name it
 * is `Unknown` (it may run unlabelled), not `Absent`.
 * @param git   the read model of `clusters/<cluster>/` at the base branch head (its files, and its
 *              Deployments as parsed)
 * @param parse how a file of Git is parsed (the reconciler's memo, `rememberedLookups().parse`:
 *              an unchanged file is parsed once)
 * @param report  when given, receives each `Failed` Job's reason and message and why each
 *                `Unknown` fill could not be read (`FillReport`)
 */
export async function readModelCacheFills(
  jobs: Pick<JobApi, 'listJobs'>,
  algorithms: readonly ResolvedAlgorithm[],
  git: Pick<GitModel, 'cluster' | 'files' | 'deployments'>,
  parse: (text: string) => unknown,
  report: FillReport = {},
): Promise<Map<string, FillState>> {
  const wanted = algorithms.flatMap((a) => {
    const name = modelCacheFillName(a.name, a.spec.modelCache);
    if (name === null) return [];
    const inGit = gitFillJob(git.files.get(modelCacheFilePath(git.cluster, a.name)), name, parse);
    return inGit && !readsFill(git.deployments.get(a.name), name)
      ? [{ namespace: a.namespace, name, algorithm: a.name, job: fillKey(a.namespace, name), ...inGit }]
      : [];
  });
  const namespaces = [...new Set(wanted.map((w) => w.namespace))];
  const listed = await Promise.all(namespaces.map((ns) => listFills(jobs, ns)));
  const byNamespace = new Map(namespaces.map((ns, i) => [ns, listed[i]!]));
  for (const [ns, got] of byNamespace)
    if (got instanceof Error)
      for (const h of listFailureHolds(
        ns,
        listError(got),
        wanted.filter((w) => w.namespace === ns),
      ))
        report.held?.set(h.job, h);
  return new Map(
    wanted.map((w): [string, FillState] => {
      const got = byNamespace.get(w.namespace)!;
      if (got instanceof Error) return [w.job, 'Unknown'];
      const job = got.get(w.name) ?? null;
      if (job === null && !w.labelled) {
        report.held?.set(w.job, unlabelledHold(w.namespace, w.algorithm, w.job, FILL_LABELS));
        return [w.job, 'Unknown'];
      }
      const state = fillStateOf(job);
      const why = state === 'Failed' ? failedCondition(job!.conditions) : null;
      if (why)
        report.failed?.set(w.job, { namespace: w.namespace, algorithm: w.algorithm, job: w.job, ...why });
      return [w.job, state];
    }),
  );
}

/** The fill Jobs of `namespace` by name, or the error the list failed with. */
function listFills(jobs: Pick<JobApi, 'listJobs'>, namespace: string): Promise<Map<string, JobView> | Error> {
  return jobs.listJobs(namespace, FILL_SELECTOR).then(
    (found) => new Map(found.map((j) => [j.name, j])),
    (err: unknown) => (err instanceof Error ? err : new Error(String(err))),
  );
}

/** The HTTP status (null: no answer) and the API server's message of a failed list. */
function listError(err: Error): ListError {
  return { status: statusOf(err), detail: err instanceof KubeApiError ? err.detail : err.message };
}

/**
 * The label selector of gpuops's fill Jobs: managed by gpuops and carrying the fill label
 * (`manifests/model-cache.ts` puts both on every fill Job); benchmark Jobs have no fill label.
 */
export const FILL_SELECTOR = `${MANAGED_BY.key}=${MANAGED_BY.value},${MODEL_CACHE_FILL}`;

/** The labels of {@link FILL_SELECTOR}, as a person reads them. */
const FILL_LABELS = `${MANAGED_BY.key}: ${MANAGED_BY.value}, ${MODEL_CACHE_FILL}`;
