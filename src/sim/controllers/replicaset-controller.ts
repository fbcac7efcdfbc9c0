/**
 * The simulated ReplicaSet controller (apps/v1): keeps `spec.replicas` (default 1) live pods made
 * from the template, named `<replicaset>-<5 chars>` and owned by the ReplicaSet. Surplus pods are
 * deleted in the order kube-controller-manager ranks them: unbound before bound, Pending before
 * Running, not Ready before Ready, then the newest first (ties: the name last in order).
 * Pods are claimed by selector first (`pod-claims.ts`): one relabelled out of the selector is
 * released and replaced, an orphan that matches is adopted.
 * Status: `replicas`, `fullyLabeledReplicas`, `readyReplicas`, `availableReplicas`
 * (`minReadySeconds` is not simulated), `observedGeneration`.
 */
import { SimApiError, type KubeObject, type SimController, type SimStore } from '../types.js';
import { ChangeGate } from './gate.js';
import { readAll, writeChangedStatus } from './read.js';
import { nameSuffix } from './names.js';
import { claimPods } from './pod-claims.js';
import {
  byCreation,
  byOwner,
  isPodReady,
  isTerminal,
  ownedFrom,
  ownerReference,
  phaseOf,
  setCondition,
} from './pods.js';
import { k8sTime } from './time.js';

/** Pods that count for a ReplicaSet: not finished, not being deleted. */
export function activePods(pods: KubeObject[]): KubeObject[] {
  return pods.filter((p) => !isTerminal(p) && !p.metadata.deletionTimestamp);
}

/** Surplus pods in deletion order (first = deleted first), as the ReplicaSet controller ranks them. */
export function deletionOrder(pods: KubeObject[]): KubeObject[] {
  const rank = (p: KubeObject): number[] => [
    p.spec?.nodeName ? 1 : 0,
    phaseOf(p) === 'Pending' ? 0 : phaseOf(p) === 'Unknown' ? 1 : 2,
    isPodReady(p) ? 1 : 0,
  ];
  return [...pods].sort((a, b) => {
    const ra = rank(a);
    const rb = rank(b);
    for (let i = 0; i < ra.length; i++) if (ra[i] !== rb[i]) return ra[i]! - rb[i]!;
    return -byCreation(a, b); // newest first
  });
}

/** The `index`-th pod of a ReplicaSet, from its template (not stored). */
export function replicaSetPod(rs: KubeObject, index: number): KubeObject {
  const tpl = (rs.spec?.template ?? {}) as { metadata?: KubeObject['metadata']; spec?: unknown };
  const metadata: KubeObject['metadata'] = {
    name: `${rs.metadata.name}-${nameSuffix(`${rs.metadata.uid ?? rs.metadata.name}/${index}`)}`,
    namespace: rs.metadata.namespace,
    labels: { ...(tpl.metadata?.labels ?? {}) },
    ownerReferences: [ownerReference(rs)],
  };
  if (tpl.metadata?.annotations) metadata.annotations = { ...tpl.metadata.annotations };
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata,
    spec: structuredClone(tpl.spec ?? {}),
    status: { phase: 'Pending' },
  };
}

/**
 * Brings one ReplicaSet's pods to `spec.replicas` and writes its status. A pod the API server
 * refuses (a ResourceQuota, admission: 403/422) stops the round and sets the `ReplicaFailure`
 * condition (`FailedCreate`, the refusal's words), as kube-controller-manager's ReplicaSet
 * controller reports it; the condition goes once a round creates what it wanted.
 */
export function syncReplicaSet(store: SimStore, rs: KubeObject, owned: KubeObject[], now = new Date()): void {
  const want = typeof rs.spec?.replicas === 'number' ? rs.spec.replicas : 1;
  let pods = activePods(owned);
  let refused: string | null = null;
  if (pods.length < want) {
    let index = owned.length;
    for (let made = pods.length; made < want && index < owned.length + want + 100; index++) {
      try {
        pods = [...pods, store.create('pods', replicaSetPod(rs, index))];
        made++;
      } catch (err) {
        if (err instanceof SimApiError && (err.code === 403 || err.code === 422)) {
          refused = err.message;
          break;
        }
        if (!(err instanceof SimApiError && err.code === 409)) throw err;
      }
    }
  } else if (pods.length > want) {
    const surplus = deletionOrder(pods).slice(0, pods.length - want);
    for (const p of surplus) store.delete('pods', p.metadata.namespace, p.metadata.name);
    pods = pods.filter((p) => !surplus.includes(p));
  }
  const ready = pods.filter(isPodReady).length;
  const status: Record<string, unknown> = {
    replicas: pods.length,
    fullyLabeledReplicas: pods.length,
    readyReplicas: ready,
    availableReplicas: ready,
    observedGeneration: rs.metadata.generation ?? 1,
  };
  const conditions = failureConditions(rs, refused, now);
  if (conditions.length > 0) status.conditions = conditions;
  writeChangedStatus(store, 'replicasets', rs.metadata.namespace, rs.metadata.name, status);
}

/** The ReplicaSet's conditions with `ReplicaFailure` set to the refusal, or removed without one. */
function failureConditions(rs: KubeObject, refused: string | null, now: Date): Record<string, unknown>[] {
  const kept = ((rs.status?.conditions ?? []) as Record<string, unknown>[]).filter(
    (c) => c.type !== 'ReplicaFailure' || refused !== null,
  );
  if (refused === null) return kept;
  return setCondition(
    kept,
    { type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate', message: refused },
    k8sTime(now),
  );
}

/** The ReplicaSet controller as a {@link SimController}. */
export function replicaSetController(): SimController {
  const gate = new ChangeGate();
  return {
    name: 'replicaset',
    reconcile(store: SimStore, now: Date): void {
      if (!gate.open(store, now)) return;
      const rv = store.resourceVersion();
      const sets = readAll(store, 'replicasets');
      if (sets.length > 0) {
        const all = readAll(store, 'pods');
        const pods = byOwner(all);
        const orphans = all.filter((p) => !(p.metadata.ownerReferences ?? []).some((r) => r.controller));
        for (const rs of sets) {
          try {
            syncReplicaSet(store, rs, claimPods(store, rs, ownedFrom(pods, rs), orphans), now);
          } catch (err) {
            if (!(err instanceof SimApiError)) throw err; // a bug, not a race: let the simulator report it
            // Changed or deleted meanwhile: the next pass works on the current object.
          }
        }
      }
      gate.close(rv);
    },
  };
}
