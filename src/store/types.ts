import type { PrunedHistory } from './history-retention.js';
import type { BenchmarkJobOwner, BenchmarkJobUid } from './benchmark-job-uids.js';
import type { BenchmarkSignalSample } from './benchmark-signals.js';
import type { PushedCommit } from './pushed-commits.js';
import type { WalCheckpoint } from './wal-checkpoint.js';
import type { Snapshot } from '../cluster/index.js';

export type { PushedCommit } from './pushed-commits.js';
export type { BenchmarkJobOwner, BenchmarkJobUid } from './benchmark-job-uids.js';
export type { BenchmarkSignalSample } from './benchmark-signals.js';

/** One benchmark run of one algorithm at one spec hash. */
export interface BenchmarkRun {
  algorithm: string;
  /** Hash of what changes run time (image, command, args, env, resources, benchmark section). */
  specHash: string;
  /** 1-based index of the run within its benchmark. */
  run: number;
  /**
   * `Disrupted`: the pod was evicted, preempted or lost with its node (retried, not a result);
   * `StartFailed`: the container never started (image pull or configuration error; retried
   * with backoff). See `src/benchmark/classify.ts`.
   */
  status: 'Succeeded' | 'Failed' | 'TimedOut' | 'Unschedulable' | 'Disrupted' | 'StartFailed';
  /** Measured run time (seconds), null unless Succeeded. */
  durationSeconds: number | null;
  node: string | null;
  /**
   * `nvidia.com/gpu.product` of the node it ran on (GPU Feature Discovery): the run time is a
   * measurement on that product. Null or absent: not known (no label, or recorded before
   * migration 6).
   */
  gpuProduct?: string | null;
  jobName: string;
  /** ISO-8601. */
  startedAt: string;
  finishedAt: string | null;
  message: string;
}

/** One stored per-pod utilisation sample (percent). */
export interface UtilizationSampleRecord {
  algorithm: string;
  namespace: string;
  pod: string;
  /** Percent. */
  utilization: number;
  /** ISO-8601. */
  at: string;
}

/** A decision, as stored for cooldowns, audit and `gpuops prs`. */
export interface DecisionRecord {
  /**
   * `pools`, `placement`, `scaling`, or `standby`: a standby set's planned size change (subject
   * `standby/<set>`, `replicasFrom` Git's pods → `replicasTo`; `plan/standby-hold.ts`).
   */
  kind: 'pools' | 'placement' | 'scaling' | 'standby';
  /** Algorithm name, `pools`, or `standby/<set>`. */
  subject: string;
  /**
   * What was decided: for `scaling`, a `ScalingAction` of `scaling/types.ts` (`scale-up`,
   * `scale-down`, `relabel`, `hold`); for the other kinds their own action. Stored as text, so the
   * store (a lower layer) does not import the scaling types.
   */
  action: string;
  reason: string;
  message: string;
  replicasFrom: number | null;
  replicasTo: number | null;
  /** Percent, or null. */
  utilization: number | null;
  /**
   * `scaling`: the Ready pods `utilization` was judged over (whole pods; column `ready_pods`,
   * migration 13). Absent when the decision named none (see `ScalingDecision.readyPods`) and on
   * rows written before migration 13 (their message carries the count: `podsJudged`).
   */
  readyPods?: number;
  /** ISO-8601. */
  at: string;
}

/** A pull request (or, with the plain git provider, a branch) gpuops opened. */
export interface PullRequestRecord {
  cluster: string;
  branch: string;
  kind: string;
  subject: string;
  title: string;
  body: string;
  desiredHash: string;
  /** PR number on the host, null with the plain git provider. */
  number: number | null;
  url: string | null;
  state: 'open' | 'closed' | 'merged';
  /** ISO-8601. */
  updatedAt: string;
}

/** Which runs {@link Store.benchmarkRunsFor} reads: an algorithm at its current spec hash. */
export interface BenchmarkRunKey {
  algorithm: string;
  specHash: string;
}

/** See `Store.nodeEmptiness`. Times are ISO-8601. */
export interface NodeEmptiness {
  /** Taken-at of the oldest stored snapshot, or null when none is stored. */
  oldest: string | null;
  /** Node → first snapshot after the last one that saw a GPU pod there (null: the newest did). */
  emptyAfterBusy: Map<string, string | null>;
  /** Node → the first snapshot that listed it (kept past snapshot retention). */
  firstSeen?: Map<string, string>;
}

/**
 * The database. Two implementations share versioned migrations: SQLite (`libsql`, default,
 * `sqlite:PATH`) and PostgreSQL (`pg`, `postgres://…`). Every method may reject with a
 * `StoreError` naming the operation.
 */
