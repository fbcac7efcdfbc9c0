/**
 * The simulated Deployment controller (apps/v1,
 * https://kubernetes.io/docs/concepts/workloads/controllers/deployment/).
 *
 * - Desired replicas: `spec.replicas`, or 1 when the field is absent (with the `hpa` engine the
 *   HPA sets it).
 * - The current template's ReplicaSet is `<deployment>-<pod-template-hash>` (hash of the template,
 *   see {@link podTemplateHash}); its pods carry the `pod-template-hash` label. It is created when
 *   missing, owned by the Deployment, with the revision annotation.
 * - Scaling without a rollout sets the ReplicaSet's replicas; the ReplicaSet controller removes the
 *   newest pods first.
 * - A template change rolls out. `RollingUpdate` (the default) honours `maxSurge` /
 *   `maxUnavailable` (ints or percents, default 25 %: surge rounds up, unavailable down, both 0
 *   means unavailable 1): each pass grows the new ReplicaSet within desired + surge and shrinks the
 *   old ones (oldest first) as far as ready pods keep desired − unavailable available; old pods
 *   that are not Ready are removed first. With 1 replica that is "surge 1": a new pod starts, the
 *   old one goes when the new one is Ready. When the new pods cannot be scheduled (no free GPU),
 *   the rollout waits, as in a real cluster. `Recreate` removes all old pods first.
 * - Status: `observedGeneration`, `replicas`, `updatedReplicas`, `readyReplicas`,
 *   `availableReplicas`, `unavailableReplicas`, conditions `Available` and `Progressing`.
 */
import { SimApiError, type KubeObject, type SimController, type SimStore } from '../types.js';
import { ChangeGate } from './gate.js';
import { podTemplateHash } from './names.js';
import { byOwner, isPodReady, ownedFrom, ownerReference, setCondition } from './pods.js';
import { readAll, readOne } from './read.js';
import { activePods } from './replicaset-controller.js';
import { k8sTime } from './time.js';
import { sameJson } from '../json-equal.js';

const REVISION = 'deployment.kubernetes.io/revision';

/** `maxSurge` / `maxUnavailable` as a pod count: an int, or a percent of `desired` (rounded up or down). */
export function resolveIntOrPercent(value: unknown, desired: number, roundUp: boolean, dflt: string): number {
  const v = value ?? dflt;
  if (typeof v === 'number') return Math.max(0, Math.floor(v));
  const m = /^(\d+)%$/.exec(String(v));
  if (!m) return Math.max(0, Math.floor(Number(v)) || 0);
  const exact = (Number(m[1]) * desired) / 100;
  return roundUp ? Math.ceil(exact) : Math.floor(exact);
}

/** The ReplicaSet of a Deployment's current template (not stored). */
export function newReplicaSet(
  deploy: KubeObject,
  hash: string,
  replicas: number,
  revision: number,
): KubeObject {
  const template = structuredClone(deploy.spec?.template ?? {});
  template.metadata = {
    ...(template.metadata ?? {}),
    labels: { ...(template.metadata?.labels ?? {}), 'pod-template-hash': hash },
  };
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: `${deploy.metadata.name}-${hash}`,
      namespace: deploy.metadata.namespace,
      labels: { ...(deploy.spec?.template?.metadata?.labels ?? {}), 'pod-template-hash': hash },
      annotations: {
        [REVISION]: String(revision),
        'deployment.kubernetes.io/desired-replicas': String(replicas),
      },
      ownerReferences: [ownerReference(deploy)],
    },
    spec: {
      replicas,
      selector: { matchLabels: { ...(deploy.spec?.selector?.matchLabels ?? {}), 'pod-template-hash': hash } },
      template,
    },
  };
}

/** Sets a ReplicaSet's `spec.replicas`; returns the object as stored afterwards (never changes `rs`). */
function setReplicas(store: SimStore, rs: KubeObject, replicas: number): KubeObject {
  if (rs.spec?.replicas === replicas) return rs;
  const fresh = readOne(store, 'replicasets', rs.metadata.namespace, rs.metadata.name);
  if (!fresh) return rs;
  return store.update('replicasets', { ...fresh, spec: { ...(fresh.spec ?? {}), replicas } });
}

