/**
 * The status page's view model (pure): built from what the database holds — the newest snapshot,
 * the newest pass's fleet status, utilisation samples, decisions and pull requests — and `now`.
 * The HTML, text and JSON outputs all render this one object, so they always agree.
 */
import type { NodeInfo, Snapshot } from '../cluster/types.js';
import { freeGpus } from '../pools/capacity.js';
import { ineligibility } from '../pools/eligibility.js';
import { POOLS, type Pool } from '../definitions/types.js';
import type {
  DecisionRecord,
  FleetStatusRecord,
  PullRequestCycle,
  PullRequestRecord,
  UtilizationSampleRecord,
} from '../store/types.js';
import {
  cacheHealthCauses,
  statusCacheRows,
  type CacheResourceState,
  type StatusCacheResource,
} from './cache-health.js';
import { chartScale } from './chart-scale.js';
import { unplaceable } from './unplaceable.js';
import {
  HEALTH_DEFAULTS,
  healthCauses,
  summarizeHealth,
  type HealthCause,
  type HealthSummary,
} from './health.js';
import { GPUOPS } from '../util/vocabulary.js';
import { benchmarkInProgress } from '../cluster/benchmark-pods.js';

/** Longest window of the utilisation chart (seconds): the last 24 h; shorter when the data is. */
export const CHART_WINDOW_SECONDS = 24 * 3600;

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

/** Actions that change an algorithm's replicas or its pool's nodes: the chart marks them. */
const MARKED_ACTIONS = new Set(['scale-up', 'scale-down', 'relabel']);

const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * The end of the chart window: `now`, or the newest pass when that is later (a simulated clock
 * runs ahead of the wall clock; its last 24 h end at its own now).
 */
export function chartEnd(now: Date, fleet: FleetStatusRecord | null): number {
  const passMs = fleet ? Date.parse(fleet.at) : Number.NaN;
  return Math.floor(Math.max(now.getTime(), Number.isNaN(passMs) ? 0 : passMs) / 1000);
}

/**
 * Buckets pod samples into `bucketSeconds` slots over `[from, to]` (epoch seconds): each bucket's
 * mean, min and max over the samples in it; empty buckets are left out (the chart draws a gap,
 * never a 0 %). Samples outside the window are ignored.
 */
export function bucketSamples(
  samples: readonly Pick<UtilizationSampleRecord, 'utilization' | 'at'>[],
  from: number,
  to: number,
  bucketSeconds: number,
): ChartPoint[] {
  const buckets = new Map<number, number[]>();
  for (const s of samples) {
    const t = Date.parse(s.at) / 1000;
    if (!(t >= from && t <= to)) continue;
    const start = from + Math.floor((t - from) / bucketSeconds) * bucketSeconds;
    const list = buckets.get(start) ?? [];
    list.push(s.utilization);
    buckets.set(start, list);
  }
  return [...buckets]
    .sort(([a], [b]) => a - b)
    .map(([t, v]) => ({
      t,
      mean: round1(v.reduce((x, y) => x + y, 0) / v.length),
      min: round1(Math.min(...v)),
      max: round1(Math.max(...v)),
    }));
}

/** Chart markers of the decisions that scaled or moved nodes, within `[from, to]`. */
export function chartMarkers(decisions: readonly DecisionRecord[], from: number, to: number): ChartMarker[] {
  return decisions
    .filter((d) => MARKED_ACTIONS.has(d.action))
    .filter((d) => d.action === 'relabel' || d.replicasFrom !== d.replicasTo)
    .map((d) => ({ t: Date.parse(d.at) / 1000, action: d.action, label: markerLabel(d) }))
    .filter((m) => m.t >= from && m.t <= to);
}

function markerLabel(d: DecisionRecord): string {
  const replicas =
    d.replicasFrom !== null && d.replicasTo !== null ? ` ${d.replicasFrom} → ${d.replicasTo}` : '';
  return `${d.at} ${d.action}${replicas}: ${d.message}`;
}

