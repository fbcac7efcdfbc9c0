/**
 * kube-scheduler's node scores for a GPU pod of the model (pure; docs/standby.md, "Pool node-hours
 * on the pod groups"): the default profile's two scores that differ between the pool's nodes,
 * each 0–100 and summed with the profile's plugin weights
 * (kubernetes/kubernetes `pkg/scheduler/apis/config/v1/default_plugins.go`):
 * - NodeResourcesFit (weight 1) over the profile's `scoringStrategy.resources` (`fitScore`): the
 *   default profile scores `cpu` and `memory`, weight 1 each, and no extended resource
 *   (`pkg/scheduler/apis/config/v1/defaults.go`, `defaultResourceSpec`); `nvidia.com/gpu` is
 *   scored only when a profile lists it;
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
 * ReplicaSet's own pods apart a little; NodeResourcesBalancedAllocation (weight 1, over cpu and
 * memory: `(1 − |cpu share − memory share| / 2) · 100` with the pod, 100 on every node when the
 * pods ask cpu and memory in one proportion, and skipped for a pod that requests neither,
 * `balanced_allocation.go`); ImageLocality; the random pick among tied nodes
 * (`schedule_one.go`, `selectHost`; the model takes the first by name).
 */

import { NVIDIA } from '../util/index.js';

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
 * A resource NodeResourcesFit may score (`scoringStrategy.resources[].name`; weight 1 each here):
 * `cpu`, `memory` or NVIDIA's GPU resource (the device plugin's).
 */
export type ScoredResource = string;
/** The resources the model can score, in the order they are printed. */
export const SCORED_RESOURCES: readonly ScoredResource[] = ['cpu', 'memory', NVIDIA.resource];
/** The default profile's scored resources (`defaults.go`, `defaultResourceSpec`). */
export const DEFAULT_SCORED_RESOURCES: readonly ScoredResource[] = ['cpu', 'memory'];

/** A pod of the model's cpu and memory requests (it asks 1 GPU); 0: not requested. */
export interface PodRequests {
  cpuMillis: number;
  memoryBytes: number;
}

/**
 * A model node's allocatable cpu and memory per GPU: 8 cores and 64 GiB (a node of 8 GPUs has 64
 * cores and 512 GiB, as the real-control-plane tests' nodes).
 */
export const NODE_PER_GPU: PodRequests = { cpuMillis: 8000, memoryBytes: 64 * 1024 ** 3 };
/** The replay's pods: each asks the node's cpu and memory per GPU, so a node fills on all three at once. */
export const PROPORTIONAL_POD: PodRequests = NODE_PER_GPU;
/** A pod that asks GPUs alone (no cpu or memory request). */
export const GPU_ONLY_POD: PodRequests = { cpuMillis: 0, memoryBytes: 0 };
/**
 * What NodeResourcesFit counts for a container that requests no cpu or memory: 100 millicores and
 * 200 MiB (`pkg/scheduler/util`, `DefaultMilliCPURequest`, `DefaultMemoryRequest`; NodeResourcesFit
 * scores the non-zero requests, `resource_allocation.go`).
 */
export const NON_ZERO_DEFAULTS: PodRequests = { cpuMillis: 100, memoryBytes: 200 * 1024 ** 2 };

/** kube-scheduler's NodeResourcesFit as the model scores it: the strategy, the resources, the pods' requests. */
export interface FitProfile {
  strategy: FitScoring;
  resources: readonly ScoredResource[];
  /** Every pod's requests; default {@link PROPORTIONAL_POD}. */
  pod?: PodRequests;
}

/** `s` as a profile: a bare strategy scores the default profile's resources with the replay's pods. */
export function fitProfile(s: FitScoring | FitProfile): FitProfile {
  return typeof s === 'string' ? { strategy: s, resources: DEFAULT_SCORED_RESOURCES } : s;
}

/** The profile in words, for a replay's header (e.g. `LeastAllocated over cpu,memory`). */
export function fitProfileText(s: FitScoring | FitProfile): string {
  const p = fitProfile(s);
  const pod = p.pod ?? PROPORTIONAL_POD;
  const asks =
    pod.cpuMillis === 0 && pod.memoryBytes === 0
      ? 'pods ask GPUs only'
      : pod === PROPORTIONAL_POD
        ? 'pods ask cpu and memory in proportion to their GPUs, 8 cores and 64 GiB per GPU'
        : `pods ask ${pod.cpuMillis} m cpu and ${pod.memoryBytes} B memory`;
  return `NodeResourcesFit ${p.strategy} over ${p.resources.join(',')} (${asks})`;
}

/**
 * `--scored-resources`'s list (comma-separated, each of {@link SCORED_RESOURCES} once).
 * @throws Error naming the flag and the bad entry
 */
export function parseScoredResources(text: string): ScoredResource[] {
  const names = text.split(',').map((x) => x.trim());
  const out: ScoredResource[] = [];
  for (const n of names) {
    if (!SCORED_RESOURCES.includes(n))
      throw new Error(`--scored-resources: "${n}" is not one of ${SCORED_RESOURCES.join(', ')}`);
    if (out.includes(n)) throw new Error(`--scored-resources: "${n}" listed twice`);
    out.push(n);
  }
  return out;
}

/**
 * NodeResourcesFit's score of a node of `gpus` GPUs with `used` held by pods of the model (every
 * pod alike: 1 GPU and the profile's cpu and memory requests), for one more such pod, on the
 * kubernetes formulas (`noderesources/least_allocated.go`, `most_allocated.go`,
 * `resource_allocation.go`): per scored resource r, with the node's allocatable A and the requests
 * R of its pods and the incoming pod (cpu and memory at their non-zero defaults when a pod asks
 * none), `LeastAllocated` ⌊(A − R) · 100 / A⌋ (0 when R > A) and `MostAllocated` ⌊min(R, A) · 100
 * / A⌋; the node's score is ⌊Σ score · weight / Σ weight⌋. With pods that ask cpu and memory in the
 * node's proportion every resource gives the GPUs' score; with pods that ask GPUs alone cpu and
 * memory barely move and nodes tie.
 * @throws Error when the pod's GPU does not fit
 */
export function fitScore(scoring: FitScoring | FitProfile, gpus: number, used: number): number {
  const p = fitProfile(scoring);
  if (used + 1 > gpus) throw new Error(`a pod of 1 GPU does not fit ${used} of ${gpus} held`);
  const pod = p.pod ?? PROPORTIONAL_POD;
  const pods = used + 1;
  let sum = 0;
  for (const r of p.resources) {
    const [allocatable, requested] =
      r === NVIDIA.resource
        ? [gpus, pods]
        : r === 'cpu'
          ? [gpus * NODE_PER_GPU.cpuMillis, pods * (pod.cpuMillis || NON_ZERO_DEFAULTS.cpuMillis)]
          : [gpus * NODE_PER_GPU.memoryBytes, pods * (pod.memoryBytes || NON_ZERO_DEFAULTS.memoryBytes)];
    const share =
      p.strategy === 'LeastAllocated'
        ? Math.max(0, allocatable - requested)
        : Math.min(requested, allocatable);
    sum += Math.floor((share * MAX_NODE_SCORE) / allocatable);
  }
  return p.resources.length === 0 ? 0 : Math.floor(sum / p.resources.length);
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
