import type { NodeInfo, Taint } from '../cluster/types.js';
import type { PoolAssignment } from '../pools/types.js';
import type { PolicySpec } from '../spec/types.js';
import { renderYaml } from './yaml.js';

/** Annotations every generated Node carries (DESIGN.md; deleting a partial Node must never delete the Node, argo-cd#15005; Flux's per-object prune opt-out). */
export const NODE_ANNOTATIONS: Readonly<Record<string, string>> = {
  'argocd.argoproj.io/sync-options': 'ServerSideApply=true,Prune=false,Delete=false',
  // Node labels go before workloads (wave "0").
  'argocd.argoproj.io/sync-wave': '-1',
  // Flux: a Kustomization with prune on must never delete a Node whose partial manifest goes away.
  'kustomize.toolkit.fluxcd.io/prune': 'disabled',
};

/** Taint key prefix of the node lifecycle controller and kubelet; such taints are theirs, never rendered. */
const SYSTEM_TAINT_PREFIX = 'node.kubernetes.io/';

/**
 * A rendered file, repo-relative path with `/`; the same shape as `FileChange` of
 * `src/gitops/types.ts` without deletions (pure modules may not import gitops/).
 */
export interface RenderedFile {
  path: string;
  content: string;
}

/** Folder of the node manifests of a cluster. */
export function nodesDir(cluster: string): string {
  return `clusters/${cluster}/nodes`;
}

/** Path of one node manifest: `clusters/<cluster>/nodes/<node>.yaml`. */
export function nodeFilePath(cluster: string, node: string): string {
  return `${nodesDir(cluster)}/${node}.yaml`;
}

/** Input of {@link renderNodeFiles}. */
export interface NodeFilesInput {
  cluster: string;
  /** The pool decisions (one per node). */
  assignments: PoolAssignment[];
  /** Snapshot nodes; only read for their current taints when `pools.taint.enabled`. */
  nodes: NodeInfo[];
  policy: PolicySpec;
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
 * - With `pools.taint.enabled`, `spec.taints` holds `<labelKey>=<pool>:<effect>`. `spec.taints` is
 *   an atomic list for server-side apply: applying it replaces the Node's whole list. So the
 *   manifest also carries every taint the node has now except the node lifecycle controller's
 *   (`node.kubernetes.io/*`, which it re-adds itself) and stale pool taints — e.g. the GPU
 *   operator's `nvidia.com/gpu=present:NoSchedule` is kept. Consequence: a taint added by hand
 *   after the snapshot is removed at the next sync until the next plan renders it in; turning the
 *   taint off again leaves the last applied list in place until someone edits it.
 */
export function renderNodeFiles(input: NodeFilesInput): RenderedFile[] {
  const { cluster, assignments, policy } = input;
  const byName = new Map(input.nodes.map((n) => [n.name, n]));
  const files: RenderedFile[] = [];
  const sorted = [...assignments].sort((a, b) => (a.node < b.node ? -1 : a.node > b.node ? 1 : 0));
  for (const a of sorted) {
    if (a.to === null && a.from === null) continue;
    files.push({ path: nodeFilePath(cluster, a.node), content: renderNode(a, byName.get(a.node), policy) });
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function renderNode(a: PoolAssignment, node: NodeInfo | undefined, policy: PolicySpec): string {
  const { labelKey, taint } = policy.pools;
  const labels: Record<string, string> = { 'app.kubernetes.io/managed-by': 'gpuops' };
  if (a.to !== null) labels[labelKey] = a.to;
  const manifest: Record<string, unknown> = {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: a.node, labels, annotations: { ...NODE_ANNOTATIONS } },
  };
  if (taint.enabled) {
    const kept = (node?.taints ?? []).filter(
      (t) => !t.key.startsWith(SYSTEM_TAINT_PREFIX) && t.key !== labelKey,
    );
    const taints: Taint[] = kept.map((t) => ({
      key: t.key,
      ...(t.value !== undefined ? { value: t.value } : {}),
      effect: t.effect,
    }));
    if (a.to !== null) taints.push({ key: labelKey, value: a.to, effect: taint.effect });
    taints.sort(compareTaints);
    manifest.spec = { taints };
  }
  return renderYaml(manifest);
}

function compareTaints(a: Taint, b: Taint): number {
  const ka = `${a.key}\u0000${a.effect}\u0000${a.value ?? ''}`;
  const kb = `${b.key}\u0000${b.effect}\u0000${b.value ?? ''}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}
