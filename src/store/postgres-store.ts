/**
 * The PostgreSQL store (`pg`, a connection Pool), for shared or highly available state. Bulk
 * rows (samples, decisions) go in as one `INSERT … SELECT FROM UNNEST($arrays)` per batch, each
 * array a single bound parameter (no 65,535-parameter limit); a snapshot's nodes and pods as two
 * JSON documents (migration 7).
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
import { latestSnapshot, nodeEmptiness, saveSnapshot } from './postgres-snapshots.js';
import {
  benchmarkJobOwner,
  benchmarkRuns,
  benchmarkRunsFor,
  benchmarkRunsVersion,
  benchmarkSignalSamples,
  recordBenchmarkJobUid,
  recordBenchmarkRun,
  recordBenchmarkSignalSample,
} from './postgres-benchmarks.js';
import {
  decisions,
  decisionsSince,
  prune,
  pruneHistory,
  pushedCommits,
  recentDecisions,
  recordDecision,
  recordDecisions,
  recordPushedCommits,
  samples,
  saveSamples,
} from './postgres-history.js';
import {
  clusters,
  fleetStatus,
  pullRequestCycle,
  pullRequestHistory,
  pullRequest,
  pullRequests,
  saveFleetStatus,
  upsertPullRequest,
} from './postgres-pull-requests.js';
import { PgSession, type PostgresStoreOptions } from './postgres-session.js';

export type { PostgresStoreOptions } from './postgres-session.js';

/**
 * The `Store` (and `StatusStore`) on PostgreSQL, for state shared by several controllers (HA):
 * each method runs on the connection pool ({@link PgSession}) and fails with a StoreError naming it.
 */
export class PostgresStore implements Store, StatusStore {
  private readonly s: PgSession;
  /** The fleet status's pool entries this store wrote last (`fleet-status-pools.ts`). */
  private readonly writtenPools = new WrittenPools();

  /** Connects lazily; the first query (usually `migrate`) reports a bad URL or password. */
  constructor(connectionString: string, options: PostgresStoreOptions) {
    this.s = new PgSession(connectionString, options);
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

  upsertPullRequest(pr: PullRequestRecord): Promise<void> {
    return upsertPullRequest(this.s, pr);
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

  pullRequests(cluster: string): Promise<PullRequestRecord[]> {
    return pullRequests(this.s, cluster);
  }

  pullRequest(cluster: string, branch: string): Promise<PullRequestRecord | null> {
    return pullRequest(this.s, cluster, branch);
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
