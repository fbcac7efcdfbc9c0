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

export interface UtilizationChart {
  /** Window, epoch seconds: the shortest of 15 min … 24 h that holds the samples and markers. */
  from: number;
  to: number;
  /** Width of one bucket of {@link points} (seconds). */
  bucketSeconds: number;
  /** Spacing of the time axis's ticks (seconds), labelled HH:MM UTC. */
  tickSeconds: number;
  /** The scaling band (percent). */
  bandMin: number | null;
  bandMax: number | null;
  points: ChartPoint[];
  markers: ChartMarker[];
}

export interface StatusAlgorithm {
  name: string;
  pool: string | null;
  runTimeSeconds: number | null;
  thresholdSeconds: number | null;
  /** How the run time compares with the threshold: `above` → long-task, `at-or-below` → short-task. */
  side: 'above' | 'at-or-below' | null;
  /** The placement's reason (`BenchmarkPending`, `BenchmarkFailed`, `Pinned`, …) and message. */
  placementReason: string;
  placementMessage: string;
  replicas: number | null;
  minReplicas: number | null;
  maxReplicas: number | null;
  scalingReason: string | null;
  scalingMessage: string | null;
  /** Why the Deployment is held out of Git (a failed model cache fill), as the pass recorded it. */
  held?: { reason: string; message: string };
  chart: UtilizationChart;
}

export interface StatusBenchmark {
  algorithm: string;
  pod: string;
  node: string | null;
  phase: string;
  startedAt: string;
}

export interface StatusPullRequest {
  number: number | null;
  url: string | null;
  title: string;
  branch: string;
  kind: string;
  subject: string;
  updatedAt: string;
}

export interface StatusDecision {
  at: string;
  kind: string;
  subject: string;
  action: string;
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
