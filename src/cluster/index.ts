/**
 * The Kubernetes side: the snapshot model (nodes, pods, owners, quantities, taints, MIG), the
 * watch cache and its reflectors, the API clients (Jobs, patches, Leases) and the kubeconfig.
 */
// Re-exports written by scripts/faces.ts from what the other folders import (run it; do not edit the list).
export { reduceAutoscaler } from './autoscalers.js';
export { benchmarkInProgress, isBenchmarkPod, nodesRunningBenchmarks } from './benchmark-pods.js';
export { registerClusterCacheMetrics } from './cache-metrics.js';
export { createClusterCache } from './cache.js';
export type { ClusterCache } from './cache.js';
export { createKubeJobApi } from './jobs.js';
export type { ContainerView, JobApi, JobView, PodView } from './jobs.js';
export { createKubeClient } from './kube-client.js';
export type { KubeClient } from './kube-client.js';
export { KubeApiError, statusOf } from './kube-errors.js';
export { loadKubeConfig } from './kubeconfig.js';
export { kubeLeaseApi } from './lease.js';
export type { LeaseApi } from './lease.js';
export type { KubeObject } from './object.js';
export { createClusterPatcher } from './patch.js';
export type { ClusterPatcher, PatchResult } from './patch.js';
export { parseQuantity, QuantityError } from './quantity.js';
export { effectiveRequest } from './requests.js';
export type { CpuMemory, NodeResources } from './requests.js';
export { interPodRefusal, interPodState } from './scheduling/inter-pod-affinity.js';
export type { PlacedPod } from './scheduling/inter-pod-affinity.js';
export { matchesNodeAffinity, nodeRefusal, REFUSAL } from './scheduling/node-filters.js';
export type { FilterNode } from './scheduling/node-filters.js';
export { dependsOnPods, podConstraintsOf, requiredAntiAffinity } from './scheduling/pod-constraints.js';
export type { PodConstraints } from './scheduling/pod-constraints.js';
export { resourceRefusals } from './scheduling/resource-fit.js';
export type { ResourceList } from './scheduling/resource-fit.js';
export { spreadRefusal, spreadState } from './scheduling/topology-spread.js';
export type { SpreadPod } from './scheduling/topology-spread.js';
export { buildSnapshot } from './snapshot.js';
export type { NodeInput, PodInput, ReplicaSetInput, SnapshotOptions } from './snapshot.js';
export { cacheSource, listingSource } from './source.js';
export type { ClusterSource } from './source.js';
export { createStandbyPods } from './standby-pods.js';
export type { StandbyPods, StandbyPodsOptions } from './standby-pods.js';
export { toleratesTaint } from './taints.js';
export type { Toleration } from './taints.js';
export type {
  GpuSharing,
  HpaStatus,
  LeaseSpecOut,
  LeaseView,
  NodeInfo,
  PodInfo,
  ReplicaSetInfo,
  Snapshot,
  Taint,
} from './types.js';
