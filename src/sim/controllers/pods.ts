/**
 * Small readers of Pod and Node objects shared by the simulated controllers: resource requests
 * (Kubernetes' effective-request rule), phases, owners, readiness.
 */
import type { V1PodSpec } from '@kubernetes/client-node';
import {
  QuantityError,
  parseQuantity as kubeQuantity,
  effectiveRequest as clusterEffectiveRequest,
} from '../../cluster/index.js';
import type { KubeObject } from '../types.js';
import { GPUOPS, NVIDIA, VENDORS } from '../../util/index.js';

/** Extended resource of a whole NVIDIA GPU (NVIDIA device plugin). */
export const GPU_RESOURCE = NVIDIA.resource;
/** Label gpuops puts on everything that belongs to an algorithm. */
export const ALGORITHM_LABEL = GPUOPS.algorithm;

/**
 * A resource quantity in an object (`"2"`, `"500m"`, `"16Gi"`, `"2P"`, or a number) as a number,
 * by gpuops's one quantity parser (client-node's); 0 when absent.
 * @throws QuantityError on a string that is no quantity (a real API server rejects such an object)
 */
export function parseQuantity(value: unknown): number {
  if (value === undefined || value === null) return 0;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new QuantityError(String(value));
    return value;
  }
  return kubeQuantity(String(value));
}

interface ContainerLike {
  name?: string;
  resources?: { requests?: Record<string, unknown>; limits?: Record<string, unknown> };
}

/**
 * Request of one resource by one container. For extended resources such as `nvidia.com/gpu`
 * requests must equal limits, and a limit alone implies the request (Kubernetes defaulting).
 */
export function containerRequest(container: ContainerLike, resource: string): number {
  const r = container.resources;
  return parseQuantity(r?.requests?.[resource] ?? r?.limits?.[resource]);
}

/**
 * Effective request of a pod for one resource, the scheduler's rule
 * (https://kubernetes.io/docs/concepts/workloads/pods/init-containers/#resource-sharing-within-containers),
 * with sidecars (init containers with `restartPolicy: Always`, KEP-753) running beside the app
 * containers: gpuops's own `effectiveRequest` of `src/cluster/requests.ts`, so the simulator and
 * gpuops's capacity count a pod alike.
 */
export function effectiveRequest(
  podSpec: { containers?: ContainerLike[]; initContainers?: ContainerLike[] } | undefined,
  resource: string = GPU_RESOURCE,
): number {
  return clusterEffectiveRequest(podSpec as V1PodSpec | undefined, resource, (q) => parseQuantity(q));
}

/** Effective request of a pod for every vendor's GPU resource (`nvidia.com/gpu`, `amd.com/gpu`; whole GPUs). */
export function podGpus(pod: KubeObject): number {
  return VENDORS.reduce((sum, v) => sum + effectiveRequest(pod.spec, v.resource), 0);
}

/** Pod phase, `Pending` when unset. */
export function phaseOf(pod: KubeObject): string {
  return (pod.status?.phase as string | undefined) ?? 'Pending';
}

/** Succeeded or Failed: the pod holds no resources and will not run again. */
export function isTerminal(pod: KubeObject): boolean {
  const p = phaseOf(pod);
  return p === 'Succeeded' || p === 'Failed';
}

/** Bound to a node and not finished: it holds its requests on that node (scheduler accounting). */
export function holdsResources(pod: KubeObject): boolean {
  return typeof pod.spec?.nodeName === 'string' && pod.spec.nodeName !== '' && !isTerminal(pod);
}

/** The pod's `Ready` condition is `True`. */
export function isPodReady(pod: KubeObject): boolean {
  return (pod.status?.conditions ?? []).some(
    (c: { type: string; status: string }) => c.type === 'Ready' && c.status === 'True',
  );
}

/** Running, Ready and not being deleted: what Deployments and the load model count as serving. */
export function isServing(pod: KubeObject): boolean {
  return phaseOf(pod) === 'Running' && isPodReady(pod) && !pod.metadata.deletionTimestamp;
}

