/**
 * The PostgreSQL store (`pg`, a connection Pool), for shared or highly available state. Bulk
 * rows (samples, decisions) go in as one `INSERT … SELECT FROM UNNEST($arrays)` per batch, each
 * array a single bound parameter (no 65,535-parameter limit); a snapshot's nodes and pods as two
 * JSON documents (migration 7).
 */
import pg from 'pg';
import type { Snapshot } from '../cluster/types.js';
import { contentsParts, type SnapshotPartRow, snapshotFromPartRows } from './contents-parts.js';
import { storeError } from './errors.js';
import { pruneDecisionsSql, pruneSamplesSql, type PrunedHistory } from './history-retention.js';
import {
  CLUSTERS_SQL,
  CYCLE_COLUMNS,
  CYCLE_UPDATE_COLUMNS,
  cycleAction,
  cycleFromRow,
  cycleUpdateCells,
  fleetStatusCells,
  fleetStatusFromRow,
  newCycleCells,
} from './history-rows.js';
import {
  benchmarkSignalCells,
  benchmarkSignalFromRow,
  INSERT_BENCHMARK_SIGNAL_SAMPLE,
  SELECT_BENCHMARK_SIGNAL_SAMPLES,
  type BenchmarkSignalSample,
} from './benchmark-signals.js';
import { migrationSql, pendingMigrations, SCHEMA_MIGRATIONS_DDL } from './migrations.js';
import {
  BENCHMARK_JOB_UID_RETENTION_MS,
  BENCHMARK_JOB_UIDS_MIGRATION,
  SELECT_BENCHMARK_JOB_OWNER,
  TRIM_BENCHMARK_JOB_UIDS,
  UPSERT_BENCHMARK_JOB_UID,
  type BenchmarkJobOwner,
  type BenchmarkJobUid,
} from './benchmark-job-uids.js';
import { INSERT_PUSHED_COMMIT, numbered, TRIM_PUSHED_COMMITS, type PushedCommit } from './pushed-commits.js';
import {
  BENCHMARK_COLUMNS,
  benchmarkCells,
  snapshotContentDigest,
  benchmarkFromRow,
  type Cell,
  DECISION_COLUMNS,
  decisionCells,
  decisionFromRow,
  groupBy,
  nodeEmptinessSql,
  nodeActivityCells,
  upsertNodeActivitySql,
  nodeEmptinessFromRows,
  OLDEST_SNAPSHOT_SQL,
  PULL_REQUEST_COLUMNS,
  pullRequestCells,
  pullRequestFromRow,
  pullRequestUpsertTail,
  SAMPLE_COLUMNS,
  sampleCells,
  sampleFromRow,
  DELETE_UNUSED_CONTENTS_SQL,
  DELETE_UNUSED_PARTS_SQL,
  BENCHMARK_RUNS_VERSION_SQL,
  LATEST_SNAPSHOT_SQL,
  retainSnapshotsSql,
  toMs,
  warningsCell,
} from './rows.js';
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

type Row = Record<string, unknown>;

/** Rows per UNNEST statement. */
const BATCH = 5_000;

/**
 * Advisory lock held while migrating, so that two gpuops processes starting at once against the
 * same database apply each migration once (the second waits, then finds nothing pending).
 * An arbitrary constant: "gpuops" in ASCII.
 */
const MIGRATION_LOCK = 0x6770756f7073;

/**
 * Advisory lock held by every `saveSnapshot` transaction: snapshot writers take turns, so one
 * writer's retention never deletes `snapshot_contents` that another has just found by digest and
 * is about to name (a save would then fail on the foreign key). "gpuops" + 1.
 */
const SNAPSHOT_LOCK = MIGRATION_LOCK + 1;

