/**
 * Which Deployment a pod belongs to, by its owner chain (Pod → ReplicaSet → Deployment), never by
 * labels alone: a copied Deployment that carries the same labels owns other ReplicaSets, and its
 * pods are not the original's replicas. Pure.
 */
import type { PodInfo, ReplicaSetInfo } from './types.js';

/** Label the Deployment controller puts on a ReplicaSet's pods (and in the ReplicaSet's name). */
export const POD_TEMPLATE_HASH_LABEL = 'pod-template-hash';

/** The owners of a snapshot's pods; see {@link ownerIndex}. */
export interface OwnerIndex {
  /**
   * Name of the Deployment (in the pod's namespace) that owns the pod's ReplicaSet, or null when
   * the pod has no ReplicaSet owner (a Job's pod, a bare pod) or its ReplicaSet has no Deployment.
   */
  deploymentOf(pod: Pick<PodInfo, 'namespace' | 'owner' | 'labels'>): string | null;
  /** The ReplicaSet of one Deployment's newest revision, when ReplicaSets were read; else null. */
  currentReplicaSet(namespace: string, deployment: string): string | null;
  /**
   * Why one Deployment's pods could not be created: the `ReplicaFailure` of its ReplicaSets
   * (`ReplicaSetInfo.failure`, the newest revision's first), or null when none reports one.
   */
  refusal(namespace: string, deployment: string): string | null;
}

/**
 * Indexes ReplicaSets by namespace/name. A pod's Deployment is its ReplicaSet's controller owner
 * when that ReplicaSet was read. Otherwise (a dump without ReplicaSets, a ReplicaSet created
 * after the list) the Deployment controller's naming gives it: a Deployment's ReplicaSet is
 * `<deployment>-<pod-template-hash>` (https://kubernetes.io/docs/concepts/workloads/controllers/deployment/,
 * "the name of a ReplicaSet is [DEPLOYMENT-NAME]-[HASH]"), so the name less `-<hash>` (the pod's
 * `pod-template-hash` label, else the part after the last `-`, as the hash has none). A
 * ReplicaSet that was read and has no Deployment owner makes no pod a Deployment's.
 */
export function ownerIndex(replicaSets?: readonly ReplicaSetInfo[]): OwnerIndex {
  const byKey = new Map<string, ReplicaSetInfo>();
  const current = new Map<string, ReplicaSetInfo>();
  const failed = new Map<string, ReplicaSetInfo>();
  for (const rs of replicaSets ?? []) {
    byKey.set(`${rs.namespace}/${rs.name}`, rs);
    if (rs.owner?.kind !== 'Deployment') continue;
    const key = `${rs.namespace}/${rs.owner.name}`;
    const worst = failed.get(key);
    if (rs.failure && (!worst || (rs.revision ?? 0) > (worst.revision ?? 0))) failed.set(key, rs);
    const best = current.get(key);
    if (!best || (rs.revision ?? 0) > (best.revision ?? 0)) current.set(key, rs);
  }
  return {
    deploymentOf(pod) {
      if (pod.owner?.kind !== 'ReplicaSet') return null;
      const rs = byKey.get(`${pod.namespace}/${pod.owner.name}`);
      if (rs) return rs.owner?.kind === 'Deployment' ? rs.owner.name : null;
      return deploymentByName(pod.owner.name, pod.labels[POD_TEMPLATE_HASH_LABEL]);
    },
    currentReplicaSet(namespace, deployment) {
      return current.get(`${namespace}/${deployment}`)?.name ?? null;
    },
    refusal(namespace, deployment) {
      return failed.get(`${namespace}/${deployment}`)?.failure ?? null;
    },
  };
}

/** `<deployment>-<hash>` → `<deployment>`; null when the name has no such suffix. */
function deploymentByName(replicaSet: string, hash: string | undefined): string | null {
  if (hash) return replicaSet.endsWith(`-${hash}`) ? replicaSet.slice(0, -hash.length - 1) : null;
  const dash = replicaSet.lastIndexOf('-');
  return dash > 0 ? replicaSet.slice(0, dash) : null;
}