/** The controller owner reference (or the first owner reference) of an object. */
export function controllerOf(
  obj: KubeObject,
): { apiVersion: string; kind: string; name: string; uid: string } | undefined {
  const refs = obj.metadata.ownerReferences ?? [];
  return refs.find((r) => r.controller) ?? refs[0];
}

/** True when `obj` is controlled by `owner` (same uid, or same kind and name when a uid is missing). */
export function isOwnedBy(obj: KubeObject, owner: KubeObject): boolean {
  const ref = controllerOf(obj);
  if (!ref || obj.metadata.namespace !== owner.metadata.namespace) return false;
  if (ref.uid && owner.metadata.uid) return ref.uid === owner.metadata.uid;
  return ref.kind === owner.kind && ref.name === owner.metadata.name;
}

/** An owner reference to `owner` as controllers write them (`controller: true`). */
export function ownerReference(
  owner: KubeObject,
): NonNullable<KubeObject['metadata']['ownerReferences']>[number] & { blockOwnerDeletion: boolean } {
  return {
    apiVersion: owner.apiVersion,
    kind: owner.kind,
    name: owner.metadata.name,
    uid: owner.metadata.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** The Node's `Ready` condition is `True`. */
export function isNodeReady(node: KubeObject): boolean {
  return (node.status?.conditions ?? []).some(
    (c: { type: string; status: string }) => c.type === 'Ready' && c.status === 'True',
  );
}

/** Groups objects by `namespace/name` of their controller owner reference. */
export function byOwner(objs: readonly KubeObject[]): Map<string, KubeObject[]> {
  const out = new Map<string, KubeObject[]>();
  for (const o of objs) {
    const ref = controllerOf(o);
    if (!ref) continue;
    const key = ref.uid || `${o.metadata.namespace}/${ref.kind}/${ref.name}`;
    const list = out.get(key);
    if (list) list.push(o);
    else out.set(key, [o]);
  }
  return out;
}

/** Objects of `groups` controlled by `owner` (by uid, falling back to kind/name). */
export function ownedFrom(groups: Map<string, KubeObject[]>, owner: KubeObject): KubeObject[] {
  const byUid = owner.metadata.uid ? groups.get(owner.metadata.uid) : undefined;
  const byName = groups.get(`${owner.metadata.namespace}/${owner.kind}/${owner.metadata.name}`);
  return [...(byUid ?? []), ...(byName ?? [])].filter((o) => isOwnedBy(o, owner));
}

/** Orders objects by creation time, then namespace and name (a deterministic queue order). */
export function byCreation(a: KubeObject, b: KubeObject): number {
  const ta = a.metadata.creationTimestamp ?? '';
  const tb = b.metadata.creationTimestamp ?? '';
  if (ta !== tb) return ta < tb ? -1 : 1;
  const ka = `${a.metadata.namespace ?? ''}/${a.metadata.name}`;
  const kb = `${b.metadata.namespace ?? ''}/${b.metadata.name}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

/**
 * Sets (or replaces) the condition of `next.type` in a conditions array. An existing condition with
 * the same status, reason and message is kept as it is (no timestamp churn, so a second pass
 * writes nothing); `lastTransitionTime` only moves when the status changes. `extra` fields
 * (`lastProbeTime`, `lastUpdateTime`) are written with a new or changed condition.
 */
export function setCondition(
  conditions: Record<string, unknown>[] | undefined,
  next: { type: string; status: string; reason?: string; message?: string },
  at: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown>[] {
  const list = [...(conditions ?? [])];
  const i = list.findIndex((c) => c.type === next.type);
  const old = i >= 0 ? list[i] : undefined;
  if (old && old.status === next.status && old.reason === next.reason && old.message === next.message)
    return list;
  const lastTransitionTime =
    old && old.status === next.status && old.lastTransitionTime ? old.lastTransitionTime : at;
  const cond: Record<string, unknown> = { ...next, ...extra, lastTransitionTime };
  if (next.reason === undefined) delete cond.reason;
  if (next.message === undefined) delete cond.message;
  if (i >= 0) list[i] = cond;
  else list.push(cond);
  return list;
}