export interface Store {
  /** Applies pending migrations; safe to call on every start. Fails on a store opened read-only. */
  migrate(): Promise<void>;
  /**
   * Ids of the schema migrations recorded in the database (`schema_migrations`), ascending; `[]`
   * when it has none (a new or empty database). Writes nothing.
   */
  appliedMigrations(): Promise<number[]>;
  close(): Promise<void>;

  /**
   * Stores a snapshot with its nodes and pods; returns the id of the row that holds it. A snapshot
   * equal (nodes, pods, warnings) to the one node activity last took, and not older, moves that
   * row's time instead of storing a new row (`snapshot-refresh.ts`): readers get the same
   * `latestSnapshot` and node activity either way.
   */
  saveSnapshot(snapshot: Snapshot): Promise<number>;
  /** The newest snapshot, or null. */
  latestSnapshot(): Promise<Snapshot | null>;

  /**
   * What the stored snapshots say about GPU pods on nodes, for returning idle nodes (pools shrink
   * as well as grow): the oldest stored snapshot's time, and for every node of `nodes` that some
   * stored snapshot saw holding a GPU pod (`gpuRequested > 0` or a gpuops pod), the time of the
   * first snapshot after the last such one (null when the newest snapshot still saw one), and when
   * each node was first seen. Kept per node by every `saveSnapshot` (table `node_activity`), so it
   * reaches back past snapshot retention (the newest `keepSnapshots` states of the cluster,
   * `snapshot-refresh.ts`). Optional: without it no node is returned.
   */
  nodeEmptiness?(nodes: readonly string[]): Promise<NodeEmptiness>;

  recordBenchmarkRun(run: BenchmarkRun): Promise<void>;
  /** Runs of one algorithm at one spec hash, oldest first. */
  benchmarkRuns(algorithm: string, specHash: string): Promise<BenchmarkRun[]>;
  /**
   * The runs of every algorithm at its spec hash, in one query (a pass reads all algorithms at
   * once: one round trip, not 1,000). Map of algorithm name → its runs at that hash, oldest first;
   * an algorithm with no run there has no entry. A name listed twice takes its last hash.
   */
  benchmarkRunsFor(keys: readonly BenchmarkRunKey[]): Promise<Map<string, BenchmarkRun[]>>;
  /**
   * A token that changes whenever a benchmark run is recorded (by any process): the count and the
   * highest id of `benchmark_runs`, e.g. `"42/57"` (runs are only ever inserted). A reconciler
   * that keeps the runs it read from pass to pass reads them again when it changes. Optional:
   * without it nothing is kept.
   */
  benchmarkRunsVersion?(): Promise<string>;

  saveSamples(samples: UtilizationSampleRecord[]): Promise<void>;
  /** Samples of one algorithm at or after `since` (ISO-8601), oldest first. */
  samples(algorithm: string, since: string): Promise<UtilizationSampleRecord[]>;

  recordDecision(decision: DecisionRecord): Promise<void>;
  /**
   * Records several decisions in one transaction, all or none (a pass decides every algorithm at
   * once: one commit, not 1,000). Optional: without it, callers record one by one.
   */
  recordDecisions?(decisions: readonly DecisionRecord[]): Promise<void>;
  /**
   * Deletes the decisions and utilisation samples recorded before `before` (ISO-8601), in one
   * transaction; returns how many rows of each went (see `pass/history-prune.ts`). Optional: a
   * store without it keeps everything. @throws StoreError when the delete fails
   */
  pruneHistory?(before: string): Promise<PrunedHistory>;
  /** Decisions on one subject at or after `since` (ISO-8601), oldest first. */
  decisions(subject: string, since: string): Promise<DecisionRecord[]>;
  /**
   * Decisions on any of `subjects` at or after `since` (ISO-8601), in one query. Map of subject →
   * its decisions, oldest first; a subject with none has no entry.
   */
  decisionsSince(subjects: readonly string[], since: string): Promise<Map<string, DecisionRecord[]>>;
  /**
   * A mark that moves by exactly one with every decision any writer records, and never otherwise
   * (a delete leaves it): read before and after a write, it says whether only that write's rows
   * came in between, so a reconciler may keep what it wrote instead of reading it back
   * (`pass/remembered-reads.ts`). Optional; SQLite: the highest decision id ever given
   * (`sqlite_sequence`: AUTOINCREMENT ids, given one by one under the one write lock, never reused).
   * PostgreSQL has none: an identity's values are taken before commit and commit out of order, so
   * no mark read there says that no other writer's rows are still to come in (it reads back).
   * @throws StoreError when the read fails
   */
  decisionsMark?(): Promise<number>;

