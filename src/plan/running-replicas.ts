/**
 * The replicas each Deployment runs now, from the snapshot (pure): the pods its own ReplicaSets
 * own (Pod → ReplicaSet → Deployment, `cluster/owners.ts`) in phase Running and not terminating.
 * A pull request that deletes a Deployment names this count on its first line.
 */
import type { Snapshot } from '../cluster/index.js';
import { plainLookups, type ScalingLookups } from '../scaling/index.js';

/** Running pods by `namespace/deployment`; a Deployment with none is absent. */
export function runningReplicas(
  snapshot: Pick<Snapshot, 'pods' | 'replicaSets'>,
  lookups: Pick<ScalingLookups, 'owners' | 'podsByDeployment'> = plainLookups,
): Map<string, number> {
  const out = new Map<string, number>();
  const byDeployment = lookups.podsByDeployment(snapshot.pods, lookups.owners(snapshot.replicaSets));
  for (const [key, pods] of byDeployment) {
    const n = pods.filter((p) => p.phase === 'Running' && !p.terminating).length;
    if (n > 0) out.set(key, n);
  }
  return out;
}
