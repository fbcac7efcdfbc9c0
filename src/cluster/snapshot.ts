// Not re-exported by the package index in 1.4.0; the module has no imports of its own.
import { parseQuantity as quantityValue } from './quantity.js';
import type { V1Node, V1Pod, V1ReplicaSet } from '@kubernetes/client-node';
import { noNewPodsTaints } from './taints.js';
import { POOLS } from '../definitions/types.js';
import type { Pool } from '../definitions/types.js';
import { migSingleProfile } from './mig.js';
import {
  cpuMemoryRequest,
  effectiveRequest,
  otherAllocatable,
  otherRequests,
  type NodeResources,
} from './requests.js';
import { requiredAntiAffinity } from './scheduling/pod-constraints.js';
import type { GpuSharing, NodeInfo, PodInfo, ReplicaSetInfo, Snapshot, Taint } from './types.js';
import {
  GPUOPS,
  MANAGED_BY,
  NVIDIA,
  NVIDIA_GFD,
  VENDORS,
  nodeVendor,
  vendorById,
} from '../util/vocabulary.js';
import type { VendorId } from '../util/vocabulary.js';
import { byString } from '../util/compare.js';

/** Taints the node lifecycle controller sets on nodes that must not get new pods. */
export const UNHEALTHY_TAINTS = ['node.kubernetes.io/unreachable', 'node.kubernetes.io/not-ready'];

/**
 * Whether the NVIDIA device plugin shares the node's GPUs (time-slicing or MPS), which advertises
 * each physical GPU `replicas` times as `nvidia.com/gpu`
 * (https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/gpu-sharing.html). Shared
 * when any of GPU Feature Discovery's labels says so: `nvidia.com/gpu.replicas` > 1, a product
 * ending in `-SHARED`, or `nvidia.com/gpu.sharing-strategy` other than `none`. Physical GPUs come
 * from `nvidia.com/gpu.count`, else allocatable ÷ replicas rounded up (at least 1 when anything is
 * allocatable). Pure.
 *
 * @returns null for a node whose GPUs are whole (not shared)
 */
export function gpuSharing(node: Pick<NodeInfo, 'labels' | 'gpuAllocatable'>): GpuSharing | null {
  const labels = node.labels;
  const replicasLabel = Number(labels[NVIDIA_GFD.replicas]);
  const replicas = Number.isInteger(replicasLabel) && replicasLabel > 1 ? replicasLabel : 1;
  const strategyLabel = labels[NVIDIA_GFD.sharingStrategy];
  const sharedProduct = (labels[NVIDIA.productLabel] ?? '').endsWith(NVIDIA_GFD.sharedProductSuffix);
  const strategyShared = strategyLabel !== undefined && strategyLabel !== '' && strategyLabel !== 'none';
  if (replicas === 1 && !sharedProduct && !strategyShared) return null;
  const count = Number(labels[NVIDIA_GFD.count]);
  const physicalGpus =
    Number.isInteger(count) && count >= 0
      ? count
      : node.gpuAllocatable > 0
        ? Math.max(1, Math.ceil(node.gpuAllocatable / replicas))
        : 0;
  return { strategy: strategyShared ? strategyLabel : 'unknown', replicas, physicalGpus };
}

/** A Node as the client library returns it, or as `kubectl get nodes -o json` prints it. */
export type NodeInput = V1Node;
/** A Pod as the client library returns it, or as `kubectl get pods -A -o json` prints it. */
export type PodInput = V1Pod;
/** A ReplicaSet as the client library returns it, or as `kubectl get replicasets -A -o json` prints it. */
export type ReplicaSetInput = V1ReplicaSet;

/** Options of {@link buildSnapshot}. */
export interface SnapshotOptions {
  /** Node label that holds the pool; default `gpuops.dev/pool` (policy `pools.labelKey`). */
  poolLabel?: string;
}

/**
 * Builds the snapshot gpuops decides on from Node and Pod objects (pure: the caller passes `now`).
 *
 * Per node: Ready (Ready condition `True`), cordoned (`spec.unschedulable`), schedulable (not
 * cordoned and no taint that keeps gpuops's pods off: `noNewPodsTaints` of
 * `src/cluster/taints.ts`, the one rule for it), GPU product
 * (`nvidia.com/gpu.product`), GPUs allocatable from `status.allocatable["nvidia.com/gpu"]` (not
 * capacity: the device plugin lowers allocatable when GPUs are unhealthy), MIG slices, and the GPUs
 * requested by live pods bound to it; its allocatable cpu, memory and pods and what the pods bound
 * there request of them (kube-scheduler's `NodeResourcesFit` and pod-count accounting). Pending
 * pods without `spec.nodeName`, Succeeded and Failed pods hold nothing (the scheduler's
 * accounting). On a node with MIG's single strategy the `nvidia.com/gpu` are MIG devices
 * (`migSingleProfile`): they count as `migAllocatable`, whole GPUs 0. ReplicaSets, when given,
 * are kept as {@link ReplicaSetInfo} (which Deployment owns each, at which revision); without
 * them `snapshot.replicaSets` is absent. Quantities are parsed with the client library's
 * `quantityToScalar`. A quantity that cannot be parsed counts as 0 and is reported in
 * `warnings` naming the object and field; one bad object never stops the others.
 *
 * @param nodes a list of Nodes, or a NodeList (`{items}`)
 * @param pods  a list of Pods, or a PodList (`{items}`)
 * @param replicaSets a list of ReplicaSets, or a ReplicaSetList; absent: not read
 */
