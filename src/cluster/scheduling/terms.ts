/**
 * The pod affinity term (pure type), apart from `pod-constraints.ts` so the snapshot's `PodInfo`
 * (`cluster/types.ts`) can carry a pod's anti-affinity terms without an import circle.
 */
import type { LabelSelector } from './selectors.js';

/** A required `PodAffinityTerm` (https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/pod-v1/#affinity-v1-core). */
export interface PodAffinityTerm {
  /** Null or absent selects no pod. */
  labelSelector?: LabelSelector | null;
  /** Namespaces the term looks in; with no `namespaceSelector` and none listed: the pod's own. */
  namespaces?: string[];
  /** `{}` selects every namespace. */
  namespaceSelector?: LabelSelector | null;
  topologyKey: string;
}
