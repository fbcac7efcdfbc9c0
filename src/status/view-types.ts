/**
 * The shapes of the status page's view model (`model.ts` builds it) and of what it is built from.
 */
import type { Snapshot } from '../cluster/index.js';
import type { Pool } from '../definitions/index.js';
import type {
  DecisionRecord,
  FleetStatusRecord,
  PullRequestCycle,
  PullRequestRecord,
  UtilizationSampleRecord,
} from '../store/index.js';
import type { CacheResourceState, StatusCacheResource } from './cache-health.js';
import type { HEALTH_DEFAULTS, HealthCause, HealthSummary } from './health.js';

/** One node of a pool. GPU counts are whole GPUs. */
export interface StatusNode {
  name: string;
  gpuProduct: string | null;
  /** GPUs a new pod can get now (0 while NotReady or cordoned). */
  freeGpus: number;
  allocatableGpus: number;
  /** `NotReady`, `cordoned`, …, or null when healthy. */
  condition: string | null;
  /**
   * The node's pool label in the cluster when it differs from the pool shown (the pass's decision,
   * waiting for its pull request to be merged and synced), else null.
   */
  labelPending: string | null;
}

/** A GPU node in no pool, and why. */
export interface LeftOutNode {
  name: string;
  gpuProduct: string | null;
  reason: string;
  message: string;
}

/** One bucket of the utilisation chart (percent over the pod samples of the bucket). */
export interface ChartPoint {
  /** Bucket start, epoch seconds. */
  t: number;
  mean: number;
  min: number;
  max: number;
}

/** A point where gpuops scaled the algorithm or moved a node for it. */
export interface ChartMarker {
  /** Epoch seconds. */
  t: number;
  action: string;
  label: string;
}

/**
 * One algorithm's utilisation chart (`statusAlgorithms` builds it, `renderChart` draws it): the
 * mean, min and max of its pods' GPU utilisation samples per bucket (percent, 0–100: by default the DCGM field
 * `DCGM_FI_DEV_GPU_UTIL`), the scaling band, and the points where
 * gpuops scaled it or moved a node for it.
 */
export interface UtilizationChart {
  /** Window start, epoch seconds: the window is the shortest of 15 min … 24 h that holds the samples and markers. */
  from: number;
  /** Window end, epoch seconds (the view's `generatedAt`). */
  to: number;
  /** Width of one bucket of {@link points} (seconds). */
  bucketSeconds: number;
  /** Spacing of the time axis's ticks (seconds), labelled HH:MM UTC. */
  tickSeconds: number;
  /** The scaling band's lower bound (`scaling.utilization.min`, percent); null without a fleet record. */
  bandMin: number | null;
  /** The scaling band's upper bound (`scaling.utilization.max`, percent); null without a fleet record. */
  bandMax: number | null;
  /** One point per bucket that holds a sample, oldest first. */
  points: ChartPoint[];
  /** The scale changes and node moves inside the window, oldest first. */
  markers: ChartMarker[];
}

/**
 * One algorithm on the status page, as the newest pass recorded it (`FleetStatusRecord`) or, with
 * samples but no record, with its chart only (every other field null or `Unknown`).
 */
export interface StatusAlgorithm {
  /** The Algorithm's `metadata.name`. */
  name: string;
  /** `long-task` or `short-task` as placed, or null (not placed yet, or unknown). */
  pool: string | null;
  /** Median benchmark run time (seconds), or null without a successful benchmark. */
  runTimeSeconds: number | null;
  /** The policy's `placement.longTaskThresholdSeconds`, or null without a fleet record. */
  thresholdSeconds: number | null;
  /** How the run time compares with the threshold: `above` → long-task, `at-or-below` → short-task. */
  side: 'above' | 'at-or-below' | null;
  /** The placement's reason (`BenchmarkPending`, `BenchmarkFailed`, `Pinned`, …) and message. */
  placementReason: string;
  placementMessage: string;
  /** The replicas the newest pass's scaling decision asked for (`replicas.to`), or null without one. */
  replicas: number | null;
  /** `scaling.minReplicas` and `scaling.maxReplicas` of its spec (policy defaults applied). */
  minReplicas: number | null;
  maxReplicas: number | null;
  /** The newest scaling decision's machine reason (`ScaledUp`, `NoCapacity`, …) and message; null: none. */
  scalingReason: string | null;
  scalingMessage: string | null;
  /** Why the Deployment is held out of Git (a failed model cache fill), as the pass recorded it. */
  held?: { reason: string; message: string };
  /** Its utilisation over the chart window. */
  chart: UtilizationChart;
}

