/**
 * Which pods are a standby set's, by ownership rather than by label (pure; docs/standby.md,
 * "Which pods are standbys and claims"). A label is anyone's to write: a pod made by hand, copied
 * from a manifest or left by a test may carry `gpuops.dev/standby: <set>` or
 * `gpuops.dev/claimed-from: <set>`, and gpuops must neither wake, claim, count, give back nor
 * delete it.
 *
 * - A **standby** is a pod controlled (`ownerReferences[].controller: true`) by a ReplicaSet that
 *   is itself controlled by the Deployment `gpuops-standby-<set>` in the set's namespace: the chain
 *   kube-controller-manager's Deployment and ReplicaSet controllers write and maintain
 *   (https://kubernetes.io/docs/concepts/overview/working-with-objects/owners-dependents/). An
 *   ownerReference names an owner in the dependent's own namespace (a cross-namespace reference is
 *   unresolvable), so the ReplicaSet is looked up in the pod's namespace, by name and, when both
 *   are known, by uid.
 * - A **claimed pod** has lost that chain: the claim relabels it out of the ReplicaSet's selector
 *   and the ReplicaSet releases it (its ownerReference goes). What survives is what gpuops wrote in
 *   the claim patch after checking the chain: the labels and the annotation
 *   `gpuops.dev/claimed-uid`, the pod's own uid. The API server assigns a uid at creation and
 *   ignores one given on create, so no manifest (hand-made, copied from a claimed pod, applied by
 *   Argo CD or Flux) carries its own pod's uid: only a writer who read the pod after it existed,
 *   as the claim does, can set it. With the name the standby ReplicaSet generated for it
 *   (`gpuops-standby-<set>-<hash>-<suffix>`) and no other controller, that is a pod gpuops claimed.
 *   A writer allowed to patch pods in the namespace could forge it, but such a writer can already
 *   put any pod behind the algorithm's Service; the check keeps gpuops from mistaking, not from
 *   being attacked by, a namespace's own writers.
 */
import type { PodInfo, ReplicaSetInfo } from '../../cluster/index.js';
import type { StandbySet } from '../../definitions/index.js';
import { CLAIMED_FROM_LABEL, standbyName } from '../../manifests/index.js';

/**
 * The ReplicaSets of the standby Deployment of `set`: in the set's namespace, controlled
 * (`controller: true`) by the Deployment `gpuops-standby-<set>`.
 */
export function standbyReplicaSets(
  set: StandbySet,
  replicaSets: readonly ReplicaSetInfo[],
): ReplicaSetInfo[] {
  const deployment = standbyName(set);
  return replicaSets.filter(
    (r) =>
      r.namespace === set.namespace &&
      r.owner?.kind === 'Deployment' &&
      r.owner.controller === true &&
      r.owner.name === deployment,
  );
}

/** True when `pod`'s controller is one of `mine` (same namespace, name and, when both are known, uid). */
function controlledByOneOf(pod: PodInfo, mine: readonly ReplicaSetInfo[]): boolean {
  const o = pod.owner;
  if (o?.kind !== 'ReplicaSet' || o.controller !== true) return false;
  return mine.some(
    (r) =>
      // Stryker disable next-line ConditionalExpression,LogicalOperator: equivalent; isStandbyPod, the only caller, checks the pod's namespace against the set's, which every ReplicaSet of `mine` is in (kept so the rule reads alone)
      r.namespace === pod.namespace &&
      r.name === o.name &&
      (r.uid === undefined || o.uid === undefined || r.uid === o.uid),
  );
}

/**
 * True when `pod` is a pod of the standby set `set`'s Deployment: in its namespace, controlled by
 * one of {@link standbyReplicaSets}. Its labels are not looked at (the caller reads what it needs).
 */
export function isStandbyPod(set: StandbySet, pod: PodInfo, replicaSets: readonly ReplicaSetInfo[]): boolean {
  // Stryker disable next-line ConditionalExpression: equivalent; controlledByOneOf finds only ReplicaSets of the pod's namespace among the set's, so a pod elsewhere fails there too
  return pod.namespace === set.namespace && controlledByOneOf(pod, standbyReplicaSets(set, replicaSets));
}

/**
 * True when `pod` is a pod gpuops claimed from `set`: in the set's namespace, labelled
 * `gpuops.dev/claimed-from: <set>`, annotated `gpuops.dev/claimed-uid` with its own uid, named as
 * the standby ReplicaSet names its pods (`gpuops-standby-<set>-…`), and controlled by nothing, or
 * still by a standby ReplicaSet of the set (the moment between the claim and the release).
 */
export function isClaimedPod(set: StandbySet, pod: PodInfo, replicaSets: readonly ReplicaSetInfo[]): boolean {
  return (
    pod.namespace === set.namespace &&
    pod.labels[CLAIMED_FROM_LABEL] === set.name &&
    pod.uid !== '' &&
    pod.claimedUid === pod.uid &&
    pod.name.startsWith(`${standbyName(set)}-`) &&
    (pod.owner?.controller !== true || isStandbyPod(set, pod, replicaSets))
  );
}
