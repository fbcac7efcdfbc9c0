/**
 * kube-scheduler's node scores for a GPU pod of the model (pure; docs/standby.md, "Pool node-hours
 * on the pod groups"): the default profile's two scores that differ between the pool's nodes,
 * each 0–100 and summed with the profile's plugin weights
 * (kubernetes/kubernetes `pkg/scheduler/apis/config/v1/default_plugins.go`):
 * - NodeResourcesFit (weight 1), with the node's GPUs as the resource scored
 *   (`pkg/scheduler/framework/plugins/noderesources`): `LeastAllocated` (the default) scores
 *   ⌊(allocatable − requested) · 100 / allocatable⌋, `MostAllocated` (bin packing)
 *   ⌊requested · 100 / allocatable⌋, the incoming pod's request included;
 * - InterPodAffinity (weight 2, `pkg/scheduler/framework/plugins/interpodaffinity/scoring.go`): per
 *   node the weights of the preferred pod affinity terms that match a pod bound there, the incoming
 *   pod's terms against each existing pod and each existing pod's terms against the incoming one
 *   (symmetry), then normalised over the feasible nodes to ⌊100 · (s − min) / (max − min)⌋ (0 on
 *   every node when max = min).
 * The terms are the standby pod's (`manifests/standby.ts`, `standbyPodAffinity`): one towards pods
 * labelled `gpuops.dev/algorithm`, one towards pods labelled `gpuops.dev/standby`, each of weight
 * W, per host. A pool node's pods are the algorithms' replicas (matched by the first term, no term
 * of their own) and the standby and claimed pods (they carry both terms; a standby is matched by
 * the second, a claimed pod by the first). So an incoming standby counts W per replica and 2W per
 * standby or claimed pod (its term matches them, and their second term matches it); an incoming
 * replica counts W per standby or claimed pod (their first term matches it) and nothing for other
 * replicas. A pool with no pod carrying the terms (the HPA baseline, gpuops without standby) scores
 * 0 on affinity everywhere: the plain NodeResourcesFit order.
 * Not modelled (the same on both sides): PodTopologySpread's system default constraints (weight 2,
 * per host and zone, among the pods of one ReplicaSet or Service, `ScheduleAnyway`), which pull a
 * ReplicaSet's own pods apart a little; NodeResourcesBalancedAllocation (constant with one
 * resource); ImageLocality; the random pick among tied nodes (the model takes the first by name).
 */

/** The default profile's plugin weights of the two scores (`default_plugins.go`). */
export const PLUGIN_WEIGHTS = { NodeResourcesFit: 1, InterPodAffinity: 2 } as const;
/** The API's highest node score of a plugin (`framework.MaxNodeScore`). */
export const MAX_NODE_SCORE = 100;

/** kube-scheduler's NodeResourcesFit scoring strategy of the model. */
export type FitScoring = 'LeastAllocated' | 'MostAllocated';

/** A pool node's pods, as the standby's pod affinity terms see them. */
export interface AffinityCounts {
  /** Replicas of the algorithms (matched by the terms, carrying none). */
  replicas: number;
  /** Standby and claimed pods (carrying the terms). */
  carrying: number;
}

/**
 * NodeResourcesFit's score of a node of `allocatable` GPUs with `used` held, for a pod of one GPU.
 * @throws Error when the pod does not fit
 */
export function fitScore(scoring: FitScoring, allocatable: number, used: number): number {
  const requested = used + 1;
  if (requested > allocatable) throw new Error(`a pod of 1 GPU does not fit ${used} of ${allocatable} held`);
  const share = scoring === 'LeastAllocated' ? allocatable - requested : requested;
  return Math.floor((share * MAX_NODE_SCORE) / allocatable);
}

/**
 * InterPodAffinity's raw score of a node holding `c` for an incoming pod that carries the terms
 * (a standby) or not (a replica), each term of `weight` (see the module comment).
 */
export function affinityRaw(c: AffinityCounts, incomingCarries: boolean, weight: number): number {
  return incomingCarries ? weight * (c.replicas + 2 * c.carrying) : weight * c.carrying;
}

/** InterPodAffinity's `NormalizeScore` of the feasible nodes' raw scores (see the module comment). */
export function normaliseAffinity(raw: readonly number[]): number[] {
  const min = Math.min(...raw);
  const max = Math.max(...raw);
  return raw.map((s) => (max > min ? Math.floor((MAX_NODE_SCORE * (s - min)) / (max - min)) : 0));
}

/** A feasible node's total: Σ plugin weight × the plugin's score. */
export function nodeScore(fit: number, affinity: number): number {
  return PLUGIN_WEIGHTS.NodeResourcesFit * fit + PLUGIN_WEIGHTS.InterPodAffinity * affinity;
}
