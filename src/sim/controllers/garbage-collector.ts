/**
 * The simulated garbage collector (https://kubernetes.io/docs/concepts/architecture/garbage-collection/):
 * deletes Pods and ReplicaSets whose owner (Job, ReplicaSet, Deployment — the kinds the simulator
 * serves) is gone, i.e. background cascading deletion.
 *
 * A cluster dump holds Pods whose owners were not dumped (a ReplicaSet, a DaemonSet). Those must
 * stay, so the collector only deletes a dependent when its owner's uid was seen in the store at
 * some point by this collector and is gone now. Owners are recorded on every pass, which the
 * simulator runs after every write.
 */
import type { KubeObject, Resource, SimController, SimStore } from '../types.js';
import { ChangeGate } from './gate.js';
import { readAll } from './read.js';

const OWNER_KINDS: Record<string, Resource> = {
  'batch/v1/Job': 'jobs',
  'apps/v1/ReplicaSet': 'replicasets',
  'apps/v1/Deployment': 'deployments',
};

/** The garbage collector as a {@link SimController}. */
export function garbageCollector(): SimController {
  const gate = new ChangeGate();
  const seen = new Set<string>();
  return {
    name: 'garbage-collector',
    reconcile(store: SimStore, now: Date): void {
      if (!gate.open(store, now)) return;
      const rv = store.resourceVersion();
      const live = new Set<string>();
      for (const resource of ['jobs', 'replicasets', 'deployments'] as const) {
        for (const o of readAll(store, resource)) if (o.metadata.uid) live.add(o.metadata.uid);
      }
      for (const uid of live) seen.add(uid);
      const orphaned = (o: KubeObject): boolean => {
        const refs = (o.metadata.ownerReferences ?? []).filter(
          (r) => OWNER_KINDS[`${r.apiVersion}/${r.kind}`] !== undefined,
        );
        if (refs.length === 0 || refs.length !== (o.metadata.ownerReferences ?? []).length) return false;
        return refs.every((r) => r.uid && seen.has(r.uid) && !live.has(r.uid));
      };
      for (const resource of ['replicasets', 'pods'] as const) {
        for (const o of [...readAll(store, resource)]) {
          if (orphaned(o)) store.delete(resource, o.metadata.namespace, o.metadata.name);
        }
      }
      for (const uid of seen) if (!live.has(uid)) seen.delete(uid); // gone for good: forget it
      gate.close(rv);
    },
  };
}
