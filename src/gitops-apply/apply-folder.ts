/**
 * An Argo CD-like sync of one GitOps folder (e.g. a checkout's `clusters/prod/`), for the demo
 * and for tests: what Argo CD does with the shipped Application (templates/install/
 * argocd-application.yaml: a directory source with `recurse: true`, `syncOptions:
 * [ServerSideApply=true]`, `automated.prune: true`), on the subset of features gpuops's folder uses.
 */
import type { KubeObject } from '../cluster/index.js';
import path from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { readManifestDirectory } from './directory-source.js';
import { readKustomizeTree } from './kustomize-tree.js';
import { kubeObjectApi, messageOf, type LiveObject, type ObjectApi } from './object-api.js';
import { sortForSync, syncOptions, syncWave, type WavedManifest } from './sync-order.js';
import type { ApplyError, ApplySummary, ObjectRef, SourcedManifest } from './types.js';
import { MANAGED_BY } from '../util/index.js';

/** Argo CD's annotation-based resource tracking: `<app>:<group>/<kind>:<namespace>/<name>`. */
export const TRACKING_ANNOTATION = 'argocd.argoproj.io/tracking-id';
/** The label every gpuops object carries (docs/design.md, "Labels and names"). */
export const MANAGED_BY_SELECTOR = `${MANAGED_BY.key}=${MANAGED_BY.value}`;

/**
 * Workload kinds the applier prunes when they leave Git, as Argo CD and Flux prune every kind they
 * applied: the algorithms' objects, the pools' pre-pull DaemonSet and the model cache fill Jobs.
 * Nodes are never pruned. `trackedOnly`: only objects this application applied (its tracking
 * annotation), as Argo CD and Flux prune only their own: gpuops creates its benchmark Jobs itself
 * in the same namespaces, and they are not Git's.
 */