/** PostgreSQL element types of the bulk-inserted columns (utilisation samples and decisions). */
const PG_TYPES: Record<string, string> = {
  algorithm: 'text',
  namespace: 'text',
  pod: 'text',
  utilization: 'float8',
  at: 'text',
  at_ms: 'int8',
  kind: 'text',
  subject: 'text',
  action: 'text',
  reason: 'text',
  message: 'text',
  replicas_from: 'int',
  replicas_to: 'int',
};

function insertSql(table: string, columns: readonly string[]): string {
  return `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`;
}

/** Inserts rows (arrays in `columns` order) in batches of {@link BATCH}, one UNNEST each. */
async function insertUnnest(
  client: pg.PoolClient,
  table: string,
  columns: readonly string[],
  rows: Cell[][],
): Promise<void> {
  const casts = columns.map((c, i) => {
    const type = PG_TYPES[c];
    if (!type) throw new Error(`no PostgreSQL type for column ${table}.${c}`);
    return `$${i + 1}::${type}[]`;
  });
  const sql = `INSERT INTO ${table} (${columns.join(', ')}) SELECT * FROM UNNEST(${casts.join(', ')})`;
  for (let start = 0; start < rows.length; start += BATCH) {
    const batch = rows.slice(start, start + BATCH);
    const arrays = columns.map((_, i) => batch.map((r) => r[i] ?? null));
    await client.query(sql, arrays);
  }
}

/**
 * Writes a new `snapshot_contents` row and names its parts, storing only the parts not stored yet
 * (one part's text at a time); its id. In the caller's transaction, under {@link SNAPSHOT_LOCK}, so
 * the stored digests read first stay stored until it commits.
 */
async function insertContents(c: pg.PoolClient, digest: string, snapshot: Snapshot): Promise<unknown> {
  const inserted = await c.query('INSERT INTO snapshot_contents (digest) VALUES ($1) RETURNING id', [digest]);
  const id = (inserted.rows[0] as Row).id;
  const stored = new Set((await c.query('SELECT digest FROM snapshot_parts')).rows.map((r: Row) => r.digest));
  const kinds: string[] = [];
  const positions: number[] = [];
  const digests: string[] = [];
  for (const part of contentsParts(snapshot)) {
    if (!stored.has(part.digest)) {
      await c.query(
        'INSERT INTO snapshot_parts (digest, records) VALUES ($1, $2) ON CONFLICT (digest) DO NOTHING',
        [part.digest, part.text],
      );
      stored.add(part.digest);
    }
    kinds.push(part.kind);
    positions.push(part.position);
    digests.push(part.digest);
  }
  await c.query(
    `INSERT INTO contents_parts (contents_id, kind, position, part)
       SELECT $1, * FROM unnest($2::text[], $3::int[], $4::text[])`,
    [id, kinds, positions, digests],
  );
  return id;
}

export interface PostgresStoreOptions {
  /** Snapshots kept by `saveSnapshot` (newest first); older ones are deleted. */
  keepSnapshots: number;
  /** Pool size (default 5). */
  maxConnections?: number;
  /**
   * Every connection is read-only (`SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY`, sent
   * before its first query): a write, a migration included, fails with SQLSTATE 25006. Default false.
   */
  readOnly?: boolean;
}

export class PostgresStore implements Store, StatusStore {
  private readonly pool: pg.Pool;

  /** Connects lazily; the first query (usually `migrate`) reports a bad URL or password. */
  constructor(
    connectionString: string,
    private readonly options: PostgresStoreOptions,
  ) {
    this.pool = new pg.Pool({ connectionString, max: options.maxConnections ?? 5 });
    // An idle client that loses its connection (server restart) must not crash the process:
    // the pool drops it and the next query opens a new one, or reports a StoreError.
    this.pool.on('error', () => undefined);
    // A client runs its queries in order, so this one precedes whatever the caller sends.
    // (Not `options=-c default_transaction_read_only=on`: an `options` in the URL would replace it.)
    if (options.readOnly) {
      this.pool.on('connect', (client) => {
        client.query('SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY').catch(() => undefined);
      });
    }
  }

