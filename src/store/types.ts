import type { Snapshot } from '../cluster/types.js';
import type { ScalingAction } from '../scaling/types.js';

/** One benchmark run of one algorithm at one spec hash. */
export interface BenchmarkRun {
  algorithm: string;
  /** Hash of what changes run time (image, command, args, env, resources, benchmark section). */
  specHash: string;
  /** 1-based index of the run within its benchmark. */
  run: number;
  status: 'Succeeded' | 'Failed' | 'TimedOut' | 'Unschedulable';
  /** Measured run time (seconds), null unless Succeeded. */
  durationSeconds: number | null;
  node: string | null;
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
  /** `pools`, `placement`, `scaling`. */
  kind: 'pools' | 'placement' | 'scaling';
  /** Algorithm name, or `pools`. */
  subject: string;
  action: ScalingAction | string;
  reason: string;
  message: string;
  replicasFrom: number | null;
  replicasTo: number | null;
  /** Percent, or null. */
  utilization: number | null;
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

/** See `Store.nodeEmptiness`. Times are ISO-8601. */
export interface NodeEmptiness {
  /** Taken-at of the oldest stored snapshot, or null when none is stored. */
  oldest: string | null;
  /** Node → first snapshot after the last one that saw a GPU pod there (null: the newest did). */
  emptyAfterBusy: Map<string, string | null>;
}

/**
 * The database. Two implementations share versioned migrations: SQLite (`better-sqlite3`,
 * default, `sqlite:PATH`) and PostgreSQL (`pg`, `postgres://…`). Every method may reject with a
 * `StoreError` naming the operation.
 */
export interface Store {
  /** Applies pending migrations; safe to call on every start. */
  migrate(): Promise<void>;
  close(): Promise<void>;

  /** Stores a snapshot with its nodes and pods; returns its id. */
  saveSnapshot(snapshot: Snapshot): Promise<number>;
  /** The newest snapshot, or null. */
  latestSnapshot(): Promise<Snapshot | null>;

  /**
   * What the stored snapshots say about GPU pods on nodes, for returning idle nodes (issue 11
   * item 6): the oldest stored snapshot's time, and for every node of `nodes` that some stored snapshot saw
   * holding a GPU pod (`gpuRequested > 0` or a gpuops pod), the time of the first snapshot after
   * the last such one (null when the newest snapshot still saw one). Reaches back as far as the
   * stored snapshots (`keepSnapshots` passes). Optional: without it no node is returned.
   */
  nodeEmptiness?(nodes: readonly string[]): Promise<NodeEmptiness>;

  recordBenchmarkRun(run: BenchmarkRun): Promise<void>;
  /** Runs of one algorithm at one spec hash, oldest first. */
  benchmarkRuns(algorithm: string, specHash: string): Promise<BenchmarkRun[]>;

  saveSamples(samples: UtilizationSampleRecord[]): Promise<void>;
  /** Samples of one algorithm at or after `since` (ISO-8601), oldest first. */
  samples(algorithm: string, since: string): Promise<UtilizationSampleRecord[]>;

  recordDecision(decision: DecisionRecord): Promise<void>;
  /**
   * Records several decisions in one transaction, all or none (a pass decides every algorithm at
   * once: one commit, not 1,000). Optional: without it, callers record one by one.
   */
  recordDecisions?(decisions: readonly DecisionRecord[]): Promise<void>;
  /** Decisions on one subject at or after `since` (ISO-8601), oldest first. */
  decisions(subject: string, since: string): Promise<DecisionRecord[]>;

  /** Inserts or updates by (cluster, branch). */
  upsertPullRequest(pr: PullRequestRecord): Promise<void>;
  /** All recorded pull requests of a cluster, newest first. */
  pullRequests(cluster: string): Promise<PullRequestRecord[]>;

  /**
   * Deletes utilisation samples taken before `before` (ISO-8601, exclusive); returns how many.
   * Snapshots are pruned on their own: `saveSnapshot` keeps the newest N (`keepSnapshots`).
   */
  prune?(before: string): Promise<number>;
}
