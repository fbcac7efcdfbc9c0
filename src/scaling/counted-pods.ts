import type { PodInfo } from '../cluster/index.js';

/** Live pods: not terminating, not Succeeded/Failed. */
function livePods(pods: readonly PodInfo[]): PodInfo[] {
  return pods.filter((p) => !p.terminating && p.phase !== 'Succeeded' && p.phase !== 'Failed');
}

/**
 * The live pods in the order they count as replicas: Ready first (the pods that serve), then the
 * current ReplicaSet's, then oldest first, then by name. When the current ReplicaSet is not known
 * it is taken to be the owner of the newest pod (a rolling update creates the new ReplicaSet's
 * pods last).
 */
function rankedLivePods(pods: readonly PodInfo[], currentReplicaSet: string | null): PodInfo[] {
  const live = livePods(pods);
  let current = currentReplicaSet;
  if (current === null) {
    let newest: PodInfo | null = null;
    for (const p of live) {
      if (p.owner?.kind === 'ReplicaSet' && (newest === null || p.createdAt > newest.createdAt)) newest = p;
    }
    current = newest?.owner?.name ?? null;
  }
  const rank = (p: PodInfo) => (current !== null && p.owner?.name === current ? 0 : 1);
  return live.sort(
    (a, b) =>
      Number(b.ready) - Number(a.ready) ||
      rank(a) - rank(b) ||
      (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0) ||
      (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );
}

/**
 * The pods that are replicas: at most `replicas` live pods (not terminating, not
 * Succeeded/Failed), Ready first, then the current ReplicaSet's, then oldest first. During a
 * rolling update the Deployment runs up to `maxSurge` pods more than `replicas` (policy
 * `rollout.maxSurge`, default 1); those are the rollout's surge ({@link surgePods}), not replicas.
 * Ready pods rank first because they are the ones serving: a new ReplicaSet's pod that is still
 * starting (or Pending for a GPU) is the surge, and the old Ready pod it will replace is the
 * replica, so its utilisation stays the algorithm's and the surge pod never looks like a replica
 * that needs a node (Kubernetes itself counts a rollout's availability on Ready pods,
 * `DeploymentStatus.availableReplicas`).
 */
export function countedPods(
  pods: readonly PodInfo[],
  replicas: number,
  currentReplicaSet: string | null,
): PodInfo[] {
  return rankedLivePods(pods, currentReplicaSet).slice(0, Math.max(0, replicas));
}

/**
 * The live pods beyond the first `replicas` of {@link countedPods}: a rollout's surge pods (or, for
 * a moment after a scale-down in Git, the pods the ReplicaSet is about to delete). They are no
 * replica: their utilisation is not the algorithm's and no node moves in for them; but one not
 * bound yet takes a free GPU when it gets one, so that GPU is no spare capacity for a scale-up
 * (`scaling/rules/facts.ts`, `scaling/claims.ts`).
 */
export function surgePods(
  pods: readonly PodInfo[],
  replicas: number,
  currentReplicaSet: string | null,
): PodInfo[] {
  return rankedLivePods(pods, currentReplicaSet).slice(Math.max(0, replicas));
}

/**
 * How many of {@link countedPods} are bound to a node, and how many of {@link surgePods} are not:
 * what `claimsOf` counts, from one ranking of the pods (it runs for every algorithm every pass).
 */
export function boundAndUnboundSurge(
  pods: readonly PodInfo[],
  replicas: number,
  currentReplicaSet: string | null,
): { bound: number; unboundSurge: number } {
  const ranked = rankedLivePods(pods, currentReplicaSet);
  const counted = Math.max(0, replicas);
  let bound = 0;
  let unboundSurge = 0;
  for (let i = 0; i < ranked.length; i++) {
    const onNode = ranked[i]!.nodeName !== null;
    if (i < counted) bound += onNode ? 1 : 0;
    else unboundSurge += onNode ? 0 : 1;
  }
  return { bound, unboundSurge };
}
