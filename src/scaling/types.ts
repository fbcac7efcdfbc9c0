import type { PodInfo } from '../cluster/index.js';
import type { NodeRoom, PodRequest } from './fit.js';
import type { Pool, ResolvedAlgorithm } from '../definitions/index.js';
import type { DecisionRecord } from '../store/index.js';
import type { LoopDelays } from './loop-windows.js';

/** What one scaling decision does. `relabel`: unused nodes move into the pool (then scale up). */
export type ScalingAction = 'scale-up' | 'scale-down' | 'relabel' | 'hold';

/** Machine reasons of a scaling decision. */
export type ScalingReason =
  | 'AboveMax'
  | 'HeadroomShort'
  | 'HeadroomSpare'
  | 'BelowMin'
  | 'WithinRange'
  | 'AtMaxReplicas'
  | 'AtMinReplicas'
  | 'NoCapacity'
  | 'RelabelUnusedNode'
  | 'InsufficientSamples'
  | 'PartialData'
  | 'NoData'
  | 'CooldownActive'
  | 'StabilizationWindow'
  | 'WouldFlap'
  | 'RecentPeak'
  | 'PodsStarting'
  | 'ReplicasRefused'
  | 'OtherAutoscaler'
  | 'HPAOwnsReplicas'
  | 'NotPlaced'
  | 'PlacementPending'
  | 'ScaledToZero'
  | 'BelowMinReplicas'
  | 'AboveMaxReplicas';

/** One `scaling[]` entry of `plan`. `utilization` is percent, null without usable data. */
export interface ScalingDecision {
  algorithm: string;
  action: ScalingAction;
  replicas: { from: number; to: number };
  utilization: number | null;
  /** Unused nodes moved into the algorithm's pool (only with `relabel`). */
  nodes: string[];
  reason: ScalingReason;
  message: string;
  /**
   * The Ready pods `utilization` was judged over (R of the message's "over S of R Ready pod(s)"),
   * recorded with the decision (`DecisionRecord.readyPods`) for the readers of recorded load
   * (`recentPeak`, the standby hold). Absent when the decision was made before or without judging
   * the Ready pods (paused, not placed, another autoscaler, replica limits, refused, no data, the
   * HPA's pool growth: `decideOnFacts`): those readers then count `replicas.from`, as they did
   * when only the message carried the count.
   */
  readyPods?: number;
  /**
   * What `utilization` and the band are, when not `gpuUtil` in percent: the signal, its unit and,
   * for a service metric, its name (absent: `gpuUtil`, percent).
   */
  signal?: { kind: string; unit: string; metric?: string };
  /**
   * For an algorithm of a standby set (docs/standby.md, "Claims and Git"): how standby pods carry
   * the decision. Absent: no standby set serves it, and Git's replicas are `replicas`.
   */
  standby?: StandbySplit;
}

/**
 * The part standby pods take of one decision (`planStandby`). `claimed` of `replicas.from` are pods
 * gpuops claimed from `set` earlier, so the Deployment's replicas in Git are `from − claimed`;
 * the pass claims `claim` Ready standbys and gives `giveBack` claimed pods back, and the Deployment
 * in Git goes to `from − claimed + deployment` (`gitReplicas`). Git's replicas plus the claimed
 * pods are then the decision's `to`: `from + claim − giveBack + deployment = to`.
 */
export interface StandbySplit {
  set: string;
  claimed: number;
  claim: number;
  giveBack: number;
  deployment: number;
}

/** One GPU utilisation sample of one pod, attributed (percent, 0..100; `at` ISO-8601). */
export interface PodSample {
  namespace: string;
  pod: string;
  /** Percent 0..100 averaged over the pod's GPUs. */
  utilization: number;
  at: string;
  /** GPU UUIDs the sample covers. */
  gpus: string[];
  /**
   * The source's own history over the scale-down stabilisation window, when it sent one (see
   * `GpuSeries.window`): the highest utilisation of the window (percent; for a pod of several
   * GPUs the mean of their highest, never below the true highest mean) and how far back the
   * evidence reaches before the answer's evaluation time (seconds; null: it began inside the window).
   */
  window?: { max: number; coveredSeconds: number | null };
}