  /** Inserts or updates by (cluster, branch). */
  upsertPullRequest(pr: PullRequestRecord): Promise<void>;
  /** All recorded pull requests of a cluster, newest first. */
  pullRequests(cluster: string): Promise<PullRequestRecord[]>;
  /**
   * The recorded pull request of one branch of a cluster (unique by (cluster, branch)), or null:
   * the record `pullRequests(cluster)` holds for the branch, read alone (each change set asks for
   * its branch twice a pass; reading every record of the cluster instead grows with the history).
   * @throws StoreError when the read fails
   */
  pullRequest(cluster: string, branch: string): Promise<PullRequestRecord | null>;

  /**
   * Of `shas` (full commit ids), those recorded by {@link recordPushedCommits}, in one query.
   * Optional: a store without it keeps no record (the working copy then remembers its own pushes
   * for its lifetime only). @throws StoreError when the read fails
   */
  pushedCommits?(shas: readonly string[]): Promise<string[]>;
  /**
   * Records commits gpuops is about to push to its branches, in one transaction; keeps the newest
   * `PUSHED_COMMITS_PER_BRANCH` of each branch. @throws StoreError when the write fails
   */
  recordPushedCommits?(commits: readonly PushedCommit[]): Promise<void>;

  /**
   * Records the `metadata.uid` of a benchmark Job gpuops's create just made (replacing an earlier
   * record of the same namespace and name); records older than `BENCHMARK_JOB_UID_RETENTION_MS`
   * go in the same transaction. Optional: a store without it records nothing, and the runner then
   * follows Jobs by their marks only. @throws StoreError when the write fails
   */
  recordBenchmarkJobUid?(record: BenchmarkJobUid): Promise<void>;
  /**
   * The uid recorded for the Job (namespace, name), or null, and since when the store records
   * them (see `BenchmarkJobOwner`), in one query. @throws StoreError when the read fails
   */
  benchmarkJobOwner?(namespace: string, jobName: string): Promise<BenchmarkJobOwner>;
  /**
   * Records one reading of an algorithm's signal on its benchmark pod (migration 11), and in the
   * same transaction drops the algorithm's samples of other spec hashes (benchmarks sample only
   * the current hash; `TRIM_BENCHMARK_SIGNAL_SAMPLES`). Optional: a store without it records
   * none, and no band is proposed from a benchmark.
   * @throws StoreError when the write fails
   */
  recordBenchmarkSignalSample?(sample: BenchmarkSignalSample): Promise<void>;
  /** The signal samples of an algorithm at a spec hash, oldest first. @throws StoreError when the read fails */
  benchmarkSignalSamples?(algorithm: string, specHash: string): Promise<BenchmarkSignalSample[]>;

  /**
   * Deletes utilisation samples taken before `before` (ISO-8601, exclusive); returns how many.
   * Snapshots are pruned on their own: `saveSnapshot` keeps the newest N (`keepSnapshots`).
   */
  prune?(before: string): Promise<number>;
  /**
   * Copies the write-ahead log into the file (`wal-checkpoint.ts`; the loop, between passes); null:
   * no log (read-only, in memory). PostgreSQL has none. @throws StoreError when it fails
   */
  checkpoint?(): Promise<WalCheckpoint | null>;
}

/**
 * One pull request cycle: a pull request (or, with the plain git provider, a branch) from the
 * moment gpuops opened it until it was merged or closed. A branch that is opened again (the
 * desired state changed after a person closed it) starts a new cycle with a new id; every cycle
 * keeps the body and title it last had.
 */
export interface PullRequestCycle {
  /** Stable id, for `gpuops prs show ID`. */
  id: number;
  cluster: string;
  branch: string;
  kind: string;
  subject: string;
  title: string;
  body: string;
  /** PR number on the host, null with the plain git provider. */
  number: number | null;
  url: string | null;
  /** The outcome: `open` while the cycle runs, then `merged` or `closed`. */
  state: 'open' | 'closed' | 'merged';
  /** ISO-8601 (UTC) time the cycle was first recorded. */
  openedAt: string;
  /** ISO-8601 (UTC) time it was first seen merged or closed; null while open. */
  closedAt: string | null;
  /** ISO-8601 (UTC) time of the last update. */
  updatedAt: string;
}

/** What one pass decided about one node's pool, as the status page shows it. */
export interface StatusPoolEntry {
  node: string;
  from: string | null;
  to: string | null;
  reason: string;
  message: string;
}

