/**
 * kube-scheduler's InterPodAffinity filter, required terms only (pure), after
 * `pkg/scheduler/framework/plugins/interpodaffinity/filtering.go`
 * (https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#inter-pod-affinity-and-anti-affinity).
 * The state counts, per topology pair (`key`, value of the node a pod runs on):
 * - `closed`: pods already placed whose required anti-affinity term selects the incoming pod —
 *   a node with any such pair among its labels is refused ("existing pods anti-affinity");
 * - `anti`: pods the incoming pod's anti-affinity terms select — refused where its term's pair
 *   counts any ("pod anti-affinity rules"; a node without the term's topology label is not refused);
 * - `affinity`: pods that match every one of its affinity terms — a node must carry every term's
 *   topology label and each pair must count some, except the first pod of a group: when no pod
 *   anywhere matches and the pod matches its own terms, any node with all the labels will do.
 * Adding a placed replica ({@link addPlacedPod}) updates the counts the same way, so replicas
 * placed one after another see each other, as the scheduler sees the pods it bound before.
 */
import { REFUSAL } from './node-filters.js';
import type { PodAffinityTerm, PodConstraints } from './pod-constraints.js';
import { selectorMatches } from './selectors.js';

/** A pod bound to a node, as the inter-pod filters read it. */
export interface PlacedPod {
  namespace: string;
  labels: Record<string, string>;
  /** The node it is bound to (null: not bound, it counts nowhere). */
  nodeName: string | null;
  /** Its required anti-affinity terms (the API server merged their label keys in already). */
  antiAffinity?: readonly PodAffinityTerm[];
}

/** Labels of a namespace, for `namespaceSelector`; unknown: read as none. */
export type NamespaceLabels = (namespace: string) => Record<string, string> | undefined;

/** Counts for one incoming pod (see the module comment). */
export interface InterPodState {
  pod: PodConstraints;
  closed: Map<string, number>;
  anti: Map<string, number>;
  affinity: Map<string, number>;
  namespaceLabels: NamespaceLabels;
}

const pair = (key: string, value: string) => `${key}\u0000${value}`;
const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);

/**
 * Whether `term`, written on a pod of namespace `owner`, selects pod `p`: `p`'s namespace is one
 * the term lists or its `namespaceSelector` selects (`{}`: all), or — neither given — the owner's;
 * and its label selector selects `p`'s labels (null selects nothing).
 */
export function termSelects(
  term: PodAffinityTerm,
  owner: string,
  p: { namespace: string; labels: Record<string, string> },
  namespaceLabels: NamespaceLabels,
): boolean {
  const listed = term.namespaces ?? [];
  const bySelector = term.namespaceSelector ?? null;
  const inNamespace =
    listed.length === 0 && bySelector === null
      ? p.namespace === owner
      : listed.includes(p.namespace) ||
        (bySelector !== null && selectorMatches(bySelector, namespaceLabels(p.namespace) ?? {}));
  return inNamespace && selectorMatches(term.labelSelector, p.labels);
}

/** Adds one pod bound on a node with `nodeLabels` to the counts (the PreFilter's accumulation). */
export function addPlacedPod(s: InterPodState, p: PlacedPod, nodeLabels: Record<string, string>): void {
  const incoming = { namespace: s.pod.namespace, labels: s.pod.labels };
  for (const t of p.antiAffinity ?? []) {
    const v = nodeLabels[t.topologyKey];
    if (v !== undefined && termSelects(t, p.namespace, incoming, s.namespaceLabels))
      bump(s.closed, pair(t.topologyKey, v));
  }
  for (const t of s.pod.antiAffinity) {
    const v = nodeLabels[t.topologyKey];
    if (v !== undefined && termSelects(t, s.pod.namespace, p, s.namespaceLabels))
      bump(s.anti, pair(t.topologyKey, v));
  }
  const terms = s.pod.affinity;
  if (terms.length > 0 && terms.every((t) => termSelects(t, s.pod.namespace, p, s.namespaceLabels))) {
    for (const t of terms) {
      const v = nodeLabels[t.topologyKey];
      if (v !== undefined) bump(s.affinity, pair(t.topologyKey, v));
    }
  }
}

/**
 * The counts for `pod` over the pods bound now.
 * @param labelsOf the labels of the node a pod is bound to (undefined: unknown node, its pod is skipped)
 */
export function interPodState(
  pod: PodConstraints,
  placed: Iterable<PlacedPod>,
  labelsOf: (node: string) => Record<string, string> | undefined,
  namespaceLabels: NamespaceLabels = () => undefined,
): InterPodState {
  const s: InterPodState = { pod, closed: new Map(), anti: new Map(), affinity: new Map(), namespaceLabels };
  for (const p of placed) {
    const labels = p.nodeName === null ? undefined : labelsOf(p.nodeName);
    if (labels) addPlacedPod(s, p, labels);
  }
  return s;
}

/**
 * Why the node (its labels) refuses the pod by InterPodAffinity, or null; checked in the plugin's
 * order: the pod's affinity, its anti-affinity, then the running pods' anti-affinity.
 */
export function interPodRefusal(s: InterPodState, nodeLabels: Record<string, string>): string | null {
  if (!affinitySatisfied(s, nodeLabels)) return REFUSAL.affinity;
  if (s.anti.size > 0) {
    for (const t of s.pod.antiAffinity) {
      const v = nodeLabels[t.topologyKey];
      if (v !== undefined && (s.anti.get(pair(t.topologyKey, v)) ?? 0) > 0) return REFUSAL.antiAffinity;
    }
  }
  if (s.closed.size > 0) {
    for (const [k, v] of Object.entries(nodeLabels))
      if ((s.closed.get(pair(k, v)) ?? 0) > 0) return REFUSAL.existingAntiAffinity;
  }
  return null;
}

/** The pod's affinity terms hold on a node with these labels (see the module comment). */
function affinitySatisfied(s: InterPodState, nodeLabels: Record<string, string>): boolean {
  const terms = s.pod.affinity;
  if (terms.length === 0) return true;
  let all = true;
  for (const t of terms) {
    const v = nodeLabels[t.topologyKey];
    if (v === undefined) return false;
    if ((s.affinity.get(pair(t.topologyKey, v)) ?? 0) <= 0) all = false;
  }
  if (all) return true;
  const self = { namespace: s.pod.namespace, labels: s.pod.labels };
  return (
    s.affinity.size === 0 && terms.every((t) => termSelects(t, s.pod.namespace, self, s.namespaceLabels))
  );
}
