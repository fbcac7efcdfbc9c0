import type { Pool } from '../definitions/index.js';
import type { CpuMemory, NodeResources } from './requests.js';
import type { PodAffinityTerm } from './scheduling/terms.js';
import type { VendorId } from '../util/index.js';

export type { CpuMemory, NodeResources } from './requests.js';

/** A Kubernetes taint as on `Node.spec.taints`. */
export interface Taint {
  key: string;
  value?: string;
  effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
}

/**
 * One node of a snapshot, reduced to what gpuops decides on. Built by the pure snapshot model
 * (`src/cluster/snapshot.ts`) from Node and Pod objects. GPU counts are whole GPUs
 * (`nvidia.com/gpu`); on a node whose device plugin runs MIG's `single` strategy the
 * `nvidia.com/gpu` it advertises are MIG devices, so they count as `migAllocatable` and its whole
 * GPUs are 0 (see `migSingleProfile` of `src/cluster/mig.ts`).
 */
export interface NodeInfo {
  name: string;
  labels: Record<string, string>;
  /** Ready condition is `True`. */
  ready: boolean;
  /** `spec.unschedulable` is true. */
  cordoned: boolean;
  /**
   * Not cordoned and no taint that keeps gpuops's pods off (`noNewPodsTaints` of
   * `src/cluster/taints.ts`: an untolerated NoSchedule/NoExecute taint, or a node on its way
   * out by the Cluster Autoscaler or Karpenter). False: the node offers no capacity.
   */
  schedulable: boolean;
  /**
   * The vendor of its GPUs (`nodeVendor` of `util/vocabulary.ts`): whose resource, product label
   * and taint the fields below read. Absent: NVIDIA.
   */
  vendor?: VendorId;
  /** The vendor's product label (`nvidia.com/gpu.product`, `amd.com/gpu.product-name`), or null. */
  gpuProduct: string | null;
  /** `status.capacity` of the vendor's GPU resource (`nvidia.com/gpu`, `amd.com/gpu`; 0 with MIG's single strategy). */
  gpuCapacity: number;
  /** `status.allocatable` of the vendor's GPU resource: whole GPUs the scheduler can hand out (0 with MIG's single strategy). */
  gpuAllocatable: number;
  /**
   * Allocatable MIG devices (slices, never whole GPUs): the sum of `nvidia.com/mig-*` (mixed
   * strategy), or `nvidia.com/gpu` itself on a node with the single strategy.
   */
  migAllocatable: number;
  /** `status.allocatable` cpu (millicores), memory (bytes) and pods: absent ones count 0, as the scheduler counts them. */
  allocatable: NodeResources;
  /** cpu and memory requested by the pods bound here and not finished (effective requests), and how many they are. */
  requested: NodeResources;
  /** GPUs requested by live pods bound to this node (effective request, Kubernetes rules). */
  gpuRequested: number;
  /** Part of `gpuRequested` held by pods gpuops does not manage. */
  foreignGpuRequested: number;
  /** Live pods bound here that gpuops manages (label `app.kubernetes.io/managed-by: gpuops`). */
  managedPods: number;
  /** Current value of the pool label, or null when absent or not a known pool. */
  pool: Pool | null;
  taints: Taint[];
  /**
   * gpuops's field manager owns a field of the Node (its pool label) that Argo CD's or Flux's
   * applier owns too: patch mode hands it over to Git (`ClusterPatcher.releaseToGit`). Absent: none.
   */
  sharedWithGit?: true;
}

/**
 * GPUs shared by the NVIDIA device plugin (time-slicing or MPS): each physical GPU is advertised
 * `replicas` times as `nvidia.com/gpu`. See `gpuSharing` of `src/cluster/snapshot.ts`.
 */
export interface GpuSharing {
  /** `nvidia.com/gpu.sharing-strategy` (`time-slicing`, `mps`), or `unknown` when not labelled. */
  strategy: string;
  /** Times each physical GPU is advertised (`nvidia.com/gpu.replicas`; 1 when not labelled). */
  replicas: number;
  /** Physical GPUs of the node. */
  physicalGpus: number;
}

/**
 * One `metadata.ownerReferences` entry as a snapshot keeps it. `controller` is true only when the
 * reference says `controller: true` (what kube-controller-manager's controllers write, and what the
 * garbage collector and the controllers' adoption go by); a reference without the flag is not
 * proof that the owner controls the object. `uid` is the owner's uid, when the reference has one.
 */
export interface OwnerRef {
  kind: string;
  name: string;
  controller?: boolean;
  uid?: string;
}

