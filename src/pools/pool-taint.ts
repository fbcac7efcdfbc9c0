/**
 * The pool taint as gpuops's own entry of `Node.spec.taints` (pure). `spec.taints` is an atomic
 * list for server-side apply (`+listType=atomic` on `NodeSpec.Taints`, k8s.io/api core/v1): an
 * applier that lists one taint owns and replaces the whole list, dropping every taint another
 * manager set (the GPU operator's or the cloud's `nvidia.com/gpu`, the node lifecycle
 * controller's `node.kubernetes.io/*`, the Cluster Autoscaler's `ToBeDeletedByClusterAutoscaler`;
 * fluxcd/kustomize-controller#772, kubernetes/kubernetes#117142). So the Node manifests in Git
 * never carry a taint (`manifests/nodes.ts`); in patch mode gpuops sets its one entry itself, as
 * `kubectl taint` does: read the Node, keep every other entry, write with the resourceVersion read
 * (`cluster/patch.ts`, `setNodeTaint`).
 */
import { withOwnTaint } from '../cluster/taints.js';
import type { NodeInfo, Taint } from '../cluster/index.js';
import type { Pool, PolicySpec } from '../definitions/index.js';

const POOLS: ReadonlySet<string> = new Set<Pool>(['test', 'unused', 'long-task', 'short-task']);

/** One Node's pool taint to set (`taint`) or remove (`null`): the entry whose key is `key`. */
export interface PoolTaintChange {
  node: string;
  /** The pool label key (`pools.labelKey`): gpuops's taint is the entry of that key. */
  key: string;
  taint: Taint | null;
}

/**
 * The pool taint a node should carry: `<labelKey>=<pool>:<effect>` while its pool label names a
 * pool and `pools.taint.enabled`; none otherwise (a label value that names no pool is not gpuops's).
 */
export function desiredPoolTaint(
  labels: Readonly<Record<string, string>>,
  pools: PolicySpec['pools'],
): Taint | null {
  const pool = labels[pools.labelKey];
  if (!pools.taint.enabled || pool === undefined || !POOLS.has(pool)) return null;
  return { key: pools.labelKey, value: pool, effect: pools.taint.effect };
}

/**
 * The nodes whose entries of key `pools.labelKey` differ from {@link desiredPoolTaint} of their
 * live labels (sorted by node). With the option off, a node still carrying gpuops's taint (set
 * while it was on) has it removed. Entries of other keys are never looked at: they are not gpuops's.
 */
export function poolTaintChanges(nodes: readonly NodeInfo[], pools: PolicySpec['pools']): PoolTaintChange[] {
  const out: PoolTaintChange[] = [];
  for (const n of nodes) {
    const want = desiredPoolTaint(n.labels, pools);
    if (withOwnTaint(n.taints, pools.labelKey, want) !== null)
      out.push({ node: n.name, key: pools.labelKey, taint: want });
  }
  return out.sort((a, b) => (a.node < b.node ? -1 : a.node > b.node ? 1 : 0));
}
