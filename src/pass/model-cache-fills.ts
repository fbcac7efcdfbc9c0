/**
 * The read of a pass's model cache fill Jobs: for each valid algorithm whose fill Job is in Git at
 * the base branch head and whose Deployment in Git does not read that fill yet, one `get` of the
 * Job (the `gpuops-benchmark` role's verb in the algorithm's namespace: no new permission). The
 * plan then writes the Deployment only once the fill is Complete (`plan/model-cache.ts`).
 */
import type { JobApi, JobView } from '../cluster/index.js';
import type { ResolvedAlgorithm } from '../definitions/index.js';
import { workloadDir, modelCacheFilePath, modelCacheFillName } from '../manifests/index.js';
import { fillKey, readsFill, type FillState } from '../plan/index.js';

/** A Job's state from its conditions (`Complete` / `Failed` with status `True`), else `Running`. */
export function fillStateOf(job: Pick<JobView, 'conditions'> | null): FillState {
  if (job === null) return 'Absent';
  const on = (type: string) => job.conditions.some((c) => c.type === type && c.status === 'True');
  return on('Complete') ? 'Complete' : on('Failed') ? 'Failed' : 'Running';
}

/**
 * The fill Jobs the plan needs to know, by `<namespace>/<name>` (see the module comment). A Job
 * that cannot be read is `Unknown` (its Deployment waits another pass), never a failed pass.
 * @param files Git's files under `clusters/<cluster>/` at the base branch head
 */
export async function readModelCacheFills(
  jobs: Pick<JobApi, 'readJob'>,
  cluster: string,
  algorithms: readonly ResolvedAlgorithm[],
  files: ReadonlyMap<string, string>,
): Promise<Map<string, FillState>> {
  const wanted = algorithms.flatMap((a) => {
    const name = modelCacheFillName(a.name, a.spec.modelCache);
    if (name === null) return [];
    const inGit = files.get(modelCacheFilePath(cluster, a.name))?.includes(`name: ${name}\n`) ?? false;
    const reading = readsFill(files.get(`${workloadDir(cluster, a.name)}/deployment.yaml`), name);
    return inGit && !reading ? [{ namespace: a.namespace, name }] : [];
  });
  const states = await Promise.all(
    wanted.map(({ namespace, name }) =>
      jobs.readJob(namespace, name).then(fillStateOf, (): FillState => 'Unknown'),
    ),
  );
  return new Map(wanted.map((w, i) => [fillKey(w.namespace, w.name), states[i]!]));
}