/** One Deployment's pass. `sets` are its ReplicaSets, `podsOf` gives the live pods of one. */
export function syncDeployment(
  store: SimStore,
  deploy: KubeObject,
  sets: KubeObject[],
  podsOf: (rs: KubeObject) => KubeObject[],
  now: Date,
): void {
  const desired = typeof deploy.spec?.replicas === 'number' ? deploy.spec.replicas : 1;
  const hash = podTemplateHash(deploy.spec?.template);
  const name = `${deploy.metadata.name}-${hash}`;
  let current = sets.find((rs) => rs.metadata.name === name);
  const old = sets
    .filter((rs) => rs !== current)
    .sort(
      (a, b) =>
        (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? '') ||
        a.metadata.name.localeCompare(b.metadata.name),
    );
  const oldPods = old.flatMap(podsOf);
  const oldReplicas = old.reduce((s, rs) => s + (rs.spec?.replicas ?? 0), 0);
  if (!current) {
    if (readOne(store, 'replicasets', deploy.metadata.namespace, name)) return; // a foreign ReplicaSet holds the name
    const revision =
      1 + Math.max(0, ...sets.map((rs) => Number(rs.metadata.annotations?.[REVISION] ?? 0) || 0));
    const start = oldPods.length === 0 && oldReplicas === 0 ? desired : 0;
    current = store.create('replicasets', newReplicaSet(deploy, hash, start, revision));
  }
  const strategy = deploy.spec?.strategy?.type === 'Recreate' ? 'Recreate' : 'RollingUpdate';
  if (oldPods.length === 0 && oldReplicas === 0) {
    current = setReplicas(store, current, desired);
  } else if (strategy === 'Recreate') {
    for (const rs of old) setReplicas(store, rs, 0);
    current = setReplicas(store, current, oldPods.length === 0 ? desired : 0);
  } else {
    const ru = deploy.spec?.strategy?.rollingUpdate ?? {};
    const surge = resolveIntOrPercent(ru.maxSurge, desired, true, '25%');
    let unavailable = resolveIntOrPercent(ru.maxUnavailable, desired, false, '25%');
    if (surge === 0 && unavailable === 0) unavailable = 1;
    // Scale up the new ReplicaSet within desired + surge.
    const total = (current.spec?.replicas ?? 0) + oldReplicas;
    let target = current.spec?.replicas ?? 0;
    if (target < desired) target = Math.min(desired, target + Math.max(0, desired + surge - total));
    if (target > desired) target = desired;
    current = setReplicas(store, current, target);
    // Scale down old ReplicaSets: unready pods first, then as far as availability allows.
    const newReady = podsOf(current).filter(isPodReady).length;
    const oldReady = oldPods.filter(isPodReady).length;
    let canRemove = newReady + oldReady - (desired - unavailable);
    for (const rs of old) {
      const ready = podsOf(rs).filter(isPodReady).length;
      let replicas = Math.min(rs.spec?.replicas ?? 0, ready);
      const cut = Math.max(0, Math.min(replicas, canRemove));
      replicas -= cut;
      canRemove -= cut;
      setReplicas(store, rs, replicas);
    }
  }
  writeStatus(store, deploy, current, old, podsOf, desired, now);
}

function writeStatus(
  store: SimStore,
  deploy: KubeObject,
  current: KubeObject,
  old: KubeObject[],
  podsOf: (rs: KubeObject) => KubeObject[],
  desired: number,
  now: Date,
): void {
  const newPods = podsOf(current);
  const all = [...newPods, ...old.flatMap(podsOf)];
  const ready = all.filter(isPodReady).length;
  const ru = deploy.spec?.strategy?.rollingUpdate ?? {};
  const maxUnavailable =
    deploy.spec?.strategy?.type === 'Recreate'
      ? 0
      : resolveIntOrPercent(ru.maxUnavailable, desired, false, '25%');
  const at = k8sTime(now);
  const stamp = { lastUpdateTime: at };
  let conditions = deploy.status?.conditions as Record<string, unknown>[] | undefined;
  conditions = setCondition(
    conditions,
    ready >= desired - maxUnavailable
      ? {
          type: 'Available',
          status: 'True',
          reason: 'MinimumReplicasAvailable',
          message: 'Deployment has minimum availability.',
        }
      : {
          type: 'Available',
          status: 'False',
          reason: 'MinimumReplicasUnavailable',
          message: 'Deployment does not have minimum availability.',
        },
    at,
    stamp,
  );
  const complete =
    newPods.length === desired && all.length === desired && newPods.filter(isPodReady).length === desired;
  conditions = setCondition(
    conditions,
    complete
      ? {
          type: 'Progressing',
          status: 'True',
          reason: 'NewReplicaSetAvailable',
          message: `ReplicaSet "${current.metadata.name}" has successfully progressed.`,
        }
      : {
          type: 'Progressing',
          status: 'True',
          reason: 'ReplicaSetUpdated',
          message: `ReplicaSet "${current.metadata.name}" is progressing.`,
        },
    at,
    stamp,
  );
  const status: Record<string, unknown> = {
    observedGeneration: deploy.metadata.generation ?? 1,
    replicas: all.length,
    updatedReplicas: newPods.length,
    readyReplicas: ready,
    availableReplicas: ready,
  };
  if (desired - ready > 0) status.unavailableReplicas = desired - ready;
  status.conditions = conditions;
  // The stored object, read-only: a write is a new object.
  const fresh = readOne(store, 'deployments', deploy.metadata.namespace, deploy.metadata.name);
  if (!fresh) return;
  const revision = current.metadata.annotations?.[REVISION];
  let metadata = fresh.metadata;
  if (revision && fresh.metadata.annotations?.[REVISION] !== revision)
    metadata = { ...metadata, annotations: { ...(metadata.annotations ?? {}), [REVISION]: revision } };
  if (metadata !== fresh.metadata || !sameJson(fresh.status ?? {}, status))
    store.update('deployments', { ...fresh, metadata, status });
}

/** The Deployment controller as a {@link SimController}. */
export function deploymentController(): SimController {
  const gate = new ChangeGate();
  return {
    name: 'deployment',
    reconcile(store: SimStore, now: Date): void {
      if (!gate.open(store, now)) return;
      const rv = store.resourceVersion();
      const deployments = readAll(store, 'deployments');
      if (deployments.length > 0) {
        const sets = byOwner(readAll(store, 'replicasets'));
        const pods = byOwner(readAll(store, 'pods'));
        const podsOf = (rs: KubeObject): KubeObject[] => activePods(ownedFrom(pods, rs));
        for (const d of deployments) {
          try {
            syncDeployment(store, d, ownedFrom(sets, d), podsOf, now);
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
