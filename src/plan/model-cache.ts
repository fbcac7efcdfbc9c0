/**
 * When replicas may read a model cache (pure). The Deployment that mounts `spec.modelCache` is
 * written to Git only once the cache is filled: its fill Job (`manifests/model-cache.ts`) is seen
 * `Complete` in the cluster, or Git's Deployment already reads that very fill (its pod annotation
 * `gpuops.dev/model-cache-fill` names the Job). Until then:
 *
 * - an algorithm with no Deployment in Git gets none: the placement pull request holds the fill
 *   Job (and Service, HPA), and the pass after the fill completes adds the Deployment. A replica
 *   that started on an empty or half-written cache would load a broken model or crash-loop, and
 *   running it without the volume would hide that the model is missing;
 * - an algorithm whose Deployment is in Git keeps it as it is (no cache yet, or the previous
 *   fill's): its replicas go on serving; once the new fill is Complete the Deployment gains the
 *   cache (or the new annotation) and rolls out as any pod template change does.
 *
 * No init container waits for the fill: it would need to read the Job (an API credential in
 * every replica) or poll the volume for a marker the download step may not write.
 */
import type { FileChange } from '../manifests/index.js';
import type { FillWait } from '../change-sets/index.js';
import type { ResolvedAlgorithm } from '../definitions/index.js';
import { modelCacheFillName, MODEL_CACHE_FILL } from '../manifests/index.js';
import type { GitDeployment } from './git-model.js';

/** A fill Job as the cluster reports it; `Unknown` when it could not be read. */
export type FillState = 'Complete' | 'Failed' | 'Running' | 'Absent' | 'Unknown';

/** The key of a fill Job in {@link FillStates}: `<namespace>/<name>`. */
export const fillKey = (namespace: string, name: string): string => `${namespace}/${name}`;

/** The fill Jobs read this pass, by {@link fillKey}; a Job not read is taken as not Complete. */
export type FillStates = ReadonlyMap<string, FillState>;

/**
 * True when Git's Deployment reads the cache of fill Job `name`: its parsed pod template annotation
 * `gpuops.dev/model-cache-fill` is `name` (whatever YAML layout a person wrote it in; the same text
 * in another field is not the annotation).
 */
export function readsFill(deployment: Pick<GitDeployment, 'template'> | undefined, name: string): boolean {
  return deployment?.template?.annotations[MODEL_CACHE_FILL] === name;
}

/**
 * Whether `alg`'s replicas may read its model cache now (module comment): true without a cache or
 * without a fill step; else when its fill Job is `Complete` in `fills` or `deployment` (Git's,
 * parsed) already reads it.
 */
export function modelCacheReady(
  alg: Pick<ResolvedAlgorithm, 'name' | 'namespace' | 'spec'>,
  deployment: Pick<GitDeployment, 'template'> | undefined,
  fills: FillStates,
): boolean {
  const name = modelCacheFillName(alg.name, alg.spec.modelCache);
  if (name === null) return true;
  return fills.get(fillKey(alg.namespace, name)) === 'Complete' || readsFill(deployment, name);
}

/**
 * Why `alg`'s Deployment is held (the placement pull request says it, `FillWait`): its fill Job
 * (`namespace/name`), the Job's state this pass (`NotRead` when it was not read: not in Git yet),
 * and whether Git's Deployment stays; null when the cache is ready ({@link modelCacheReady}).
 */
export function fillWait(
  alg: Pick<ResolvedAlgorithm, 'name' | 'namespace' | 'spec'>,
  deployment: Pick<GitDeployment, 'template'> | undefined,
  fills: FillStates,
): FillWait | null {
  const name = modelCacheFillName(alg.name, alg.spec.modelCache);
  if (name === null || modelCacheReady(alg, deployment, fills)) return null;
  const state = fills.get(fillKey(alg.namespace, name));
  return {
    job: fillKey(alg.namespace, name),
    // Complete is ready (never here); no state: the Job was not looked for.
    state: state === undefined || state === 'Complete' ? 'NotRead' : state,
    deployment: deployment === undefined ? 'none' : 'kept',
  };
}

/**
 * `files` (an algorithm's rendered workload files) with its Deployment held back while the cache
 * is not ready: Git's Deployment as it is when there is one, none otherwise.
 * @param path    the Deployment's path (`…/deployment.yaml`)
 * @param current Git's Deployment at the base branch head (`GitModel.deployments`), if any
 */
export function holdUntilFilled(
  files: readonly FileChange[],
  alg: Pick<ResolvedAlgorithm, 'name' | 'namespace' | 'spec'>,
  path: string,
  current: Pick<GitDeployment, 'text' | 'template'> | undefined,
  fills: FillStates,
): FileChange[] {
  if (modelCacheReady(alg, current, fills)) return [...files];
  return files.flatMap((f) =>
    f.path !== path ? [f] : current === undefined ? [] : [{ path, content: current.text }],
  );
}
