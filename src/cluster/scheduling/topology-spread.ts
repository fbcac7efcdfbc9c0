/**
 * kube-scheduler's PodTopologySpread filter for `whenUnsatisfiable: DoNotSchedule` (pure), after
 * `pkg/scheduler/framework/plugins/podtopologyspread/filtering.go`
 * (https://kubernetes.io/docs/concepts/scheduling-eviction/topology-spread-constraints/).
 * Per constraint, the domains are the values of its `topologyKey` on the eligible nodes: those
 * carrying every constraint's key, matching the pod's node selector and required affinity
 * (`nodeAffinityPolicy: Honor`, the default) and, with `nodeTaintsPolicy: Honor`, whose taints
 * the pod tolerates. Each domain counts the pods of the pod's namespace its selector selects, but
 * not terminating ones. A node is refused when it lacks a key ("missing required label"), or when
 * `count(its domain) + (1 if the pod selects itself) − min(count over domains)` is above `maxSkew`
 * (the minimum is 0 while there are fewer domains than `minDomains`). Exactly `maxSkew` fits.
 */
import { matchesNodeAffinity, REFUSAL, untoleratedTaint, type FilterNode } from './node-filters.js';
import type { PodConstraints, SpreadConstraint } from './pod-constraints.js';
import { selectorMatches } from './selectors.js';

/** A pod on a node, as the spread counts read it. */
export interface SpreadPod {
  namespace: string;
  labels: Record<string, string>;
  /** `metadata.deletionTimestamp` is set: not counted. */
  terminating?: boolean;
}

/** The counts of one constraint: pods per domain value, and the nodes that are its domains. */
interface ConstraintCounts {
  c: SpreadConstraint;
  counts: Map<string, number>;
  eligible: Set<string>;
}

/** The spread counts for one incoming pod. */
export interface SpreadState {
  pod: PodConstraints;
  constraints: ConstraintCounts[];
}

function eligible(pod: PodConstraints, c: SpreadConstraint, node: FilterNode): boolean {
  if (!pod.spread.every((x) => node.labels[x.topologyKey] !== undefined)) return false;
  if ((c.nodeAffinityPolicy ?? 'Honor') === 'Honor' && !matchesNodeAffinity(pod, node)) return false;
  if (c.nodeTaintsPolicy === 'Honor' && untoleratedTaint(pod, node.taints) !== null) return false;
  return true;
}

const counts = (pod: PodConstraints, c: SpreadConstraint, p: SpreadPod) =>
  !p.terminating && p.namespace === pod.namespace && selectorMatches(c.labelSelector, p.labels);

/**
 * The counts over every node of the cluster and the pods bound there now.
 * @param nodes  every node (with the labels it has for this decision)
 * @param podsOn the live pods bound to a node
 */
export function spreadState(
  pod: PodConstraints,
  nodes: readonly FilterNode[],
  podsOn: (node: string) => readonly SpreadPod[],
): SpreadState {
  const constraints = pod.spread.map((c) => {
    const cc: ConstraintCounts = { c, counts: new Map(), eligible: new Set() };
    for (const n of nodes) {
      if (!eligible(pod, c, n)) continue;
      cc.eligible.add(n.name);
      const v = n.labels[c.topologyKey]!;
      let k = cc.counts.get(v) ?? 0;
      for (const p of podsOn(n.name)) if (counts(pod, c, p)) k++;
      cc.counts.set(v, k);
    }
    return cc;
  });
  return { pod, constraints };
}

/** Counts a replica placed on `node` (a domain of the state), as the scheduler counts the pods it bound. */
export function addSpreadPod(s: SpreadState, node: FilterNode, p: SpreadPod): void {
  for (const cc of s.constraints) {
    if (!cc.eligible.has(node.name) || !counts(s.pod, cc.c, p)) continue;
    const v = node.labels[cc.c.topologyKey]!;
    cc.counts.set(v, (cc.counts.get(v) ?? 0) + 1);
  }
}

/** Why the node (its labels) refuses the pod by PodTopologySpread, or null. */
export function spreadRefusal(s: SpreadState, nodeLabels: Record<string, string>): string | null {
  for (const cc of s.constraints) {
    const v = nodeLabels[cc.c.topologyKey];
    if (v === undefined) return REFUSAL.spreadLabel;
    let min = Infinity;
    for (const k of cc.counts.values()) min = Math.min(min, k);
    if (min === Infinity || cc.counts.size < (cc.c.minDomains ?? 1)) min = 0;
    const self = selectorMatches(cc.c.labelSelector, s.pod.labels) ? 1 : 0;
    if ((cc.counts.get(v) ?? 0) + self - min > cc.c.maxSkew) return REFUSAL.spread;
  }
  return null;
}
