/**
 * Where a GPU series comes from, checked against the pod it names (pure). A scrape target other
 * than the node's dcgm-exporter (a tenant's own page, a ServiceMonitor a team wrote) can print a
 * `DCGM_FI_DEV_GPU_UTIL` line naming any pod; the series only counts for that pod when its node
 * is the node the pod runs on (`spec.nodeName` in the snapshot).
 */
import type { PodInfo } from '../cluster/index.js';
import { NODE_HINT_LABEL } from '../metrics/dcgm-text.js';

/** The node a series says it was measured on, and which label said so. */
export interface SeriesNode {
  node: string;
  /** `node` (the target's node label, or the page's own node for `--dcgm-url`), or `Hostname`. */
  from: 'node' | 'Hostname' | 'Hostname (exporter pod)' | 'file name';
}

/** The nodes of pods by pod name (any namespace), built once per attribution when it is needed. */
export type NodesByPodName = () => ReadonlyMap<string, ReadonlySet<string>>;

/** {@link NodesByPodName} of `pods`, computed on first call. */
export function nodesByPodName(pods: Iterable<PodInfo>): NodesByPodName {
  let index: Map<string, Set<string>> | null = null;
  return () => {
    if (index) return index;
    index = new Map();
    for (const p of pods) {
      if (p.nodeName === null) continue;
      const set = index.get(p.name);
      if (set) set.add(p.nodeName);
      else index.set(p.name, new Set([p.nodeName]));
    }
    return index;
  };
}

/**
 * Why a series cannot count for `pod`, or null when its node is the pod's. The node a series
 * comes from is, in order:
 * - its `node` label (a Prometheus target label from service discovery, or the page's own node
 *   that `--dcgm-url` knows);
 * - its `Hostname`, which dcgm-exporter sets to `NODE_NAME` when the DaemonSet passes the node's
 *   name (the GPU Operator and the Helm chart do), else to the exporter pod's own host name: a
 *   `Hostname` equal to the pod's node counts, and one that names a pod of the snapshot (the
 *   exporter's) stands for that pod's node;
 * - the node a saved page's file name suggests (`plan --metrics dcgm/<node>.prom`), last.
 * A series with neither, or whose `Hostname` names no node the pod runs on and no pod gpuops
 * knows, is `UnknownNode`: a forged line can leave both out, so "cannot tell" never counts. A
 * `Hostname` that names pods on several nodes (the same name in two namespaces) counts when one of
 * them is the pod's node. A pod not bound to a node yet has no GPU to report.
 */
export function nodeRefusal(
  labels: Record<string, string>,
  pod: PodInfo,
  byName: NodesByPodName,
): { reason: 'WrongNode' | 'UnknownNode'; message: string } | null {
  const at = pod.nodeName;
  if (at === null) return { reason: 'WrongNode', message: 'pod is not bound to a node, so no GPU is its' };
  const said = seriesNode(labels, at, byName);
  if (said === null) {
    const hostname = labels.Hostname;
    return {
      reason: 'UnknownNode',
      message:
        hostname === undefined || hostname === ''
          ? `series has neither a node nor a Hostname label, so it cannot be checked against node ${at} where the pod runs`
          : `series' Hostname ${JSON.stringify(hostname)} names neither node ${at} where the pod runs nor a pod of the snapshot`,
    };
  }
  if (said.node === at) return null;
  return {
    reason: 'WrongNode',
    message: `series comes from node ${said.node} (by its ${said.from} label) but the pod runs on node ${at}`,
  };
}

/** The node a series names (see {@link nodeRefusal}); `podNode` is preferred among several. */
export function seriesNode(
  labels: Record<string, string>,
  podNode: string,
  byName: NodesByPodName,
): SeriesNode | null {
  const node = labels.node;
  if (node !== undefined && node !== '') return { node, from: 'node' };
  const hostname = labels.Hostname ?? '';
  if (hostname === podNode) return { node: hostname, from: 'Hostname' };
  const nodes = hostname === '' ? undefined : byName().get(hostname);
  if (nodes && nodes.size > 0) {
    if (nodes.has(podNode)) return { node: podNode, from: 'Hostname (exporter pod)' };
    return { node: [...nodes].sort()[0]!, from: 'Hostname (exporter pod)' };
  }
  const hint = labels[NODE_HINT_LABEL];
  return hint ? { node: hint, from: 'file name' } : null;
}