/** A benchmark pod still in progress in the snapshot (`statusBenchmarks`). */
export interface StatusBenchmark {
  /** The algorithm it measures (its `gpuops.dev/algorithm` label), or `(unknown)`. */
  algorithm: string;
  /** `<namespace>/<name>` of the pod. */
  pod: string;
  /** The node it was scheduled on (`spec.nodeName`), or null while Pending unscheduled. */
  node: string | null;
  /** The Pod's `status.phase` (`Pending`, `Running`). */
  phase: string;
  /** When the pod was created (`metadata.creationTimestamp`, ISO-8601). */
  startedAt: string;
}

/** An open pull request gpuops opened (a branch, with the plain git provider), from the store. */
export interface StatusPullRequest {
  /** Its number on the host; null with the plain git provider (a branch, no pull request). */
  number: number | null;
  /** Its page on the host; null with the plain git provider. */
  url: string | null;
  title: string;
  /** `gpuops/<cluster>/<kind>/<subject>`. */
  branch: string;
  /** `pools`, `placement`, `scale` or `standby`. */
  kind: string;
  /** `pools`, the algorithm name, or the standby set's name. */
  subject: string;
  /** When it was opened or last updated (ISO-8601). */
  updatedAt: string;
}

/** One recorded decision of the decisions list, as the store holds it (`DecisionRecord`). */
export interface StatusDecision {
  /** When the pass that made it ran (ISO-8601). */
  at: string;
  /** `pools`, `placement` or `scaling`. */
  kind: string;
  /** The algorithm name, or `pools`. */
  subject: string;
  /** What was decided (`scale-up`, `scale-down`, `relabel`, `hold`, …). */
  action: string;
  /** The machine reason (`ScaledDown`, `NoFreeCapacity`, …) and the human message beside it. */
  reason: string;
  message: string;
}

/** Everything the status page shows. Times ISO-8601 UTC. */
export interface StatusView {
  cluster: string;
  /** The line at the top: healthy or not, and why (see health.ts). */
  health: HealthSummary;
  generatedAt: string;
  /** Time of the snapshot shown, or null when the database holds none. */
  snapshotAt: string | null;
  /** Time of the newest pass that wrote, or null. */
  passAt: string | null;
  pools: { pool: Pool; nodes: StatusNode[]; freeGpus: number; allocatableGpus: number }[];
  leftOut: LeftOutNode[];
  /** Nodes without any GPU (not listed one by one). */
  nodesWithoutGpu: number;
  algorithms: StatusAlgorithm[];
  benchmarks: StatusBenchmark[];
  openPullRequests: StatusPullRequest[];
  decisions: StatusDecision[];
  /**
   * The running controller's watch-driven cluster cache, one row per resource; null when the view
   * was read from the database alone (`gpuops status` without `--controller-url`), which does not
   * know it.
   */
  cache: StatusCacheResource[] | null;
}

/** What {@link buildStatusView} reads. */
export interface StatusInput {
  cluster: string;
  now: Date;
  snapshot: Snapshot | null;
  fleet: FleetStatusRecord | null;
  /** Samples of each algorithm over the chart window. */
  samples: ReadonlyMap<string, readonly UtilizationSampleRecord[]>;
  /** Scaling decisions of each algorithm over the chart window. */
  history: ReadonlyMap<string, readonly DecisionRecord[]>;
  pullRequests: readonly PullRequestRecord[];
  /** The newest decisions (any subject), newest first. */
  recentDecisions: readonly DecisionRecord[];
  /** Pull request cycles (for when an open one was opened); default: the records' update times. */
  pullRequestCycles?: readonly PullRequestCycle[];
  /** Causes other parts know (the Git writer), added to the built-in ones. */
  healthCauses?: readonly HealthCause[];
  /**
   * The running controller's cluster cache (`ClusterCache.state()`): its section, and its
   * `ClusterCacheNotSynced` cause while a resource is not synced. Absent: not known (cache null).
   */
  cache?: readonly CacheResourceState[];
  /** Thresholds of the built-in health rules; default {@link HEALTH_DEFAULTS}. */
  health?: Partial<typeof HEALTH_DEFAULTS>;
}