export const PRUNABLE_KINDS: readonly { apiVersion: string; kind: string; trackedOnly?: boolean }[] = [
  { apiVersion: 'apps/v1', kind: 'Deployment' },
  { apiVersion: 'apps/v1', kind: 'DaemonSet' },
  { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler' },
  { apiVersion: 'v1', kind: 'Service' },
  { apiVersion: 'batch/v1', kind: 'Job', trackedOnly: true },
];

/** Options of {@link applyGitOpsFolder}. */
export interface ApplyFolderOptions {
  /** Field manager of the server-side apply; Argo CD's is `argocd-controller`. */
  fieldManager?: string;
  /** Application name used in the tracking annotation (default `gpuops-<folder name>`). */
  appName?: string;
  /** Destination namespace for namespaced objects that set none (default `default`). */
  namespace?: string;
  /**
   * `CreateNamespace=true`: create the destination namespace (`namespace`, only when given)
   * before the first wave, as Argo CD does; default false. Any other namespace must come from
   * the folder's own Namespace objects, as in Argo CD.
   */
  createNamespace?: boolean;
  /**
   * How the folder is read: `directory` (default), every manifest file below it, as Argo CD's
   * directory source with `recurse: true` (`directory-source.ts`); `kustomize`, its
   * `kustomization.yaml` (`kustomize-tree.ts`), e.g. for templates/install.
   */
  source?: 'directory' | 'kustomize';
  /** Delete gpuops-managed Deployments and HPAs no longer in Git (default true). */
  prune?: boolean;
  /** Inject the cluster side (tests); default: client-node on `kubeConfig`. */
  api?: ObjectApi;
}

const refOf = (o: KubeObject | LiveObject): ObjectRef => ({
  apiVersion: o.apiVersion!,
  kind: o.kind!,
  ...(o.metadata?.namespace ? { namespace: o.metadata.namespace } : {}),
  name: o.metadata!.name!,
});

/** `Kind namespace/name` or `Kind name`, for messages. */
export function describeRef(ref: ObjectRef): string {
  return `${ref.kind} ${ref.namespace ? `${ref.namespace}/` : ''}${ref.name}`;
}

const groupOf = (apiVersion: string): string => (apiVersion.includes('/') ? apiVersion.split('/')[0]! : '');
/** Identity of an object regardless of version: `group/Kind/namespace/name`. */
const keyOf = (ref: ObjectRef): string =>
  `${groupOf(ref.apiVersion)}/${ref.kind}/${ref.namespace ?? ''}/${ref.name}`;

function trackingId(app: string, ref: ObjectRef): string {
  return `${app}:${groupOf(ref.apiVersion)}/${ref.kind}:${ref.namespace ?? ''}/${ref.name}`;
}

/**
 * Syncs `dir` to the cluster the way Argo CD would:
 * 1. reads every manifest file below `dir` (or its kustomization, `source: 'kustomize'`);
 * 2. with `createNamespace` and `namespace`, creates the destination namespace
 *    (`CreateNamespace=true`); other namespaces come from Namespace objects in the folder;
 * 3. applies every object with server-side apply (`force: true`) in sync order — wave
 *    (`argocd.argoproj.io/sync-wave`, default 0), then kind (Namespace first), then name; when an
 *    object of a wave fails, later waves are not applied (listed in `skipped`), as Argo CD stops a
 *    sync at a failed wave;
 * 4. a partial Node manifest only sets the fields it lists (labels, taints) on an existing Node;
 *    a Node that does not exist is reported (`NodeNotFound`) and never created;
 * 5. prunes Deployments and HorizontalPodAutoscalers labelled `app.kubernetes.io/managed-by:
 *    gpuops` that are no longer in Git, in the folder's namespaces or tracked as this app's; never
 *    a Node, never an object annotated `Prune=false`. Pruning is skipped when any manifest could
 *    not be read or any apply failed, so a broken file never deletes a running workload.
 *
 * Never throws for bad input or failed API calls: everything is in the returned summary.
 * @param kubeConfig cluster access (the simulator's kubeconfig in the demo)
 * @param dir the folder, e.g. `<checkout>/clusters/prod`
 */
export async function applyGitOpsFolder(
  kubeConfig: KubeConfig,
  dir: string,
  options: ApplyFolderOptions = {},
): Promise<ApplySummary> {
  const fieldManager = options.fieldManager ?? 'argocd-controller';
  const app = options.appName ?? `gpuops-${path.basename(path.resolve(dir))}`;
  const destination = options.namespace ?? 'default';
  const api = options.api ?? kubeObjectApi(kubeConfig);
  const summary: ApplySummary = { applied: [], pruned: [], skipped: [], errors: [] };
  const errors = summary.errors;

  const tree = options.source === 'kustomize' ? readKustomizeTree(dir) : readManifestDirectory(dir);
  errors.push(...tree.errors);
  const { items, readFailed: unresolved } = await resolveManifests(api, tree.manifests, destination, errors);
  const readFailed = tree.errors.length > 0 || unresolved;
  const folderNamespaces = new Set(
    items.map((i) => i.object.metadata.namespace).filter((n): n is string => Boolean(n)),
  );
  // CreateNamespace=true: the destination namespace exists before the first wave.
  if (options.createNamespace && options.namespace)
    await createNamespace(api, options.namespace, fieldManager, errors);
  const failedWave = await applyInWaves(api, items, app, fieldManager, summary);
  // Prune what left Git; only after a clean read and a clean apply.
  if ((options.prune ?? true) && !readFailed && failedWave === undefined) {
    const desired = new Set(items.map((i) => keyOf(refOf(i.object))));
    await prune(api, app, folderNamespaces, desired, summary);
  }
  return summary;
}

/**
 * Resolves each manifest's sync wave and scope (discovery), putting a namespaced object without a
 * namespace in `destination`; what cannot be applied (a bad wave, a kind the server does not serve,
 * a failed discovery: `readFailed`; a second copy of an object) is dropped and reported in `errors`.
 */
async function resolveManifests(
  api: ObjectApi,
  manifests: readonly SourcedManifest[],
  destination: string,
  errors: ApplyError[],
): Promise<{ items: WavedManifest[]; readFailed: boolean }> {
  let readFailed = false;
  const items: WavedManifest[] = [];
  const seen = new Map<string, string>();
  for (const m of manifests) {
    const where = { file: m.file, line: m.line };
    const w = syncWave(m.object);
    if ('error' in w) {
      errors.push({ reason: 'InvalidManifest', ...where, message: `${m.file}:${m.line}: ${w.error}` });
      readFailed = true;
      continue;
    }
    let scope: 'namespaced' | 'cluster' | undefined;
    try {
      scope = await api.scope(m.object.apiVersion, m.object.kind);
    } catch (err) {
      errors.push({
        reason: 'ApplyFailed',
        ...where,
        message: `${m.file}:${m.line}: discovery of ${m.object.apiVersion} ${m.object.kind} failed: ${messageOf(err)}`,
      });
      readFailed = true;
      continue;
    }
    if (scope === undefined) {
      errors.push({
        reason: 'UnknownKind',
        ...where,
        message: `${m.file}:${m.line}: the server does not serve kind ${m.object.kind} in ${m.object.apiVersion}`,
      });
      readFailed = true;
      continue;
    }
    const object = structuredClone(m.object);
    if (scope === 'namespaced') object.metadata.namespace = object.metadata.namespace || destination;
    else delete object.metadata.namespace;
    const key = keyOf(refOf(object));
    const first = seen.get(key);
    if (first) {
      errors.push({
        reason: 'DuplicateObject',
        ...where,
        object: refOf(object),
        message: `${m.file}:${m.line}: ${describeRef(refOf(object))} is already defined in ${first}; this copy is ignored`,
      });
      continue;
    }
    seen.set(key, `${m.file}:${m.line}`);
    items.push({ ...m, object, wave: w.wave });
  }

  return { items, readFailed };
}

/** Creates namespace `ns` unless it exists (Argo CD's `CreateNamespace=true`); a failure goes to `errors`. */
async function createNamespace(
  api: ObjectApi,
  ns: string,
  fieldManager: string,
  errors: ApplyError[],
): Promise<void> {
  const ref = { apiVersion: 'v1', kind: 'Namespace', name: ns };
  try {
    if (!(await api.read(ref))) {
      await api.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }, fieldManager, true);
    }
  } catch (err) {
    errors.push({
      reason: 'ApplyFailed',
      object: ref,
      message: `could not create namespace ${ns}: ${messageOf(err)}`,
    });
  }
}

