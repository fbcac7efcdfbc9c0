/**
 * The cluster as the simulated kube-scheduler sees it for one round (pure over the objects given):
 * every node as the filters read it (labels, taints with the NotReady ones, cordon), what each has
 * left of every resource (`status.allocatable` minus the effective requests of the live pods bound
 * there), and the pods bound to each. Binding a pod updates it, so pods bound earlier in a round
 * count for the next one, as the real scheduler's cache does.
 */
import type { V1PodSpec } from '@kubernetes/client-node';
import { effectiveRequest, requiredAntiAffinity } from '../../cluster/index.js';
import type { PlacedPod, FilterNode, SpreadPod, ResourceList } from '../../cluster/index.js';
import type { KubeObject } from '../types.js';
import { holdsResources, parseQuantity } from './pods.js';
import { effectiveTaints } from './scheduling-rules.js';

/** See the module comment. */
export interface SchedulerView {
  /** Sorted by name (ties of the score go to the first). */
  nodes: KubeObject[];
  filterNodes: Map<string, FilterNode>;
  free: Map<string, ResourceList>;
  /** The live pods bound to each node, as the inter-pod filters read them. */
  bound: Map<string, ViewPod[]>;
  /** Those of them with required anti-affinity terms. */
  antiAffine: ViewPod[];
}

/** A bound pod as the InterPodAffinity and PodTopologySpread filters read it. */
export type ViewPod = PlacedPod & SpreadPod;

/** The pod's effective request of every resource it names, `cpu` in millicores (the sidecar and init-container rule). */
export function podRequests(spec: KubeObject['spec']): ResourceList {
  const s = spec as V1PodSpec | undefined;
  const names = new Set<string>();
  for (const c of [...(s?.initContainers ?? []), ...(s?.containers ?? [])]) {
    for (const r of Object.keys(c.resources?.requests ?? {})) names.add(r);
    for (const r of Object.keys(c.resources?.limits ?? {})) names.add(r);
  }
  for (const r of Object.keys(s?.overhead ?? {})) names.add(r);
  const out: ResourceList = {};
  for (const r of names) {
    const v = effectiveRequest(s, r, (q) => parseQuantity(q));
    if (v > 0) out[r] = r === 'cpu' ? Math.round(v * 1000) : v;
  }
  return out;
}

/**
 * A node's allocatable, `cpu` in millicores. cpu, memory, pods and ephemeral storage a node does
 * not list at all (a hand-written test node; a kubelet always reports all four) are unbounded, so
 * only what it lists limits it; an extended resource it does not list is 0, as kube-scheduler
 * counts it.
 */
function allocatable(node: KubeObject): ResourceList {
  const a = (node.status?.allocatable ?? {}) as Record<string, unknown>;
  const out: ResourceList = {};
  for (const [r, q] of Object.entries(a))
    out[r] = r === 'cpu' ? Math.round(parseQuantity(q) * 1000) : parseQuantity(q);
  for (const r of ['cpu', 'memory', 'pods', 'ephemeral-storage']) out[r] ??= Infinity;
  return out;
}

/** The view of `nodes` with `pods` (any phase; only live bound ones count). */
export function schedulerView(nodes: readonly KubeObject[], pods: readonly KubeObject[]): SchedulerView {
  const sorted = [...nodes].sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
  const view: SchedulerView = {
    nodes: sorted,
    filterNodes: new Map(),
    free: new Map(),
    bound: new Map(),
    antiAffine: [],
  };
  for (const n of sorted) {
    view.filterNodes.set(n.metadata.name, {
      name: n.metadata.name,
      labels: n.metadata.labels ?? {},
      taints: effectiveTaints(n) as FilterNode['taints'],
      unschedulable: n.spec?.unschedulable === true,
    });
    view.free.set(n.metadata.name, allocatable(n));
    view.bound.set(n.metadata.name, []);
  }
  for (const p of pods) if (holdsResources(p)) bind(view, p, p.spec.nodeName as string);
  return view;
}

/** Counts `pod` as bound to `node`: its requests and one pod slot leave the node's free room. */
export function bind(view: SchedulerView, pod: KubeObject, node: string): void {
  const free = view.free.get(node);
  if (!free) return;
  for (const [r, v] of Object.entries(podRequests(pod.spec))) free[r] = (free[r] ?? 0) - v;
  free['pods'] = (free['pods'] ?? 0) - 1;
  const labels = pod.metadata.labels ?? {};
  const anti = requiredAntiAffinity(labels, pod.spec);
  const p: ViewPod = {
    namespace: pod.metadata.namespace ?? '',
    labels,
    nodeName: node,
    terminating: !!pod.metadata.deletionTimestamp,
    ...(anti ? { antiAffinity: anti } : {}),
  };
  view.bound.get(node)!.push(p);
  if (anti) view.antiAffine.push(p);
}