  private async withClient<T>(operation: string, fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      throw storeError(operation, err);
    }
    try {
      return await fn(client);
    } catch (err) {
      throw storeError(operation, err);
    } finally {
      client.release();
    }
  }

  private transaction<T>(
    operation: string,
    fn: (c: pg.PoolClient) => Promise<T>,
    begin = 'BEGIN',
  ): Promise<T> {
    return this.withClient(operation, async (client) => {
      await client.query(begin);
      try {
        const result = await fn(client);
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      }
    });
  }

  private query(operation: string, sql: string, params: unknown[] = []): Promise<Row[]> {
    return this.withClient(operation, async (c) => (await c.query(sql, params)).rows as Row[]);
  }

  migrate(): Promise<void> {
    return this.transaction('migrate', async (c) => {
      await c.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      await c.query(SCHEMA_MIGRATIONS_DDL);
      const applied = (await c.query('SELECT id FROM schema_migrations')).rows.map((r: Row) => Number(r.id));
      for (const m of pendingMigrations(applied)) {
        await c.query(migrationSql(m, 'postgres'));
        await c.query('INSERT INTO schema_migrations (id, name, applied_at) VALUES ($1, $2, $3)', [
          m.id,
          m.name,
          new Date().toISOString(),
        ]);
      }
    });
  }

  async appliedMigrations(): Promise<number[]> {
    const rows = await this.query(
      'appliedMigrations',
      // to_regclass follows search_path, as the store's own queries do.
      `SELECT to_regclass('schema_migrations') IS NOT NULL AS present`,
    );
    if (rows[0]?.present !== true) return [];
    return (await this.query('appliedMigrations', 'SELECT id FROM schema_migrations ORDER BY id')).map((r) =>
      Number(r.id),
    );
  }

  async close(): Promise<void> {
    try {
      await this.pool.end();
    } catch (err) {
      throw storeError('close', err);
    }
  }

  /**
   * Stores a snapshot in one transaction and keeps the newest `keepSnapshots`. Its nodes and pods
   * are stored once per content digest (`snapshot_contents`, migration 5), in content-addressed
   * parts (migration 8, `contentsParts`: a changed pod writes its part, not every pod): a
   * snapshot equal to a stored one (the usual pass: the
   * cluster did not move) sends only its digest and writes only its `snapshots` row. Writers take
   * turns ({@link SNAPSHOT_LOCK}), so another process's retention cannot delete the contents
   * between finding and naming them, and no other writer inserts the same digest meanwhile.
   */
  async saveSnapshot(snapshot: Snapshot): Promise<number> {
    const takenAtMs = toMs('saveSnapshot', 'takenAt', snapshot.takenAt);
    const digest = snapshotContentDigest(snapshot);
    return this.transaction('saveSnapshot', async (c) => {
      await c.query('SELECT pg_advisory_xact_lock($1)', [SNAPSHOT_LOCK]);
      const found = (await c.query('SELECT id FROM snapshot_contents WHERE digest = $1', [digest]))
        .rows[0] as Row | undefined;
      const contentsId = Number(found ? found.id : await insertContents(c, digest, snapshot));
      const head = await c.query(
        'INSERT INTO snapshots (taken_at, taken_at_ms, warnings, contents_id) VALUES ($1, $2, $3, $4) RETURNING id',
        [snapshot.takenAt, takenAtMs, warningsCell(snapshot), contentsId],
      );
      const id = Number((head.rows[0] as Row).id);
      const activity = nodeActivityCells(snapshot.nodes, takenAtMs);
      if (activity.length > 0)
        await c.query(upsertNodeActivitySql('SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[])'), [
          activity.map((a) => a[0]),
          activity.map((a) => a[1]),
          activity.map((a) => a[2]),
        ]);
      await c.query(retainSnapshotsSql('$1'), [this.options.keepSnapshots]);
      if (((await c.query(DELETE_UNUSED_CONTENTS_SQL)).rowCount ?? 0) > 0)
        await c.query(DELETE_UNUSED_PARTS_SQL);
      return id;
    });
  }

  async latestSnapshot(): Promise<Snapshot | null> {
    // One statement, one consistent view: a concurrent saveSnapshot's retention cannot delete the
    // contents mid-read.
    const rows = (await this.query('latestSnapshot', LATEST_SNAPSHOT_SQL)) as unknown as SnapshotPartRow[];
    return rows.length > 0 ? snapshotFromPartRows(rows) : null;
  }

  async recordBenchmarkRun(run: BenchmarkRun): Promise<void> {
    await this.query(
      'recordBenchmarkRun',
      insertSql('benchmark_runs', BENCHMARK_COLUMNS),
      benchmarkCells(run),
    );
  }

  async benchmarkRuns(algorithm: string, specHash: string): Promise<BenchmarkRun[]> {
    const rows = await this.query(
      'benchmarkRuns',
      `SELECT * FROM benchmark_runs WHERE algorithm = $1 AND spec_hash = $2 ORDER BY started_at_ms, run, id`,
      [algorithm, specHash],
    );
    return rows.map(benchmarkFromRow);
  }

  async benchmarkRunsFor(keys: readonly BenchmarkRunKey[]): Promise<Map<string, BenchmarkRun[]>> {
    // One round trip for every pair: two text arrays (one bound parameter each) unnested and joined.
    const pairs = new Map(keys.map((k) => [k.algorithm, k.specHash]));
    const rows = await this.query(
      'benchmarkRunsFor',
      `SELECT b.* FROM UNNEST($1::text[], $2::text[]) AS k(algorithm, spec_hash)
         JOIN benchmark_runs AS b ON b.algorithm = k.algorithm AND b.spec_hash = k.spec_hash
       ORDER BY b.started_at_ms, b.run, b.id`,
      [[...pairs.keys()], [...pairs.values()]],
    );
    return groupBy(rows.map(benchmarkFromRow), (r) => r.algorithm);
  }

  async benchmarkRunsVersion(): Promise<string> {
    const row = (await this.query('benchmarkRunsVersion', BENCHMARK_RUNS_VERSION_SQL))[0]!;
    return `${Number(row.n)}/${Number(row.last)}`;
  }

  async saveSamples(samples: UtilizationSampleRecord[]): Promise<void> {
    if (samples.length === 0) return;
    const rows = samples.map(sampleCells);
    await this.transaction('saveSamples', (c) =>
      insertUnnest(c, 'utilization_samples', SAMPLE_COLUMNS, rows),
    );
  }

  async samples(algorithm: string, since: string): Promise<UtilizationSampleRecord[]> {
    const rows = await this.query(
      'samples',
      'SELECT * FROM utilization_samples WHERE algorithm = $1 AND at_ms >= $2 ORDER BY at_ms, id',
      [algorithm, toMs('samples', 'since', since)],
    );
    return rows.map(sampleFromRow);
  }

  async recordDecision(decision: DecisionRecord): Promise<void> {
    await this.query('recordDecision', insertSql('decisions', DECISION_COLUMNS), decisionCells(decision));
  }

  async recordDecisions(decisions: readonly DecisionRecord[]): Promise<void> {
    if (decisions.length === 0) return;
    // One UNNEST per 5,000 decisions: a pass over 1,000 algorithms was 1,000 round trips.
    await this.transaction('recordDecisions', (c) =>
      insertUnnest(c, 'decisions', DECISION_COLUMNS, decisions.map(decisionCells)),
    );
  }

  async pruneHistory(before: string): Promise<PrunedHistory> {
    const ms = toMs('pruneHistory', 'before', before);
    return this.transaction('pruneHistory', async (c) => ({
      decisions: (await c.query(pruneDecisionsSql('$1'), [ms])).rowCount ?? 0,
      samples: (await c.query(pruneSamplesSql('$1'), [ms])).rowCount ?? 0,
    }));
  }

  async decisions(subject: string, since: string): Promise<DecisionRecord[]> {
    const rows = await this.query(
      'decisions',
      'SELECT * FROM decisions WHERE subject = $1 AND at_ms >= $2 ORDER BY at_ms, id',
      [subject, toMs('decisions', 'since', since)],
    );
    return rows.map(decisionFromRow);
  }

  async decisionsSince(subjects: readonly string[], since: string): Promise<Map<string, DecisionRecord[]>> {
    const rows = await this.query(
      'decisionsSince',
      'SELECT * FROM decisions WHERE subject = ANY($1::text[]) AND at_ms >= $2 ORDER BY at_ms, id',
      [[...new Set(subjects)], toMs('decisionsSince', 'since', since)],
    );
    return groupBy(rows.map(decisionFromRow), (d) => d.subject);
  }

  async upsertPullRequest(pr: PullRequestRecord): Promise<void> {
    await this.transaction('upsertPullRequest', async (c) => {
      await c.query(
        `${insertSql('pull_requests', PULL_REQUEST_COLUMNS)} ${pullRequestUpsertTail()}`,
        pullRequestCells(pr),
      );
      // The pull_requests row is locked by the upsert: a second writer of the same branch waits here.
      const found = await c.query(
        'SELECT * FROM pull_request_history WHERE cluster = $1 AND branch = $2 ORDER BY id DESC LIMIT 1',
        [pr.cluster, pr.branch],
      );
      const latest = found.rows[0] ? cycleFromRow(found.rows[0] as Row) : null;
      if (cycleAction(latest, pr) === 'insert') {
        await c.query(insertSql('pull_request_history', CYCLE_COLUMNS), newCycleCells(pr));
      } else {
        await c.query(
          `UPDATE pull_request_history SET ${CYCLE_UPDATE_COLUMNS.map((col, i) => `${col} = $${i + 1}`).join(', ')}
             WHERE id = $${CYCLE_UPDATE_COLUMNS.length + 1}`,
          [...cycleUpdateCells(latest!, pr), latest!.id],
        );
      }
    });
  }

  async pushedCommits(shas: readonly string[]): Promise<string[]> {
    const rows = await this.query('pushedCommits', 'SELECT sha FROM pushed_commits WHERE sha = ANY($1)', [
      [...new Set(shas)],
    ]);
    return rows.map((r) => r.sha as string);
  }

  async recordPushedCommits(commits: readonly PushedCommit[]): Promise<void> {
    await this.transaction('recordPushedCommits', async (c) => {
      for (const p of commits)
        await c.query(numbered(INSERT_PUSHED_COMMIT), [
          p.sha,
          p.branch,
          p.at,
          toMs('recordPushedCommits', 'at', p.at),
        ]);
      for (const b of new Set(commits.map((p) => p.branch)))
        await c.query(numbered(TRIM_PUSHED_COMMITS), [b, b]);
    });
  }

  async recordBenchmarkJobUid(r: BenchmarkJobUid): Promise<void> {
    const ms = toMs('recordBenchmarkJobUid', 'at', r.at);
    await this.transaction('recordBenchmarkJobUid', async (c) => {
      await c.query(numbered(UPSERT_BENCHMARK_JOB_UID), [r.namespace, r.jobName, r.uid, r.at, ms]);
      await c.query(numbered(TRIM_BENCHMARK_JOB_UIDS), [ms - BENCHMARK_JOB_UID_RETENTION_MS]);
    });
  }

  async recordBenchmarkSignalSample(sample: BenchmarkSignalSample): Promise<void> {
    const ms = toMs('recordBenchmarkSignalSample', 'at', sample.at);
    await this.query(
      'recordBenchmarkSignalSample',
      numbered(INSERT_BENCHMARK_SIGNAL_SAMPLE),
      benchmarkSignalCells(sample, ms),
    );
  }

  async benchmarkSignalSamples(algorithm: string, specHash: string): Promise<BenchmarkSignalSample[]> {
    const rows = await this.query('benchmarkSignalSamples', numbered(SELECT_BENCHMARK_SIGNAL_SAMPLES), [
      algorithm,
      specHash,
    ]);
    return rows.map(benchmarkSignalFromRow);
  }

  async benchmarkJobOwner(namespace: string, jobName: string): Promise<BenchmarkJobOwner> {
    const [row] = await this.query('benchmarkJobOwner', numbered(SELECT_BENCHMARK_JOB_OWNER), [
      namespace,
      jobName,
      BENCHMARK_JOB_UIDS_MIGRATION,
    ]);
    return {
      uid: (row?.uid as string | null) ?? null,
      recordingSince: (row?.recording_since as string | null) ?? null,
    };
  }

  async pullRequests(cluster: string): Promise<PullRequestRecord[]> {
    const rows = await this.query(
      'pullRequests',
      'SELECT * FROM pull_requests WHERE cluster = $1 ORDER BY updated_at_ms DESC, id DESC',
      [cluster],
    );
    return rows.map(pullRequestFromRow);
  }

  async saveFleetStatus(status: FleetStatusRecord): Promise<void> {
    await this.query(
      'saveFleetStatus',
      `INSERT INTO fleet_status (cluster, at, at_ms, body) VALUES ($1, $2, $3, $4)
       ON CONFLICT (cluster) DO UPDATE SET at = excluded.at, at_ms = excluded.at_ms, body = excluded.body`,
      fleetStatusCells(status),
    );
  }

  async clusters(): Promise<string[]> {
    return (await this.query('clusters', CLUSTERS_SQL)).map((r) => r.cluster as string);
  }

  async fleetStatus(cluster: string): Promise<FleetStatusRecord | null> {
    const rows = await this.query('fleetStatus', 'SELECT body FROM fleet_status WHERE cluster = $1', [
      cluster,
    ]);
    return rows[0] ? fleetStatusFromRow(rows[0]) : null;
  }

  async recentDecisions(since: string, limit: number): Promise<DecisionRecord[]> {
    const rows = await this.query(
      'recentDecisions',
      'SELECT * FROM decisions WHERE at_ms >= $1 ORDER BY at_ms DESC, id DESC LIMIT $2',
      [toMs('recentDecisions', 'since', since), limit],
    );
    return rows.map(decisionFromRow);
  }

  async pullRequestHistory(cluster: string): Promise<PullRequestCycle[]> {
    const rows = await this.query(
      'pullRequestHistory',
      'SELECT * FROM pull_request_history WHERE cluster = $1 ORDER BY opened_at_ms DESC, id DESC',
      [cluster],
    );
    return rows.map(cycleFromRow);
  }

  async pullRequestCycle(id: number): Promise<PullRequestCycle | null> {
    const rows = await this.query('pullRequestCycle', 'SELECT * FROM pull_request_history WHERE id = $1', [
      id,
    ]);
    return rows[0] ? cycleFromRow(rows[0]) : null;
  }

  nodeEmptiness(nodes: readonly string[]): Promise<NodeEmptiness> {
    return this.withClient('nodeEmptiness', async (c) => {
      const rows = await c.query(nodeEmptinessSql('= ANY($1::text[])'), [[...nodes]]);
      const head = await c.query(OLDEST_SNAPSHOT_SQL);
      return nodeEmptinessFromRows(
        rows.rows as Parameters<typeof nodeEmptinessFromRows>[0],
        (head.rows[0] as { oldest: unknown } | undefined)?.oldest ?? null,
      );
    });
  }

  prune(before: string): Promise<number> {
    return this.withClient('prune', async (c) => {
      const result = await c.query('DELETE FROM utilization_samples WHERE at_ms < $1', [
        toMs('prune', 'before', before),
      ]);
      return result.rowCount ?? 0;
    });
  }
}
