/**
 * The SQLite store, the default: one file, WAL journal, synchronous calls wrapped in promises.
 * Writes of a snapshot run in one transaction with prepared statements. The driver is `libsql`
 * (better-sqlite3's API; its compiled SQLite comes as a per-platform npm package, so `npm ci`
 * needs no compiler and no download from anywhere but the npm registry).
 */
import type { Snapshot } from '../cluster/index.js';
import { WrittenPools } from './fleet-status-pools.js';
import { type PrunedHistory } from './history-retention.js';
import { type BenchmarkSignalSample } from './benchmark-signals.js';
import { type BenchmarkJobOwner, type BenchmarkJobUid } from './benchmark-job-uids.js';
import { type PushedCommit } from './pushed-commits.js';
import type {
  BenchmarkRun,
  BenchmarkRunKey,
  DecisionRecord,
  FleetStatusRecord,
  PullRequestCycle,
  NodeEmptiness,
  PullRequestRecord,
  StatusStore,
  Store,
  UtilizationSampleRecord,
} from './types.js';
import type { WalCheckpoint } from './wal-checkpoint.js';
import { latestSnapshot, nodeEmptiness, saveSnapshot } from './sqlite-snapshots.js';
import {
  benchmarkJobOwner,
  benchmarkRuns,
  benchmarkRunsFor,
  benchmarkRunsVersion,
  benchmarkSignalSamples,
  recordBenchmarkJobUid,
  recordBenchmarkRun,
  recordBenchmarkSignalSample,
} from './sqlite-benchmarks.js';
import {
  decisions,
  decisionsSince,
  decisionsMark,
  prune,
  pruneHistory,
  pushedCommits,
  recentDecisions,
  recordDecision,
  recordDecisions,
  recordPushedCommits,
  samples,
  saveSamples,
} from './sqlite-history.js';
import {
  clusters,
  fleetStatus,
  pullRequestCycle,
  pullRequestHistory,
  pullRequest,
  pullRequests,
  saveFleetStatus,
  upsertPullRequest,
} from './sqlite-pull-requests.js';
import { SqliteSession, type SqliteStoreOptions } from './sqlite-session.js';

export type { SqliteStoreOptions } from './sqlite-session.js';

/**
 * The `Store` (and `StatusStore`) on one SQLite file, the default database: each method runs on
 * the one connection ({@link SqliteSession}) and fails with a StoreError naming it.
 */
export class SqliteStore implements Store, StatusStore {
  private readonly s: SqliteSession;
  /** The fleet status's pool entries this store wrote last (`fleet-status-pools.ts`). */
  private readonly writtenPools = new WrittenPools();

  /**
   * @param file a path, or `:memory:`. Writable: the folder is created when missing. Read-only:
   *   the file must exist; its journal mode is left as it is.
   * @throws StoreError (`open`) when the file cannot be opened (read-only: when it does not exist).
   */
  constructor(file: string, options: SqliteStoreOptions) {
    this.s = new SqliteSession(file, options);
  }

  migrate(): Promise<void> {
    return this.s.migrate();
  }

  appliedMigrations(): Promise<number[]> {
    return this.s.appliedMigrations();
  }

  close(): Promise<void> {
    return this.s.close();
  }

  /** `Store.checkpoint` (types.ts) on SQLite; @throws StoreError naming `checkpoint` (rejects). */
  checkpoint(): Promise<WalCheckpoint | null> {
    return this.s.checkpoint();
  }

  saveSnapshot(snapshot: Snapshot): Promise<number> {
    return saveSnapshot(this.s, snapshot);
  }

  latestSnapshot(): Promise<Snapshot | null> {
    return latestSnapshot(this.s);
  }

  recordBenchmarkRun(run: BenchmarkRun): Promise<void> {
    return recordBenchmarkRun(this.s, run);
  }

  benchmarkRuns(algorithm: string, specHash: string): Promise<BenchmarkRun[]> {
    return benchmarkRuns(this.s, algorithm, specHash);
  }

  benchmarkRunsFor(keys: readonly BenchmarkRunKey[]): Promise<Map<string, BenchmarkRun[]>> {
    return benchmarkRunsFor(this.s, keys);
  }

  benchmarkRunsVersion(): Promise<string> {
    return benchmarkRunsVersion(this.s);
  }

  saveSamples(samples: UtilizationSampleRecord[]): Promise<void> {
    return saveSamples(this.s, samples);
  }

  samples(algorithm: string, since: string): Promise<UtilizationSampleRecord[]> {
    return samples(this.s, algorithm, since);
  }

  recordDecision(decision: DecisionRecord): Promise<void> {
    return recordDecision(this.s, decision);
  }

  recordDecisions(decisions: readonly DecisionRecord[]): Promise<void> {
    return recordDecisions(this.s, decisions);
  }

  pruneHistory(before: string): Promise<PrunedHistory> {
    return pruneHistory(this.s, before);
  }

  decisions(subject: string, since: string): Promise<DecisionRecord[]> {
    return decisions(this.s, subject, since);
  }

  decisionsSince(subjects: readonly string[], since: string): Promise<Map<string, DecisionRecord[]>> {
    return decisionsSince(this.s, subjects, since);
  }

  decisionsMark(): Promise<number> {
    return decisionsMark(this.s);
  }

  upsertPullRequest(pr: PullRequestRecord): Promise<void> {
    return upsertPullRequest(this.s, pr);
  }

  pullRequests(cluster: string): Promise<PullRequestRecord[]> {
    return pullRequests(this.s, cluster);
  }

  pullRequest(cluster: string, branch: string): Promise<PullRequestRecord | null> {
    return pullRequest(this.s, cluster, branch);
  }

  pushedCommits(shas: readonly string[]): Promise<string[]> {
    return pushedCommits(this.s, shas);
  }

  recordPushedCommits(commits: readonly PushedCommit[]): Promise<void> {
    return recordPushedCommits(this.s, commits);
  }

  recordBenchmarkJobUid(r: BenchmarkJobUid): Promise<void> {
    return recordBenchmarkJobUid(this.s, r);
  }

  recordBenchmarkSignalSample(sample: BenchmarkSignalSample): Promise<void> {
    return recordBenchmarkSignalSample(this.s, sample);
  }

  benchmarkSignalSamples(algorithm: string, specHash: string): Promise<BenchmarkSignalSample[]> {
    return benchmarkSignalSamples(this.s, algorithm, specHash);
  }

  benchmarkJobOwner(namespace: string, jobName: string): Promise<BenchmarkJobOwner> {
    return benchmarkJobOwner(this.s, namespace, jobName);
  }

  saveFleetStatus(status: FleetStatusRecord): Promise<void> {
    return saveFleetStatus(this.s, this.writtenPools, status);
  }

  clusters(): Promise<string[]> {
    return clusters(this.s);
  }

  fleetStatus(cluster: string): Promise<FleetStatusRecord | null> {
    return fleetStatus(this.s, cluster);
  }

  recentDecisions(since: string, limit: number): Promise<DecisionRecord[]> {
    return recentDecisions(this.s, since, limit);
  }

  pullRequestHistory(cluster: string): Promise<PullRequestCycle[]> {
    return pullRequestHistory(this.s, cluster);
  }

  pullRequestCycle(id: number): Promise<PullRequestCycle | null> {
    return pullRequestCycle(this.s, id);
  }

  nodeEmptiness(nodes: readonly string[]): Promise<NodeEmptiness> {
    return nodeEmptiness(this.s, nodes);
  }

  prune(before: string): Promise<number> {
    return prune(this.s, before);
  }
}