export function buildSnapshot(
  nodes: NodeInput[] | { items: NodeInput[] },
  pods: PodInput[] | { items: PodInput[] },
  now: Date,
  options: SnapshotOptions = {},
  replicaSets?: ReplicaSetInput[] | { items: ReplicaSetInput[] },
): Snapshot {
  const builder = createSnapshotBuilder(now, options);
  builder.addPods(itemsOf(pods));
  builder.addNodes(itemsOf(nodes));
  if (replicaSets !== undefined) builder.addReplicaSets(itemsOf(replicaSets));
  return builder.build();
}

/**
 * Builds a snapshot from objects that arrive in parts (list pages): each page of Pods is reduced
 * to {@link PodInfo} at once, so the full Pod objects of a large cluster never sit in memory
 * together. The result is the one {@link buildSnapshot} gives for all the parts at once.
 */
export interface SnapshotBuilder {
  addNodes(nodes: readonly NodeInput[]): void;
  addPods(pods: readonly PodInput[]): void;
  /** ReplicaSets; once called (even with none), the snapshot carries `replicaSets`. */
  addReplicaSets(replicaSets: readonly ReplicaSetInput[]): void;
  /** Forgets the Pods added so far (their list restarted from the beginning). */
  resetPods(): void;
  /** The snapshot of everything added. Call once. */
  build(): Snapshot;
}

/** A {@link SnapshotBuilder} (pure: the caller passes `now`, recorded as `takenAt`). */
export function createSnapshotBuilder(now: Date, options: SnapshotOptions = {}): SnapshotBuilder {
  const quantities = new Map<string, number>();
  // Pod warnings come before node warnings, whatever order the parts arrive in.
  let podCtx: ReduceContext = { warnings: [], quantities };
  let podInfos: PodInfo[] = [];
  const nodes: NodeInput[] = [];
  let replicaSets: ReplicaSetInfo[] | undefined;
  return {
    addNodes: (more) => {
      for (const n of more) nodes.push(n);
    },
    addPods: (more) => {
      for (const p of more) podInfos.push(reducePod(p, podCtx));
    },
    addReplicaSets: (more) => {
      replicaSets ??= [];
      for (const rs of more) replicaSets.push(reduceReplicaSet(rs));
    },
    resetPods: () => {
      podInfos = [];
      podCtx = { warnings: [], quantities };
    },
    build: () => {
      const nodeCtx: ReduceContext = { warnings: [], quantities };
      const records = nodes.map((n) => reduceNode(n, nodeCtx));
      const warnings = [...podCtx.warnings, ...nodeCtx.warnings];
      return assembleSnapshot(records, podInfos, warnings, now, options, replicaSets);
    },
  };
}

/**
 * A Node reduced to what a snapshot reads of it: {@link NodeInfo} before the pods bound to it are
 * counted and before the pool label is read (both are the snapshot's). What the watch-driven
 * cluster cache keeps per Node.
 */
export interface NodeRecord {
  name: string;
  labels: Record<string, string>;
  ready: boolean;
  cordoned: boolean;
  /** The vendor of its GPUs (`nodeVendor`); absent in records stored before a second vendor: read from the labels. */
  vendor?: VendorId;
  gpuCapacity: number;
  gpuAllocatable: number;
  migAllocatable: number;
  /** `status.allocatable` cpu (millicores), memory (bytes) and pods; absent ones 0. */
  allocatable: NodeResources;
  taints: Taint[];
}

/**
 * Where reductions put what they could not read: `warnings` (one line per unparseable quantity,
 * naming object and field) and the quantities parsed so far (the same few strings, "1", "8",
 * repeat across thousands of objects). One context may serve many objects.
 */
export interface ReduceContext {
  warnings: string[];
  quantities: Map<string, number>;
}

