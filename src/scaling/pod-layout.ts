/**
 * Where the pods of a pass run, as kube-scheduler's inter-pod filters read it (pure): every node's
 * labels (its pool label as this pass answers it) and taints, and the live pods bound to each.
 * Built once per pass (a reconciler's memory keeps it while the snapshot's arrays stay) and read by every
 * algorithm's {@link Placer} whose pods depend on other pods.
 */
import type { FilterNode, NodeInfo, PodInfo, Snapshot } from '../cluster/index.js';
import { holdsResources } from '../cluster/snapshot.js';
import type { Pool } from '../definitions/index.js';

/** See the module comment. */
export interface PodLayout {
  /** Every node of the snapshot by name, as a member of the pool the pass gives it. */
  nodes: ReadonlyMap<string, FilterNode>;
  /** Live pods bound to each node (not Succeeded/Failed; terminating ones included). */
  podsOn: ReadonlyMap<string, readonly PodInfo[]>;
  /** The live bound pods that carry required anti-affinity terms. */
  antiAffine: readonly PodInfo[];
  /** Changes whenever the snapshot's nodes or pods change (a remembered decision compares it). */
  token: string;
}

/**
 * A node as a member of `pool`: its labels with the pool label set to it, its taints without the
 * pool taint (gpuops's own, rewritten with the pool, and tolerated by the pool's pods).
 */
export function asMember(node: FilterNode, labelKey: string, pool: Pool | null): FilterNode {
  if (pool === null || (node.labels[labelKey] === pool && !node.taints.some((t) => t.key === labelKey)))
    return node;
  return {
    ...node,
    labels: { ...node.labels, [labelKey]: pool },
    taints: node.taints.filter((t) => t.key !== labelKey),
  };
}

const filterNode = (n: NodeInfo, labelKey: string): FilterNode =>
  asMember({ name: n.name, labels: n.labels, taints: n.taints, unschedulable: n.cordoned }, labelKey, n.pool);

/** The layout of a snapshot whose nodes carry the pass's pools (`NodeInfo.pool`). */
export function podLayout(
  snapshot: Pick<Snapshot, 'nodes' | 'pods'>,
  labelKey: string,
  token = '',
): PodLayout {
  const nodes = new Map(snapshot.nodes.map((n) => [n.name, filterNode(n, labelKey)]));
  const podsOn = new Map<string, PodInfo[]>();
  const antiAffine: PodInfo[] = [];
  for (const p of snapshot.pods) {
    if (!holdsResources(p)) continue;
    const list = podsOn.get(p.nodeName!);
    if (list) list.push(p);
    else podsOn.set(p.nodeName!, [p]);
    if (p.antiAffinity) antiAffine.push(p);
  }
  return { nodes, podsOn, antiAffine, token };
}
