import type { NodeInfo } from '../cluster/index.js';
import type { Pool, PolicySpec } from '../definitions/index.js';
import type { FileChange } from './file-change.js';
import { GENERATED_HEADER, renderYaml, type RenderCache } from './yaml.js';
import { GPUOPS, MANAGED_BY } from '../util/index.js';

/** Annotations every generated Node carries (docs/design.md, "The Git repository gpuops works on"; deleting a partial Node must never delete the Node, argo-cd#15005; Flux's per-object prune opt-out). */
export const NODE_ANNOTATIONS: Readonly<Record<string, string>> = {
  'argocd.argoproj.io/sync-options': 'ServerSideApply=true,Prune=false,Delete=false',
  // Node labels go before workloads (wave "0").
  'argocd.argoproj.io/sync-wave': '-1',
  // Flux: a Kustomization with prune on must never delete a Node whose partial manifest goes away.
  'kustomize.toolkit.fluxcd.io/prune': 'disabled',
};

/** Annotation on the Node manifest of a node that gpuops moved from `unused` into a task pool. */
export const MOVED_BY_ANNOTATION = GPUOPS.movedBy;
/** When gpuops moved it (ISO-8601); written once with the move, kept while the node stays. */
export const MOVED_AT_ANNOTATION = GPUOPS.movedAt;

/** A rendered file: a {@link FileChange} that writes (repo-relative path with `/`, never a deletion). */
export type RenderedFile = FileChange & { content: string };

/** Folder of the node manifests of a cluster. */
export function nodesDir(cluster: string): string {
  return `clusters/${cluster}/nodes`;
}

/** Path of one node manifest: `clusters/<cluster>/nodes/<node>.yaml`. */
export function nodeFilePath(cluster: string, node: string): string {
  return `${nodesDir(cluster)}/${node}.yaml`;
}

/**
 * The part of a pool decision a Node manifest renders: the node and its pool before and after
 * (`null`: no pool). `PoolAssignment` of `src/pools/types.ts` is one; the renderer sits a layer
 * below the pool decisions, so it names only the fields it reads.
 */
export interface NodePoolChange {
  node: string;
  from: Pool | null;
  to: Pool | null;
}

/** Input of {@link renderNodeFiles}. */
export interface NodeFilesInput {
  cluster: string;
  /** The pool decisions (one per node). */
  assignments: readonly NodePoolChange[];
  /** Snapshot nodes (kept for callers; nothing of them travels into Git). */
  nodes: NodeInfo[];
  policy: PolicySpec;
  /**
   * Nodes gpuops moved into a task pool, with the time of the move (ISO-8601): their manifest
   * carries {@link MOVED_BY_ANNOTATION} and {@link MOVED_AT_ANNOTATION} while their desired pool
   * is `long-task` or `short-task`, so a later pass knows it may return them (`ReturnedIdle`).
   */
  moved?: ReadonlyMap<string, string>;
  /** Documents a reconciler rendered before (`ReconcilerMemory.rendered`); same bytes without it. */
  renderCache?: RenderCache;
}

/**
 * Renders the partial Node manifests (pure, byte-stable: same input, same bytes; files sorted by
 * path). No kustomization lists them: Argo CD and Flux read every file of the folder
 * (`manifests/cluster-layout.ts`).
 *
 * - A node with a desired pool gets `clusters/<cluster>/nodes/<node>.yaml`: `apiVersion: v1`,
 *   `kind: Node`, `metadata.name`, labels `<pools.labelKey>: <pool>` and
 *   `app.kubernetes.io/managed-by: gpuops`, the Argo CD annotations of {@link NODE_ANNOTATIONS}.
 * - A node leaving its pool (`from` set, `to: null`) gets the same file without the pool label:
 *   with server-side apply, dropping a field from the applied manifest removes it from the Node
 *   (the field manager owned it). Deleting the file would leave the label, since `Prune=false`.
 * - Nodes without a pool and without one before get no file.
 * - Git holds only what gpuops owns (docs/design.md, "Architecture"): the pool label, `managed-by`, the sync
 *   annotations, the moved-by/moved-at annotations of a node gpuops moved. No label another
 *   controller or a person put on the node is ever written: Argo CD would re-apply it forever,
 *   also after its owner removed it.
 * - Never `spec.taints`, also with `pools.taint.enabled`: the list is atomic for server-side
 *   apply (`+listType=atomic` on `NodeSpec.Taints`), so Argo CD's or Flux's forced apply of a
 *   manifest listing the pool taint replaced the Node's whole list, dropping the taints other
 *   managers own (the GPU operator's or the cloud's `nvidia.com/gpu`, the node lifecycle
 *   controller's `node.kubernetes.io/*`, the Cluster Autoscaler's
 *   `ToBeDeletedByClusterAutoscaler`). The pool taint is gpuops's own entry, set in patch mode
 *   (`pools/pool-taint.ts`).
 */
export function renderNodeFiles(input: NodeFilesInput): RenderedFile[] {
  const { cluster, assignments, policy } = input;
  const files: RenderedFile[] = [];
  for (const a of assignments) {
    if (a.to === null && a.from === null) continue;
    files.push({
      path: nodeFilePath(cluster, a.node),
      content: renderNode(a, policy, input.moved?.get(a.node), input.renderCache),
    });
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function renderNode(
  a: NodePoolChange,
  policy: PolicySpec,
  movedAt: string | undefined,
  cache: RenderCache | undefined,
): string {
  const { labelKey } = policy.pools;
  const moved = movedAt !== undefined && (a.to === 'long-task' || a.to === 'short-task') ? movedAt : null;
  // Everything the file is made of, so a hit skips building, sorting and keying the manifest
  // (a pass renders every pooled node of the fleet again). Starts with NUL: never the sorted
  // JSON key of a document `renderYaml` puts in the same cache.
  const key = `\0Node\0${JSON.stringify([a.node, a.to, moved, labelKey])}`;
  const hit = cache?.get(key);
  if (hit !== undefined) return hit;
  const text = renderManifest(a, policy, moved);
  cache?.set(key, text);
  return text;
}

function renderManifest(a: NodePoolChange, policy: PolicySpec, movedAt: string | null): string {
  const { labelKey } = policy.pools;
  const labels: Record<string, string> = { [MANAGED_BY.key]: MANAGED_BY.value };
  if (a.to !== null) labels[labelKey] = a.to;
  const annotations: Record<string, string> = { ...NODE_ANNOTATIONS };
  if (movedAt !== null) {
    annotations[MOVED_AT_ANNOTATION] = movedAt;
    annotations[MOVED_BY_ANNOTATION] = 'gpuops';
  }
  const manifest: Record<string, unknown> = {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: a.node, labels, annotations },
  };
  return renderYaml(manifest, GENERATED_HEADER);
}

/**
 * The nodes gpuops moved, as the base branch's node manifests say: node name → moved-at
 * (ISO-8601), for manifests that carry {@link MOVED_BY_ANNOTATION}` = gpuops`. Pure: takes parsed
 * manifests (`metadata` of each file).
 */
export function movedNodes(
  manifests: readonly { name?: string; annotations?: Record<string, string> }[],
): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of manifests) {
    if (!m.name || m.annotations?.[MOVED_BY_ANNOTATION] !== 'gpuops') continue;
    const at = m.annotations[MOVED_AT_ANNOTATION];
    if (at !== undefined && !Number.isNaN(Date.parse(at))) out.set(m.name, at);
  }
  return out;
}