/**
 * The snapshot of reduced Nodes and Pods (pure). Pods are taken in the order given (the list
 * order: `namespace/name`), nodes come out sorted by name; `warnings` as given (pods' first).
 * `replicaSets`, when given, are carried as they are (absent: not read).
 */
export function assembleSnapshot(
  nodes: readonly NodeRecord[],
  pods: PodInfo[],
  warnings: string[],
  now: Date,
  options: SnapshotOptions = {},
  replicaSets?: ReplicaSetInfo[],
): Snapshot {
  const poolLabel = options.poolLabel ?? GPUOPS.pool;
  const usage = nodeUsage(pods);
  const nodeInfos = nodes.map((n) => toNodeInfo(n, poolLabel, usage.get(n.name)));
  nodeInfos.sort((a, b) => byString(a.name, b.name));
  const snapshot: Snapshot = { takenAt: now.toISOString(), nodes: nodeInfos, pods };
  if (replicaSets) snapshot.replicaSets = replicaSets;
  if (warnings.length > 0) snapshot.warnings = warnings;
  return snapshot;
}

/** What the pods bound to one node hold there. */
interface Usage {
  gpus: number;
  foreignGpus: number;
  managed: number;
  requested: NodeResources;
}

/** Per node name: what its bound, unfinished pods hold (the scheduler's accounting). */
function nodeUsage(pods: readonly PodInfo[]): Map<string, Usage> {
  const usage = new Map<string, Usage>();
  for (const p of pods) {
    if (!holdsResources(p)) continue;
    let u = usage.get(p.nodeName!);
    if (!u) {
      u = { gpus: 0, foreignGpus: 0, managed: 0, requested: { cpuMillis: 0, memoryBytes: 0, pods: 0 } };
      usage.set(p.nodeName!, u);
    }
    u.gpus += p.gpuRequest;
    if (p.managed) u.managed += 1;
    else u.foreignGpus += p.gpuRequest;
    u.requested.cpuMillis += p.requests.cpuMillis;
    u.requested.memoryBytes += p.requests.memoryBytes;
    u.requested.pods += 1;
    if (p.otherRequests) {
      const other = (u.requested.other ??= {});
      for (const [r, v] of Object.entries(p.otherRequests)) other[r] = (other[r] ?? 0) + v;
    }
  }
  return usage;
}

/** True when the pod is bound to a node and not finished: it holds its requests there. */
export function holdsResources(pod: PodInfo): boolean {
  return pod.nodeName !== null && pod.phase !== 'Succeeded' && pod.phase !== 'Failed';
}

function itemsOf<T>(list: T[] | { items: T[] }): T[] {
  return Array.isArray(list) ? list : (list.items ?? []);
}

/**
 * Reduces a Node (pure): Ready condition, `spec.unschedulable`, taints, labels (a copy), GPUs and
 * MIG slices allocatable, GPU capacity, allocatable cpu, memory and pods. With MIG's single
 * strategy (`migSingleProfile`) the `nvidia.com/gpu` are MIG devices: counted as MIG slices, whole
 * GPUs 0. Unparseable quantities count as 0 and go to `ctx.warnings`.
 */