/** One pod of a snapshot. */
export interface PodInfo {
  namespace: string;
  name: string;
  uid: string;
  labels: Record<string, string>;
  /** `spec.nodeName`, or null while unbound. */
  nodeName: string | null;
  phase: 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown';
  /** Ready condition is `True`. */
  ready: boolean;
  /** `metadata.deletionTimestamp` is set. */
  terminating: boolean;
  /** Effective request of a vendor's GPU resource (`nvidia.com/gpu`, `amd.com/gpu`): max(max of init containers, sum of app containers). */
  gpuRequest: number;
  /** Effective cpu and memory requests, by the same rule, plus the pod overhead (`spec.overhead`). */
  requests: CpuMemory;
  /**
   * Effective requests of every other resource but `nvidia.com/gpu` (`ephemeral-storage`,
   * `hugepages-*`, extended resources; `otherRequests` of `requests.ts`); absent when none.
   */
  otherRequests?: Record<string, number>;
  /**
   * Its required pod anti-affinity terms (what kube-scheduler's InterPodAffinity filter holds
   * against every pod that would join it); absent when none.
   */
  antiAffinity?: PodAffinityTerm[];
  /** Label `app.kubernetes.io/managed-by: gpuops`. */
  managed: boolean;
  /** Label `gpuops.dev/algorithm`, or null. */
  algorithm: string | null;
  /**
   * The controller ownerReference (else the first one: dumps written by hand omit the flag),
   * e.g. ReplicaSet, Job; null when none. See {@link OwnerRef}.
   */
  owner: OwnerRef | null;
  /**
   * Annotation `gpuops.dev/claimed-uid`: on a standby pod gpuops claimed, the pod's own uid (the
   * claim patch writes it); absent otherwise.
   */
  claimedUid?: string;
  /** PodScheduled condition is False with reason Unschedulable. */
  unschedulable: boolean;
  /** ISO-8601 creation time. */
  createdAt: string;
  /** `status.startTime` (ISO-8601): when the kubelet accepted the pod; null while unbound. */
  startedAt: string | null;
  /**
   * When the Ready condition last became `True` (its `lastTransitionTime`, ISO-8601); absent when
   * not Ready or not stated. `readyAt − createdAt` is the pod's observed start-up.
   */
  readyAt?: string;
}

/**
 * One ReplicaSet of a snapshot: which Deployment owns it (its controller ownerReference) and which
 * revision of that Deployment it holds. Pod → ReplicaSet → Deployment is how a pod is known to be
 * a Deployment's own, not by labels (another Deployment may carry the same ones).
 */
export interface ReplicaSetInfo {
  namespace: string;
  name: string;
  /** `metadata.uid`; absent when not read (a hand-written dump). */
  uid?: string;
  /** The controller ownerReference (`kind: Deployment`, name), or null for a bare ReplicaSet. */
  owner: OwnerRef | null;
  /** `deployment.kubernetes.io/revision`: the Deployment's revision it holds; null when absent. */
  revision: number | null;
  /** `spec.replicas`: how many pods the Deployment controller wants of it now. */
  replicas: number;
  /**
   * Its `ReplicaFailure` condition when `True`: why the ReplicaSet controller could not create a
   * pod (`FailedCreate: pods "x" is forbidden: exceeded quota: …`, a LimitRange or PodSecurity
   * refusal); absent otherwise.
   */
  failure?: string;
}

/** One HorizontalPodAutoscaler: what it scales and who made it (`cluster/autoscalers.ts`). */
export interface AutoscalerInfo {
  namespace: string;
  name: string;
  /** `spec.scaleTargetRef`: kind (`Deployment`) and name. */
  target: { kind: string; name: string };
  /** Its controller ownerReference (a KEDA `ScaledObject`), or null. */
  owner: { kind: string; name: string } | null;
  /** Labelled `app.kubernetes.io/managed-by: gpuops`. */
  managed: boolean;
}

/** What gpuops saw of the cluster at one moment; stored in the database. */
export interface Snapshot {
  /** ISO-8601 time the snapshot was taken. */
  takenAt: string;
  nodes: NodeInfo[];
  pods: PodInfo[];
  /**
   * Every ReplicaSet, when they were read (a live snapshot; a dump of
   * `kubectl get pods,replicasets -A -o json`); absent otherwise, and in stored snapshots. Without
   * them a pod's Deployment is the one the Deployment controller's naming gives
   * (`<deployment>-<pod-template-hash>`, see `src/cluster/owners.ts`).
   */
  replicaSets?: ReplicaSetInfo[];
  /** Objects that could not be read in full (e.g. an unparseable quantity, counted as 0), naming object and field. */
  warnings?: string[];
  /**
   * Every HorizontalPodAutoscaler, when they were read (a live snapshot; HPAs in a dump); absent
   * otherwise, and in stored snapshots.
   */
  autoscalers?: AutoscalerInfo[];
}

/** Status of a HorizontalPodAutoscaler gpuops generated (replicas). */
export interface HpaStatus {
  currentReplicas: number;
  desiredReplicas: number;
  maxReplicas: number;
}

/** The parts of a Lease's spec the election reads. Times are ISO-8601. */
export interface LeaseView {
  holderIdentity: string | null;
  leaseDurationSeconds: number | null;
  renewTime: string | null;
  acquireTime: string | null;
  leaseTransitions: number;
  resourceVersion: string;
}

/** The spec gpuops writes to its Lease (`decideLease` in `controller/lease-decision.ts` decides it). Times are ISO-8601. */
export interface LeaseSpecOut {
  holderIdentity: string;
  leaseDurationSeconds: number;
  acquireTime: string;
  renewTime: string;
  leaseTransitions: number;
}
