/**
 * The read of a pass's model cache fill Jobs: for each valid algorithm whose fill Job is in Git at
 * the base branch head and whose Deployment in Git does not read that fill yet, one `get` of the
 * Job (the `gpuops-benchmark` role's verb in the algorithm's namespace: no new permission). The
 * plan then writes the Deployment only once the fill is Complete (`plan/model-cache.ts`).
 */
import type { JobApi, JobView } from '../cluster/index.js';
import type { ResolvedAlgorithm } from '../definitions/index.js';
import { modelCacheFilePath, modelCacheFillName } from '../manifests/index.js';
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
 * The fill Jobs the plan needs to know, by `<namespace>/<name>` (see the module comment). A Job
 * that cannot be read is `Unknown` (its Deployment waits another pass), never a failed pass.
 * @param git   the read model of `clusters/<cluster>/` at the base branch head (its files, and its
 *              Deployments as parsed)
 * @param parse how a file of Git is parsed (the reconciler's memo, `rememberedLookups().parse`:
 *              an unchanged file is parsed once)
 */
export async function readModelCacheFills(
  jobs: Pick<JobApi, 'readJob'>,
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
  const states = await Promise.all(
    wanted.map(({ namespace, name }) =>
      jobs.readJob(namespace, name).then(fillStateOf, (): FillState => 'Unknown'),
    ),
  );
  return new Map(wanted.map((w, i) => [fillKey(w.namespace, w.name), states[i]!]));
}