/** What one pass knew about one algorithm, as the status page shows it. */
export interface StatusAlgorithmEntry {
  name: string;
  /** Pool the placement chose, or null (no benchmark yet, or failed). */
  pool: string | null;
  /** Median benchmark run time (seconds), or null. */
  runTimeSeconds: number | null;
  placementReason: string;
  placementMessage: string;
  /** Replicas after this pass's scaling decision, or null when it has no Deployment in Git. */
  replicas: number | null;
  minReplicas: number;
  maxReplicas: number;
  /** The scaling band (percent). */
  utilizationMin: number;
  utilizationMax: number;
  /** The algorithm's utilisation (percent) as the last scaling decision read it; null: no usable data. */
  utilization?: number | null;
  /** The last scaling decision: reason and message, or null. */
  scalingReason: string | null;
  scalingMessage: string | null;
  /**
   * Why its Deployment is held out of Git (`ModelCacheFillFailed`: its model cache fill Job
   * failed; `ModelCacheFillNotListed`, `ModelCacheFillUnlabelled`: its fill cannot be read,
   * `plan/fill-hold.ts`) and what to do; absent when it is not held for such a reason.
   */
  held?: { reason: string; message: string };
}

/**
 * The decisions of the newest reconcile pass that the database alone cannot rebuild (pools and
 * placement are decided again on every pass and not stored as decisions): one record per
 * cluster, replaced by every pass that writes. Read by `gpuops status` and the status page.
 */
export interface FleetStatusRecord {
  cluster: string;
  /** ISO-8601 time of the pass. */
  at: string;
  /** `placement.longTaskThresholdSeconds` of the policy in force (seconds). */
  longTaskThresholdSeconds: number;
  /** `scaling.podStartupSeconds` of the policy in force (seconds); absent in records of older builds. */
  podStartupSeconds?: number;
  pools: StatusPoolEntry[];
  algorithms: StatusAlgorithmEntry[];
  /** Benchmark pods running or pending at the pass (absent in records of older builds). */
  benchmarks?: { algorithm: string; pod: string; node: string | null; phase: string; startedAt: string }[];
  /** Git writes the remote refuses permanently (a protected base branch in patch mode); absent: none. */
  writeRefusals?: GitWriteRefusalRecord[];
  /** The nodes whose pool taint gpuops set in patch mode and has not taken back; absent: none. */
  poolTaints?: PoolTaintRecord;
}

/**
 * The nodes that carry the pool taint entry gpuops set itself in patch mode (Git cannot hold it:
 * `pass/pool-taint-handover.ts`), so that pull-request mode removes those entries and no other.
 */
export interface PoolTaintRecord {
  /** The entry's key: `pools.labelKey` when it was set, e.g. `gpuops.dev/pool`. */
  key: string;
  /** Node names, sorted. */
  nodes: string[];
}

/**
 * A ref the remote refused permanently (`src/write-back/write-refusal.ts`): gpuops does not push to it
 * again before `retryAt`. Times are ISO-8601 (UTC).
 */
export interface GitWriteRefusalRecord {
  /** The branch refused, e.g. `main`. */
  ref: string;
  /** `ProtectedBranch` or `PushDeclined`. */
  reason: string;
  /** What the remote said (redacted), e.g. `main: [remote rejected] (protected branch hook declined)`. */
  detail: string;
  /** First refusal of this standing. */
  since: string;
  /** The next pass after this time tries again. */
  retryAt: string;
}

/**
 * Reads and writes the status page and the pull request history need. Both stores implement it;
 * kept apart from {@link Store} so that a partial Store (tests, tools) need not.
 */
export interface StatusStore {
  /** Replaces the cluster's fleet status. */
  saveFleetStatus(status: FleetStatusRecord): Promise<void>;
  /** The cluster's fleet status, or null before the first pass that wrote. */
  fleetStatus(cluster: string): Promise<FleetStatusRecord | null>;
  /** Decisions on any subject at or after `since` (ISO-8601), newest first, at most `limit`. */
  recentDecisions(since: string, limit: number): Promise<DecisionRecord[]>;
  /** Every pull request cycle of a cluster, newest first (by opening time, then id). */
  pullRequestHistory(cluster: string): Promise<PullRequestCycle[]>;
  /** One cycle by id, or null. */
  pullRequestCycle(id: number): Promise<PullRequestCycle | null>;
  /**
   * The clusters the database holds anything of (a fleet status or a pull request), sorted: what
   * `status` and `prs` name when asked for a cluster it does not know.
   */
  clusters(): Promise<string[]>;
}
