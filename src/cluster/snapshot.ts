import { effectiveGpuRequest, reducePod, reduceReplicaSet } from './reduce-pod.js';
import { optional, parseQuantity, type ReduceContext } from './reduce-fields.js';
import type { V1Node, V1Pod, V1ReplicaSet } from '@kubernetes/client-node';
import { noNewPodsTaints } from './taints.js';
import { POOLS } from '../definitions/types.js';
import type { Pool } from '../definitions/index.js';
import { migSingleProfile } from './mig.js';
import { otherAllocatable, type NodeResources } from './requests.js';
import { GPUOPS_FIELD_MANAGER, sharedWithApplier, type ManagedFieldsEntry } from './field-ownership.js';
import type { GpuSharing, NodeInfo, PodInfo, ReplicaSetInfo, Snapshot, Taint } from './types.js';
import { GPUOPS, NVIDIA, NVIDIA_GFD, nodeVendor, vendorById, byString } from '../util/index.js';
import type { VendorId } from '../util/index.js';

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
  /**
   * gpuops's field manager owns a field of the Node that an applier of Git owns too
   * (`sharedWithApplier` of `field-ownership.ts`): patch mode hands it over. Absent: none.
   */
  sharedWithGit?: true;
}

export type { ReduceContext } from './reduce-fields.js';

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
    ...optional('sharedWithGit', sharesWithGit(node) ? (true as const) : undefined),
  };
}

/** True when gpuops's field manager shares a field of `node` with Git's applier (`field-ownership.ts`). */
function sharesWithGit(node: NodeInput): boolean {
  const entries = node.metadata?.managedFields as ManagedFieldsEntry[] | undefined;
  return sharedWithApplier(entries, GPUOPS_FIELD_MANAGER).length > 0;
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
    ...optional('sharedWithGit', n.sharedWithGit),
  };
}

export { effectiveGpuRequest, reducePod, reduceReplicaSet };