/* ---- Additions (scaling engineer): attribution, capacity and decision inputs. ---- */

/** Why a GPU series did not become part of any pod's sample. */
export type DropReason =
  | 'WrongMetric'
  | 'NotFinite'
  | 'OutOfRange'
  | 'Stale'
  | 'NoPod'
  | 'UnknownPod'
  | 'PodNotReady'
  | 'PodTerminating'
  | 'NotManaged'
  | 'NotOwned'
  | 'SharedGpu'
  | 'Duplicate'
  | 'WrongNode'
  | 'UnknownNode'
  | 'TooManyGpus'
  | 'SharedDevice'
  | 'SeveralSeries';

/** One dropped series: which GPU, which pod (if any), why. */
export interface DroppedSeries {
  gpu: string;
  namespace: string;
  pod: string;
  reason: DropReason;
  message: string;
  /** With `Stale`: the newest sample's age at the answer's evaluation time (seconds). */
  ageSeconds?: number;
}

/** Something odd in the data that does not drop it alone. */
export interface AttributionFlag {
  kind: 'TimeSlicedGpu';
  /** GPU key (UUID, plus the MIG instance when present). */
  gpu: string;
  /** `namespace/pod` of every pod reported on that GPU, sorted. */
  pods: string[];
  /** The pod the GPU was counted for (the first of `pods`). */
  countedFor: string;
  message: string;
}

/** The attributed data of one algorithm. */
export interface AlgorithmAttribution {
  algorithm: string;
  /** One per counted pod: the mean of its GPUs, in percent. */
  samples: PodSample[];
  flags: AttributionFlag[];
  dropped: DroppedSeries[];
}

/** A GPU reported with no pod: belongs to no algorithm, but is busy when its value is > 0. */
export interface UnattributedGpu {
  gpu: string;
  /** Node from the series' `node` label, or the exporter's `Hostname`. */
  host: string;
  /** Percent. */
  utilization: number;
}

/** Result of `attribute`. */
export interface Attribution {
  /** Keyed by algorithm name (`gpuops.dev/algorithm`). */
  byAlgorithm: Map<string, AlgorithmAttribution>;
  unattributed: UnattributedGpu[];
  /** Series dropped before any algorithm was known (bad value, stale, unknown pod, …). */
  dropped: DroppedSeries[];
  flags: AttributionFlag[];
}

/**
 * What one GPU node offers new pods (Ready, schedulable): free whole GPUs, and the cpu, memory and
 * pod slots left, so a replica is placed only where its whole request fits (`replicasThatFit`).
 */
export interface NodeCapacity extends NodeRoom {
  node: string;
  pool: Pool | null;
  gpuProduct: string | null;
  /** Whole GPUs the node has in all (allocatable; physical GPUs when shared): its size, for picking the smallest that fits. */
  allocatableGpus: number;
  /** Allocatable minus requested by ANY live pod bound there (GPUs, ≥ 0); 0 when the node takes no new pods. */
  freeGpus: number;
}

/** State of the algorithm's HorizontalPodAutoscaler, with `engine: hpa`. */
export interface HpaState {
  currentReplicas: number;
  desiredReplicas: number;
  maxReplicas: number;
}

/**
 * Everything `decideOne` needs about one algorithm. All counts are replicas or whole GPUs; all
 * times ISO-8601.
 */