export function reduceNode(node: NodeInput, ctx: ReduceContext): NodeRecord {
  const name = node.metadata?.name ?? '';
  const where = `Node ${name}`;
  const labels = { ...(node.metadata?.labels ?? {}) };
  const allocatable = node.status?.allocatable ?? {};
  const capacity = node.status?.capacity ?? {};
  const field = (of: 'allocatable' | 'capacity', resource: string) => `status.${of}["${resource}"]`;
  const alloc = (resource: string) =>
    parseQuantity(allocatable[resource], where, field('allocatable', resource), ctx);
  let migAllocatable = 0;
  for (const resource of Object.keys(allocatable)) {
    if (resource.startsWith(NVIDIA_GFD.migResourcePrefix)) migAllocatable += alloc(resource);
  }
  const vendor = nodeVendor(labels, [...Object.keys(capacity), ...Object.keys(allocatable)]);
  let gpuCapacity = parseQuantity(capacity[vendor.resource], where, field('capacity', vendor.resource), ctx);
  let gpuAllocatable = alloc(vendor.resource);
  if (vendor === NVIDIA && migSingleProfile(labels) !== null) {
    // MIG single strategy: every `nvidia.com/gpu` is a MIG device, never a whole GPU.
    migAllocatable += gpuAllocatable;
    gpuCapacity = 0;
    gpuAllocatable = 0;
  }
  return {
    name,
    labels,
    ready: (node.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True'),
    cordoned: node.spec?.unschedulable === true,
    vendor: vendor.id,
    gpuCapacity,
    gpuAllocatable,
    migAllocatable,
    allocatable: {
      cpuMillis: Math.round(alloc('cpu') * 1000),
      memoryBytes: Math.floor(alloc('memory')),
      pods: Math.floor(alloc('pods')),
      ...optional(
        'other',
        otherAllocatable(allocatable, (_q, r) => alloc(r)),
      ),
    },
    taints: (node.spec?.taints ?? []).map((t) => ({
      key: t.key,
      ...(t.value !== undefined && t.value !== null ? { value: t.value } : {}),
      effect: t.effect as Taint['effect'],
    })),
  };
}

function toNodeInfo(n: NodeRecord, poolLabel: string, u: Usage | undefined): NodeInfo {
  const pool = n.labels[poolLabel];
  const vendor = n.vendor ? vendorById(n.vendor) : nodeVendor(n.labels, []);
  return {
    name: n.name,
    labels: n.labels,
    ready: n.ready,
    cordoned: n.cordoned,
    schedulable: !n.cordoned && noNewPodsTaints(n.taints, poolLabel, vendor).length === 0,
    vendor: vendor.id,
    gpuProduct: n.labels[vendor.productLabel] ?? null,
    gpuCapacity: n.gpuCapacity,
    gpuAllocatable: n.gpuAllocatable,
    migAllocatable: n.migAllocatable,
    allocatable: n.allocatable,
    requested: u?.requested ?? { cpuMillis: 0, memoryBytes: 0, pods: 0 },
    gpuRequested: u?.gpus ?? 0,
    foreignGpuRequested: u?.foreignGpus ?? 0,
    managedPods: u?.managed ?? 0,
    pool: pool !== undefined && (POOLS as readonly string[]).includes(pool) ? (pool as Pool) : null,
    taints: n.taints,
  };
}

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
  const owner = controllerOf(pod.metadata?.ownerReferences);
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
    owner: owner ? { kind: owner.kind, name: owner.name } : null,
    unschedulable,
    createdAt: isoTime(pod.metadata?.creationTimestamp),
    startedAt: pod.status?.startTime ? isoTime(pod.status.startTime) : null,
    ...(readyAt ? { readyAt } : {}),
  };
}

/** `{ [key]: value }`, or `{}` when the value is undefined (an optional field left out). */
function optional<K extends string, V>(key: K, value: V | undefined): { [k in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [k in K]?: V };
}

/** The controller ownerReference (`controller: true`), else the first one (dumps written by hand omit the flag). */
function controllerOf<T extends { kind: string; name: string; controller?: boolean }>(
  refs: readonly T[] | undefined,
): T | undefined {
  return refs?.find((r) => r.controller === true) ?? refs?.[0];
}

const DEPLOYMENT_REVISION = 'deployment.kubernetes.io/revision';

/**
 * Reduces a ReplicaSet (pure): its controller owner (the Deployment), the Deployment revision it
 * holds (`deployment.kubernetes.io/revision`), `spec.replicas` (1 when absent, the API default)
 * and its `ReplicaFailure` condition when true.
 * What the watch-driven cluster cache keeps per ReplicaSet.
 */
export function reduceReplicaSet(rs: ReplicaSetInput): ReplicaSetInfo {
  const owner = controllerOf(rs.metadata?.ownerReferences);
  const revision = Number(rs.metadata?.annotations?.[DEPLOYMENT_REVISION]);
  const failed = rs.status?.conditions?.find((c) => c.type === 'ReplicaFailure' && c.status === 'True');
  return {
    namespace: rs.metadata?.namespace ?? '',
    name: rs.metadata?.name ?? '',
    owner: owner ? { kind: owner.kind, name: owner.name } : null,
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

function parseQuantity(q: string | undefined, where: string, field: string, ctx: ReduceContext): number {
  if (q === undefined || q === null || q === '') return 0;
  const cached = ctx.quantities.get(q);
  if (cached !== undefined) return cached;
  try {
    const v = quantityValue(String(q));
    ctx.quantities.set(q, v);
    return v;
  } catch {
    // reported below
  }
  ctx.warnings.push(`${where}: ${field}: not a Kubernetes quantity: ${JSON.stringify(q)}; counted as 0`);
  return 0;
}

/**
 * A timestamp in one canonical form, `Date.toISOString()` (`2026-01-02T03:04:05.000Z`), whether it
 * came as a `Date` (client-library objects) or an RFC 3339 string (the API server's JSON, kubectl
 * dumps), so snapshots from either source compare and store alike. A string that is no time is
 * kept as it is.
 */
function isoTime(t: Date | string | undefined): string {
  if (t === undefined || t === null) return '';
  if (t instanceof Date) return t.toISOString();
  const s = String(t);
  const ms = Date.parse(s);
  return Number.isNaN(ms) ? s : new Date(ms).toISOString();
}
