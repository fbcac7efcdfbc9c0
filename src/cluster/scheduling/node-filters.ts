/**
 * kube-scheduler's per-node filter plugins that read only the pod and the node (pure), in the
 * order the default profile runs them; a node is refused with the first failing filter's reason,
 * in kube-scheduler's words:
 * - NodeUnschedulable: a cordoned node (`spec.unschedulable`) takes only a pod tolerating
 *   `node.kubernetes.io/unschedulable:NoSchedule`;
 * - TaintToleration: every `NoSchedule` and `NoExecute` taint must be tolerated
 *   (https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/);
 * - NodeAffinity: every `nodeSelector` label equal, and one term of the required node affinity
 *   matching (https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#node-affinity).
 */
import { toleratesTaint } from '../taints.js';
import type { Taint } from '../types.js';
import type { PodConstraints } from './pod-constraints.js';
import { nodeSelectorTermsMatch } from './selectors.js';

/** A node as the filters read it. */
export interface FilterNode {
  name: string;
  labels: Record<string, string>;
  taints: readonly Taint[];
  /** `spec.unschedulable` (cordoned). */
  unschedulable?: boolean;
}

/** The reason texts of kube-scheduler's filters (FitError messages), one per refusal. */
export const REFUSAL = {
  unschedulable: 'node(s) were unschedulable',
  nodeAffinity: "node(s) didn't match Pod's node affinity/selector",
  antiAffinity: "node(s) didn't match pod anti-affinity rules",
  existingAntiAffinity: "node(s) didn't satisfy existing pods anti-affinity rules",
  affinity: "node(s) didn't match pod affinity rules",
  spread: "node(s) didn't match pod topology spread constraints",
  spreadLabel: "node(s) didn't match pod topology spread constraints (missing required label)",
} as const;

const CORDON: Taint = { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' };

/** NodeAffinity: the node carries every `nodeSelector` label and matches the required terms. */
export function matchesNodeAffinity(
  pod: Pick<PodConstraints, 'nodeSelector' | 'nodeAffinity'>,
  node: FilterNode,
): boolean {
  for (const [k, v] of Object.entries(pod.nodeSelector)) if (node.labels[k] !== v) return false;
  return (
    pod.nodeAffinity === null ||
    pod.nodeAffinity.length === 0 ||
    nodeSelectorTermsMatch(pod.nodeAffinity, node)
  );
}

/** TaintToleration: the first `NoSchedule` / `NoExecute` taint the pod does not tolerate, or null. */
export function untoleratedTaint(
  pod: Pick<PodConstraints, 'tolerations'>,
  taints: readonly Taint[],
): Taint | null {
  for (const taint of taints) {
    if (taint.effect !== 'NoSchedule' && taint.effect !== 'NoExecute') continue;
    if (!pod.tolerations.some((t) => toleratesTaint(t, taint))) return taint;
  }
  return null;
}

/**
 * Why the node refuses the pod by NodeUnschedulable, TaintToleration or NodeAffinity (in that
 * order), or null when it passes all three.
 */
export function nodeRefusal(pod: PodConstraints, node: FilterNode): string | null {
  if (node.unschedulable === true && !pod.tolerations.some((t) => toleratesTaint(t, CORDON)))
    return REFUSAL.unschedulable;
  const taint = untoleratedTaint(pod, node.taints);
  if (taint) return `node(s) had untolerated taint {${taint.key}: ${taint.value ?? ''}}`;
  if (!matchesNodeAffinity(pod, node)) return REFUSAL.nodeAffinity;
  return null;
}