/**
 * Applies `items` in sync order; once an object of a wave fails, later waves are skipped (in
 * `summary.skipped`, with one `SkippedAfterFailedWave` error). Returns the first failed wave.
 */
async function applyInWaves(
  api: ObjectApi,
  items: readonly WavedManifest[],
  app: string,
  fieldManager: string,
  summary: ApplySummary,
): Promise<number | undefined> {
  const errors = summary.errors;
  const sorted = sortForSync(items);
  let failedWave: number | undefined;
  for (const item of sorted) {
    const ref = refOf(item.object);
    if (failedWave !== undefined && item.wave > failedWave) {
      summary.skipped.push(ref);
      continue;
    }
    const error = await applyOne(api, item, ref, app, fieldManager, summary);
    if (error) {
      errors.push(error);
      failedWave ??= item.wave;
    }
  }
  if (summary.skipped.length > 0) {
    errors.push({
      reason: 'SkippedAfterFailedWave',
      message: `sync stopped after wave ${failedWave} failed: ${summary.skipped.length} object(s) of later waves not applied`,
    });
  }

  return failedWave;
}

async function applyOne(
  api: ObjectApi,
  item: WavedManifest,
  ref: ObjectRef,
  app: string,
  fieldManager: string,
  summary: ApplySummary,
): Promise<ApplyError | undefined> {
  const where = { file: item.file, line: item.line, object: ref };
  try {
    const live = await api.read(ref);
    if (!live && item.object.kind === 'Node') {
      return {
        reason: 'NodeNotFound',
        ...where,
        message: `${item.file}:${item.line}: Node ${ref.name} does not exist; a partial Node manifest only labels an existing Node and is never created`,
      };
    }
    const body = structuredClone(item.object);
    body.metadata.annotations = { ...body.metadata.annotations, [TRACKING_ANNOTATION]: trackingId(app, ref) };
    const out = await api.apply(body, fieldManager, true);
    const result = !live
      ? 'created'
      : live.metadata?.resourceVersion === out.metadata?.resourceVersion
        ? 'unchanged'
        : 'configured';
    summary.applied.push({ ...ref, wave: item.wave, result });
    return undefined;
  } catch (err) {
    return {
      reason: 'ApplyFailed',
      ...where,
      message: `${item.file}:${item.line}: apply ${describeRef(ref)} failed: ${messageOf(err)}`,
    };
  }
}

async function prune(
  api: ObjectApi,
  app: string,
  folderNamespaces: Set<string>,
  desired: Set<string>,
  summary: ApplySummary,
): Promise<void> {
  for (const { apiVersion, kind, trackedOnly } of PRUNABLE_KINDS) {
    let live: LiveObject[];
    try {
      live = await api.list(apiVersion, kind, MANAGED_BY_SELECTOR);
    } catch (err) {
      summary.errors.push({
        reason: 'PruneFailed',
        message: `list ${kind} for pruning failed: ${messageOf(err)}`,
      });
      continue;
    }
    for (const obj of live) {
      const ref = { ...refOf(obj), apiVersion };
      if (desired.has(keyOf(ref))) continue;
      const annotations = obj.metadata?.annotations;
      const tracked = annotations?.[TRACKING_ANNOTATION]?.startsWith(`${app}:`) ?? false;
      if (!tracked && (trackedOnly || !folderNamespaces.has(ref.namespace ?? ''))) continue;
      if (syncOptions(annotations).get('Prune') === 'false') continue;
      try {
        await api.remove(ref);
        summary.pruned.push(ref);
      } catch (err) {
        summary.errors.push({
          reason: 'PruneFailed',
          object: ref,
          message: `prune ${describeRef(ref)} failed: ${messageOf(err)}`,
        });
      }
    }
  }
}
