/**
 * The reductions of Pods and ReplicaSets to what a snapshot keeps (pure), and a pod's effective
 * GPU request.
 */
import type { V1Pod as PodInput, V1ReplicaSet as ReplicaSetInput } from '@kubernetes/client-node';
import { isoTime, optional, parseQuantity, type ReduceContext } from './reduce-fields.js';
import { cpuMemoryRequest, effectiveRequest, otherRequests } from './requests.js';
import { requiredAntiAffinity } from './scheduling/pod-constraints.js';
import type { OwnerRef, PodInfo, ReplicaSetInfo } from './types.js';
import { GPUOPS, MANAGED_BY, VENDORS } from '../util/index.js';

const NO_CONDITIONS: never[] = [];
const POD_PHASES = new Set(['Pending', 'Running', 'Succeeded', 'Failed']);

/**
 * Reduces a Pod to its {@link PodInfo} (pure): a few fields, not the object. Unparseable
 * quantities count as 0 and go to `ctx.warnings`.
 */
export function reducePod(pod: PodInput, ctx: ReduceContext): PodInfo {
  const ns = pod.metadata?.namespace ?? '';
  const name = pod.metadata?.name ?? '';
  // Shared with the input object (50,000 pods: no copy); the snapshot is read-only data.
  const labels = pod.metadata?.labels ?? {};
  let ready = false;
  let readyAt: string | undefined;
  let unschedulable = false;
  for (const c of pod.status?.conditions ?? NO_CONDITIONS) {
    if (c.type === 'Ready') {
      ready = c.status === 'True';
      if (ready && c.lastTransitionTime) readyAt = isoTime(c.lastTransitionTime);
    } else if (c.type === 'PodScheduled')
      unschedulable = c.status === 'False' && c.reason === 'Unschedulable';
  }
  const owner = ownerRef(pod.metadata?.ownerReferences);
  const claimedUid = pod.metadata?.annotations?.[GPUOPS.claimedUid];
  const phase = pod.status?.phase ?? 'Pending';
  return {
    namespace: ns,
    name,
    uid: pod.metadata?.uid ?? '',
    labels,
    nodeName: pod.spec?.nodeName || null,
    phase: (POD_PHASES.has(phase) ? phase : 'Unknown') as PodInfo['phase'],
    ready,
    terminating: pod.metadata?.deletionTimestamp != null,
    gpuRequest: podGpus(pod, ctx),
    requests: cpuMemoryRequest(pod, podReader(pod, ctx)),
    ...optional('otherRequests', otherRequests(pod.spec, podReader(pod, ctx))),
    ...optional('antiAffinity', requiredAntiAffinity(labels, pod.spec)),
    managed: labels[MANAGED_BY.key] === MANAGED_BY.value,
    algorithm: labels[GPUOPS.algorithm] ?? null,
    owner,
    ...optional('claimedUid', claimedUid || undefined),
    unschedulable,
    createdAt: isoTime(pod.metadata?.creationTimestamp),
    startedAt: pod.status?.startTime ? isoTime(pod.status.startTime) : null,
    ...(readyAt ? { readyAt } : {}),
  };
}

/**
 * The controller ownerReference (`controller: true`), else the first one (dumps written by hand
 * omit the flag), as an {@link OwnerRef}: `controller` and `uid` only when the reference has them.
 */
function ownerRef(
  refs: readonly { kind: string; name: string; controller?: boolean; uid?: string }[] | undefined,
): OwnerRef | null {
  const r = refs?.find((x) => x.controller === true) ?? refs?.[0];
  if (!r) return null;
  return {
    kind: r.kind,
    name: r.name,
    ...(r.controller === true ? { controller: true } : {}),
    ...optional('uid', r.uid || undefined),
  };
}

const DEPLOYMENT_REVISION = 'deployment.kubernetes.io/revision';

/**
 * Reduces a ReplicaSet (pure): its controller owner (the Deployment), the Deployment revision it
 * holds (`deployment.kubernetes.io/revision`), `spec.replicas` (1 when absent, the API default)
 * and its `ReplicaFailure` condition when true.
 * What the watch-driven cluster cache keeps per ReplicaSet.
 */
export function reduceReplicaSet(rs: ReplicaSetInput): ReplicaSetInfo {
  const owner = ownerRef(rs.metadata?.ownerReferences);
  const revision = Number(rs.metadata?.annotations?.[DEPLOYMENT_REVISION]);
  const failed = rs.status?.conditions?.find((c) => c.type === 'ReplicaFailure' && c.status === 'True');
  return {
    namespace: rs.metadata?.namespace ?? '',
    name: rs.metadata?.name ?? '',
    ...optional('uid', rs.metadata?.uid || undefined),
    owner,
    revision: Number.isInteger(revision) && revision > 0 ? revision : null,
    replicas: typeof rs.spec?.replicas === 'number' ? rs.spec.replicas : 1,
    ...optional(
      'failure',
      failed ? `${failed.reason ?? 'ReplicaFailure'}: ${failed.message ?? ''}` : undefined,
    ),
  };
}

/**
 * The pod's effective `nvidia.com/gpu` request, by the Kubernetes rule "Resource sharing within
 * containers" (https://kubernetes.io/docs/concepts/workloads/pods/init-containers/#resource-sharing-within-containers)
 * extended for sidecars (KEP-753): sidecar init containers (`restartPolicy: Always`) keep running,
 * so they add to the app containers' sum and to every init container started after them.
 * Effective = max(sum(app) + sum(sidecars), max over regular init i of (init_i + sidecars before i)).
 * A container's request defaults to its limit, as Kubernetes does for extended resources.
 * Unparseable quantities count as 0 and are appended to `warnings` when given.
 */
export function effectiveGpuRequest(pod: PodInput, warnings: string[] = []): number {
  return podGpus(pod, { warnings, quantities: new Map() });
}

function podGpus(pod: PodInput, ctx: ReduceContext): number {
  // A pod asks one vendor's GPUs; the sum is that vendor's (a pod asking two would hold both).
  let gpus = 0;
  for (const v of VENDORS) gpus += effectiveRequest(pod.spec, v.resource, podReader(pod, ctx));
  return gpus;
}

/** Reads a pod's quantities: the same strings ("1", "4", "16Gi") repeat, so no message is built for a known one. */
function podReader(pod: PodInput, ctx: ReduceContext): (q: string, field: string) => number {
  return (q, field) => {
    const v = ctx.quantities.get(q);
    if (v !== undefined) return v; // hot path: no message strings built
    const where = `Pod ${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
    return parseQuantity(q, where, field, ctx);
  };
}
