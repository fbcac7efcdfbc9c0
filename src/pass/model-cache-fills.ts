/**
 * The read of a pass's model cache fill Jobs: the fill Jobs of the valid algorithms whose fill Job
 * is in Git at the base branch head and whose Deployment in Git does not read that fill yet, by one
 * `list` of Jobs per namespace selected by gpuops's labels (`FILL_SELECTOR`), however many
 * algorithms wait there (the `gpuops-benchmark` role's `list` of `batch/jobs`, granted only in the
 * algorithm namespaces by the RoleBindings gpuops writes). No namespace is listed when no fill
 * waits. The plan then writes the Deployment only once the fill is Complete (`plan/model-cache.ts`).
 */
import type { JobApi, JobView } from '../cluster/index.js';
import type { ResolvedAlgorithm } from '../definitions/index.js';
import { modelCacheFilePath, modelCacheFillName, MODEL_CACHE_FILL } from '../manifests/index.js';
import { MANAGED_BY } from '../util/index.js';
import { fillKey, readsFill, type FillState, type GitModel } from '../plan/index.js';

/** A Job's state from its conditions (`Complete` / `Failed` with status `True`), else `Running`. */
export function fillStateOf(job: Pick<JobView, 'conditions'> | null): FillState {
  if (job === null) return 'Absent';
  const on = (type: string) => job.conditions.some((c) => c.type === type && c.status === 'True');
  return on('Complete') ? 'Complete' : on('Failed') ? 'Failed' : 'Running';
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
  if (text === undefined) return false;
  const doc = parse(text) as { kind?: unknown; metadata?: { name?: unknown } } | null;
  return typeof doc === 'object' && doc !== null && doc.kind === 'Job' && doc.metadata?.name === name;
}

/**
 * The fill Jobs the plan needs to know, by `<namespace>/<name>` (see the module comment): a Job
 * missing from its namespace's list is `Absent`; every Job of a namespace whose list fails is
 * `Unknown` (its Deployment waits another pass), never a failed pass.
 * @param git   the read model of `clusters/<cluster>/` at the base branch head (its files, and its
 *              Deployments as parsed)
 * @param parse how a file of Git is parsed (the reconciler's memo, `rememberedLookups().parse`:
 *              an unchanged file is parsed once)
 */
export async function readModelCacheFills(
  jobs: Pick<JobApi, 'listJobs'>,
  algorithms: readonly ResolvedAlgorithm[],
  git: Pick<GitModel, 'cluster' | 'files' | 'deployments'>,
  parse: (text: string) => unknown,
): Promise<Map<string, FillState>> {
  const wanted = algorithms.flatMap((a) => {
    const name = modelCacheFillName(a.name, a.spec.modelCache);
    if (name === null) return [];
    const inGit = holdsFillJob(git.files.get(modelCacheFilePath(git.cluster, a.name)), name, parse);
    return inGit && !readsFill(git.deployments.get(a.name), name) ? [{ namespace: a.namespace, name }] : [];
  });
  const namespaces = [...new Set(wanted.map((w) => w.namespace))];
  const listed = await Promise.all(
    namespaces.map((ns) =>
      jobs.listJobs(ns, FILL_SELECTOR).then(
        (found) => new Map(found.map((j) => [j.name, j])),
        () => null,
      ),
    ),
  );
  const byNamespace = new Map(namespaces.map((ns, i) => [ns, listed[i]!]));
  return new Map(
    wanted.map(({ namespace, name }): [string, FillState] => {
      const found = byNamespace.get(namespace);
      return [fillKey(namespace, name), found ? fillStateOf(found.get(name) ?? null) : 'Unknown'];
    }),
  );
}

/**
 * The label selector of gpuops's fill Jobs: managed by gpuops and carrying the fill label
 * (`manifests/model-cache.ts` puts both on every fill Job); benchmark Jobs have no fill label.
 */
export const FILL_SELECTOR = `${MANAGED_BY.key}=${MANAGED_BY.value},${MODEL_CACHE_FILL}`;