export interface ScalingInput {
  algorithm: ResolvedAlgorithm;
  /** The pool its Deployment is pinned to, or null when not placed yet. */
  pool: Pool | null;
  /** `spec.replicas` of its Deployment in Git (the HPA's current replicas with engine hpa). */
  replicas: number;
  /**
   * Its pods in the snapshot, any phase: those its Deployment owns (Pod → ReplicaSet →
   * Deployment, `src/cluster/owners.ts`), never a pod of another Deployment with the same labels.
   */
  pods: readonly PodInfo[];
  /**
   * Name of the ReplicaSet of the Deployment's current revision, when known; during a rolling
   * update only its pods count, so surge pods of the old one are not replicas.
   */
  currentReplicaSet?: string | null;
  /** Attributed samples (from `attribute`); pods not in `pods` are ignored. */
  samples: PodSample[];
  flags?: AttributionFlag[];
  /** Nodes of its pool (all of them, also full ones). */
  poolNodes: NodeCapacity[];
  /** Nodes of the `unused` pool. */
  unusedNodes: NodeCapacity[];
  /** Recorded decisions (kind `scaling`, this algorithm), any order; see `historySince`. */
  recent: DecisionRecord[];
  /** Why there is no data at all, when the source failed (message of the reading). */
  noDataMessage?: string | null;
  /**
   * Why the reading may lack some of its series, when the store said so (a partial answer:
   * `the metrics store answered in part: "<warning>"`); null or absent: a whole answer.
   */
  partialData?: string | null;
  /** Series of its pods that were dropped, counted by reason (`Stale: 2 (oldest 600 s)`), or null. */
  dropped?: string | null;
  /** With engine hpa. */
  hpa?: HpaState | null;
  /**
   * Autoscalers other than gpuops that scale its Deployment, described (`otherAutoscalers` of
   * `cluster/autoscalers.ts`); absent or `[]`: none.
   */
  otherAutoscalers?: string[];
  /**
   * Why the API server refuses its pods: the `ReplicaFailure` condition of its Deployment's
   * ReplicaSets (`OwnerIndex.refusal`), or null / absent when none reports one.
   */
  refusal?: string | null;
  /**
   * Headroom sizing shared across a pool: the summed load (GPUs) of every headroom-sized algorithm
   * of its pool, its own included (`decideInTurn` fills it); absent: its own load alone.
   */
  poolLoadGpus?: number;
  /**
   * What one replica asks of its node (the effective requests of the Deployment's pod template in
   * Git); absent: the spec's `resources` (`specRequest` of `fit.ts`).
   */
  request?: PodRequest;
  /**
   * The GPU products (`nvidia.com/gpu.product`) its replicas run on, and whether only there (see
   * `ProductChoice`); absent: none known (the pool's own product is preferred for node moves).
   */
  products?: ProductChoice;
  /**
   * The delays of the loop deciding it (`gpuops run`: sample age, reaction, the algorithm's
   * observed start-up): its windows follow them (`withLoopWindows`); absent: the policy's windows.
   */
  loop?: LoopDelays;
  /**
   * Where its replicas can go as kube-scheduler's filters judge its pod (`placerOf`); absent:
   * capacity alone answers (free GPUs, cpu, memory and pod slots of the pool's nodes).
   */
  placer?: Placer;
}

/**
 * Where replicas of one algorithm can go (`scaling/placer.ts`): kube-scheduler's filters for its
 * pod, replica after replica. Nodes are judged as members of `pool` (its pool label set to it).
 */
export interface Placer {
  /** Replicas placed on `nodes`, one after another, at most `limit`. */
  slots(nodes: readonly NodeCapacity[], pool: Pool | null, limit: number): number;
  /** The predicted placement of at most `count` replicas: node → replicas. */
  place(nodes: readonly NodeCapacity[], pool: Pool | null, count: number): Map<string, number>;
  /** Why the node takes no replica now, in kube-scheduler's words (`[]`: it takes one). */
  refusals(node: NodeCapacity, pool: Pool | null): string[];
  /** What it reads, as comparable text (a remembered decision compares it). */
  key: string;
}

/** A recorded decision, as the store keeps it (cooldowns and stabilisation read it back). */
export type { DecisionRecord } from '../store/index.js';

/** One per-pod sample to store (utilization in percent, `at` ISO-8601). */
export type { UtilizationSampleRecord as AlgorithmSample } from '../store/index.js';

/** The GPU products an algorithm's replicas run on, as scaling reads them. */
export interface ProductChoice {
  /** `nvidia.com/gpu.product` values: those the spec names, else those it was benchmarked on. */
  products: readonly string[];
  /**
   * True when the Deployment's pods may run only there (a required node affinity on
   * `nvidia.com/gpu.product`): a node of another product is never moved. False: a preference.
   */
  required: boolean;
}
