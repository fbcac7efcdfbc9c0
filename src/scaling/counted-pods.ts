import type { PodInfo } from '../cluster/types.js';

/**
 * The pods that are replicas: live ones (not terminating, not Succeeded/Failed), at most
 * `replicas` of them, the current ReplicaSet's first, then Ready first, then oldest first. During
 * a rolling update the Deployment runs up to `maxSurge` pods more than `replicas`; those extra
 * pods are not counted. When the current ReplicaSet is not known it is taken to be the owner of
 * the newest pod (a rolling update creates the new ReplicaSet's pods last).
 */
export function countedPods(
  pods: readonly PodInfo[],
  replicas: number,
  currentReplicaSet: string | null,
): PodInfo[] {
  const live = pods.filter((p) => !p.terminating && p.phase !== 'Succeeded' && p.phase !== 'Failed');
  let current = currentReplicaSet;
  if (current === null) {
    let newest: PodInfo | null = null;
    for (const p of live) {
      if (p.owner?.kind === 'ReplicaSet' && (newest === null || p.createdAt > newest.createdAt)) newest = p;
    }
    current = newest?.owner?.name ?? null;
  }
  const rank = (p: PodInfo) => (current !== null && p.owner?.name === current ? 0 : 1);
  live.sort(
    (a, b) =>
      rank(a) - rank(b) ||
      Number(b.ready) - Number(a.ready) ||
      (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0) ||
      (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );
  return live.slice(0, Math.max(0, replicas));
}