/** Builds the view. Pools list every pool, even empty ones; nodes by name. */
export function buildStatusView(input: StatusInput): StatusView {
  const to = chartEnd(input.now, input.fleet);
  const from = to - CHART_WINDOW_SECONDS;
  const desired = new Map((input.fleet?.pools ?? []).map((p) => [p.node, p]));
  const nodes = [...(input.snapshot?.nodes ?? [])].sort(byName);

  // A node sits in the pool the newest pass put it in (Git's view); when the cluster's label
  // differs (the pull request is not merged or not synced yet) the node says so.
  const poolOf = (n: NodeInfo): string | null => {
    const d = desired.get(n.name);
    return d ? d.to : n.pool;
  };
  const pools = POOLS.map((pool) => {
    const members: StatusNode[] = nodes
      .filter((n) => poolOf(n) === pool)
      .map((n) => ({
        name: n.name,
        gpuProduct: n.gpuProduct,
        freeGpus: freeGpus(n),
        allocatableGpus: n.gpuAllocatable,
        condition: !n.ready ? 'NotReady' : n.cordoned ? 'cordoned' : !n.schedulable ? 'unschedulable' : null,
        labelPending: n.pool !== pool ? (n.pool ?? 'no pool') : null,
      }));
    return {
      pool,
      nodes: members,
      freeGpus: members.reduce((s, n) => s + n.freeGpus, 0),
      allocatableGpus: members.reduce((s, n) => s + n.allocatableGpus, 0),
    };
  });

  const leftOut: LeftOutNode[] = [];
  let nodesWithoutGpu = 0;
  for (const n of nodes) {
    if (poolOf(n) !== null) continue;
    const decided = desired.get(n.name);
    const why = decided ?? ineligibility(n);
    if (!why) continue;
    if (why.reason === 'NoGPU') {
      nodesWithoutGpu++;
      continue;
    }
    leftOut.push({ name: n.name, gpuProduct: n.gpuProduct, reason: why.reason, message: why.message });
  }

  const threshold = input.fleet?.longTaskThresholdSeconds ?? null;
  const names = new Set([...(input.fleet?.algorithms ?? []).map((a) => a.name), ...input.samples.keys()]);
  const fleetOf = new Map((input.fleet?.algorithms ?? []).map((a) => [a.name, a]));
  const algorithms: StatusAlgorithm[] = [...names].sort().map((name) => {
    const a = fleetOf.get(name);
    const run = a?.runTimeSeconds ?? null;
    const samples = input.samples.get(name) ?? [];
    const decisions = input.history.get(name) ?? [];
    // The axis fits the data: the earliest sample or marker of the last 24 h sets the window.
    const earliest = Math.min(
      ...samples.map((x) => Date.parse(x.at) / 1000),
      ...chartMarkers(decisions, from, to).map((m) => m.t),
    );
    const scale = chartScale(to, Number.isFinite(earliest) && earliest >= from ? earliest : to);
    return {
      name,
      pool: a?.pool ?? null,
      runTimeSeconds: run,
      thresholdSeconds: threshold,
      // The placement rule: run time > threshold → long-task; equal stays short-task.
      side: run === null || threshold === null ? null : run > threshold ? 'above' : 'at-or-below',
      placementReason: a?.placementReason ?? 'Unknown',
      placementMessage: a?.placementMessage ?? '',
      replicas: a?.replicas ?? null,
      minReplicas: a?.minReplicas ?? null,
      maxReplicas: a?.maxReplicas ?? null,
      scalingReason: a?.scalingReason ?? null,
      scalingMessage: a?.scalingMessage ?? null,
      chart: {
        ...scale,
        bandMin: a?.utilizationMin ?? null,
        bandMax: a?.utilizationMax ?? null,
        points: bucketSamples(samples, scale.from, scale.to, scale.bucketSeconds),
        markers: chartMarkers(decisions, scale.from, scale.to),
      },
    };
  });

  const benchmarks: StatusBenchmark[] = (input.snapshot?.pods ?? [])
    .filter(benchmarkInProgress)
    .map((p) => ({
      algorithm: p.algorithm ?? p.labels[GPUOPS.algorithm] ?? '(unknown)',
      pod: `${p.namespace}/${p.name}`,
      node: p.nodeName,
      phase: p.phase,
      startedAt: p.createdAt,
    }))
    .sort((a, b) => (a.algorithm < b.algorithm ? -1 : a.algorithm > b.algorithm ? 1 : 0));

  const openPullRequests = input.pullRequests
    .filter((p) => p.state === 'open')
    .map((p) => ({
      number: p.number,
      url: p.url,
      title: p.title,
      branch: p.branch,
      kind: p.kind,
      subject: p.subject,
      updatedAt: p.updatedAt,
    }));

  const nowSeconds = input.now.getTime() / 1000;
  const passAt = input.fleet ? Date.parse(input.fleet.at) / 1000 : null;
  const openedAt = new Map(
    (input.pullRequestCycles ?? []).filter((c) => c.state === 'open').map((c) => [c.branch, c.openedAt]),
  );
  const facts = {
    ...HEALTH_DEFAULTS,
    ...input.health,
    // A simulated clock runs ahead of the wall clock: the pass's own time is never "in the future".
    now: Math.max(nowSeconds, passAt ?? 0),
    passAt,
    algorithmsWithoutMetrics: algorithms
      .filter((a) => a.replicas !== null && a.scalingReason === 'NoData')
      .map((a) => a.name),
    algorithmsOnPartialMetrics: algorithms
      .filter((a) => a.replicas !== null && a.scalingReason === 'PartialData')
      .map((a) => a.name),
    failedBenchmarks: (input.fleet?.algorithms ?? [])
      .filter((a) => a.placementReason === 'BenchmarkFailed')
      .map((a) => a.name)
      .sort(),
    unplaceable: unplaceable(input.fleet?.algorithms ?? [], input.history, passAt),
    ...(input.fleet?.podStartupSeconds !== undefined
      ? { startupAllowanceSeconds: input.fleet.podStartupSeconds }
      : {}),
    writeRefusals: (input.fleet?.writeRefusals ?? []).map((r) => ({
      ref: r.ref,
      reason: r.reason,
      since: Date.parse(r.since) / 1000,
    })),
    openPullRequests: openPullRequests.map((p) => ({
      branch: p.branch,
      openedAt: Date.parse(openedAt.get(p.branch) ?? p.updatedAt) / 1000,
    })),
  };
  const health = summarizeHealth(
    [...(input.healthCauses ?? []), ...cacheHealthCauses(input.cache ?? []), ...healthCauses(facts)],
    facts,
  );

  return {
    cluster: input.cluster,
    health,
    generatedAt: input.now.toISOString(),
    snapshotAt: input.snapshot?.takenAt ?? null,
    passAt: input.fleet?.at ?? null,
    pools,
    leftOut,
    nodesWithoutGpu,
    algorithms,
    benchmarks,
    openPullRequests,
    decisions: input.recentDecisions.map((d) => ({
      at: d.at,
      kind: d.kind,
      subject: d.subject,
      action: d.action,
      reason: d.reason,
      message: d.message,
    })),
    cache: input.cache ? statusCacheRows(input.cache) : null,
  };
}

function round1(x: number): number {
  return Math.round(x * 10) / 10;
}
