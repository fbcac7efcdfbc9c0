/**
 * The SQLite store, the default: one file, WAL journal, synchronous calls wrapped in promises.
 * Writes of a snapshot run in one transaction with prepared statements. The driver is `libsql`
 * (better-sqlite3's API; its compiled SQLite comes as a per-platform npm package, so `npm ci`
 * needs no compiler and no download from anywhere but the npm registry).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'libsql';
import type { Snapshot } from '../cluster/types.js';
import { storeError } from './errors.js';
import { transaction } from './sqlite-transaction.js';
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
import { contentsParts, type SnapshotPartRow, snapshotFromPartRows } from './contents-parts.js';
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
import { INSERT_PUSHED_COMMIT, TRIM_PUSHED_COMMITS, type PushedCommit } from './pushed-commits.js';
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
import { makeDirs } from '../util/make-dirs.js';

type Row = Record<string, unknown>;

/** SQLite binds no booleans: they become 1/0. */
function bind(cells: Cell[]): (string | number | null)[] {
  return cells.map((c) => (typeof c === 'boolean' ? (c ? 1 : 0) : c));
}

function insertSql(table: string, columns: readonly string[]): string {
  return `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`;
}

/**
 * One statement inserting every row of a JSON array of arrays (cells in `columns` order): the rows
 * go over the driver as one text and SQLite's `json_each` unpacks them, where a statement per row
 * paid the driver's per-call cost once per row (a pass stores a sample per pod and a decision per
 * algorithm). Text, numbers and null keep their SQLite types (`->>`); booleans must be bound first.
 */
function insertJsonSql(table: string, columns: readonly string[]): string {
  const cells = columns.map((_, i) => `value->>${i}`).join(', ');
  return `INSERT INTO ${table} (${columns.join(', ')}) SELECT ${cells} FROM json_each(?)`;
}

export interface SqliteStoreOptions {
  /** Snapshots kept by `saveSnapshot` (newest first); older ones are deleted. */
  keepSnapshots: number;
  /**
   * Open the file read-only (SQLite's `mode=ro` URI parameter, SQLITE_OPEN_READONLY): every write,
   * a migration included, fails with SQLITE_READONLY, and the file is never created. Default false.
   */
  readOnly?: boolean;
}

export class SqliteStore implements Store, StatusStore {
  private readonly db: Database.Database;
  /** Prepared statements by SQL text: a reconcile pass asks once per algorithm, preparing is not free. */
  private readonly statements = new Map<string, Database.Statement>();

  /**
   * @param file a path, or `:memory:`. Writable: the folder is created when missing. Read-only:
   *   the file must exist; its journal mode is left as it is.
   * @throws StoreError (`open`) when the file cannot be opened (read-only: when it does not exist).
   */
  constructor(
    file: string,
    private readonly options: SqliteStoreOptions,
  ) {
    try {
      if (options.readOnly) {
        if (file === ':memory:' || !existsSync(file)) throw new Error(`no database file at ${file}`);
        // A URI, so that SQLite opens it read-only; pathToFileURL escapes `?`, `#` and `%` in the path.
        this.db = new Database(`${pathToFileURL(path.resolve(file)).href}?mode=ro`);
      } else {
        if (file !== ':memory:') makeDirs(path.dirname(path.resolve(file)));
        this.db = new Database(file);
        if (file !== ':memory:') this.db.pragma('journal_mode = WAL');
      }
      this.db.pragma('foreign_keys = ON');
      // A second process migrating or writing waits instead of failing with SQLITE_BUSY.
      this.db.pragma('busy_timeout = 10000');
      // What better-sqlite3, the driver before libsql, compiled in (SQLITE_DEFAULT_WAL_SYNCHRONOUS=1,
      // SQLITE_DEFAULT_CACHE_SIZE=-16000): in WAL mode NORMAL never corrupts the file (a power
      // cut may lose the last commits, which the next pass writes again), and a 16 MiB page cache
      // holds a 50,000-pod snapshot's pages while it is written or read.
      this.db.pragma('synchronous = NORMAL');
      this.db.pragma('cache_size = -16000');
    } catch (err) {
      throw storeError('open', err);
    }
  }

  /** The prepared statement of `sql`, prepared once per connection. */
  private prepare(sql: string): Database.Statement {
    let stmt = this.statements.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      this.statements.set(sql, stmt);
    }
    return stmt;
  }

  private run<T>(operation: string, fn: () => T): Promise<T> {
    try {
      return Promise.resolve(fn());
    } catch (err) {
      return Promise.reject(storeError(operation, err));
    }
  }

  migrate(): Promise<void> {
    return this.run('migrate', () => {
      // IMMEDIATE takes the write lock first, so two processes starting at once apply each
      // migration exactly once: the second waits (busy_timeout), then finds nothing pending.
      transaction(
        this.db,
        () => {
          this.db.exec(SCHEMA_MIGRATIONS_DDL);
          const applied = (this.db.prepare('SELECT id FROM schema_migrations').all() as Row[]).map((r) =>
            Number(r.id),
          );
          const record = this.db.prepare(
            'INSERT INTO schema_migrations (id, name, applied_at) VALUES (?, ?, ?)',
          );
          for (const m of pendingMigrations(applied)) {
            this.db.exec(migrationSql(m, 'sqlite'));
            record.run(m.id, m.name, new Date().toISOString());
          }
        },
        'IMMEDIATE',
      );
    });
  }

  appliedMigrations(): Promise<number[]> {
    return this.run('appliedMigrations', () => {
      const table = this.db
        .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")
        .get();
      if (!table) return [];
      return (this.db.prepare('SELECT id FROM schema_migrations ORDER BY id').all() as Row[]).map((r) =>
        Number(r.id),
      );
    });
  }

  close(): Promise<void> {
    return this.run('close', () => {
      if (this.db.open) this.db.close();
    });
  }

  /**
   * Stores a snapshot in one transaction and keeps the newest `keepSnapshots`. Its nodes and pods
   * are stored once per content digest (`snapshot_contents`, migration 5), in content-addressed
   * parts (migration 8, `contentsParts`: a changed pod writes its part, not every pod): a
   * snapshot equal to a stored one (the usual pass: the
   * cluster did not move) writes only its `snapshots` row. The
   * transaction takes the write lock first (IMMEDIATE), so another process's retention cannot
   * delete the contents between finding and naming them.
   */
  saveSnapshot(snapshot: Snapshot): Promise<number> {
    return this.run('saveSnapshot', () => {
      const takenAtMs = toMs('saveSnapshot', 'takenAt', snapshot.takenAt);
      const digest = snapshotContentDigest(snapshot);
      return transaction(
        this.db,
        () => {
          const found = this.prepare('SELECT id FROM snapshot_contents WHERE digest = ?').get(digest) as
            { id: number } | undefined;
          const contentsId = found ? Number(found.id) : this.insertContents(digest, snapshot);
          const id = Number(
            this.prepare(
              'INSERT INTO snapshots (taken_at, taken_at_ms, warnings, contents_id) VALUES (?, ?, ?, ?)',
            ).run(snapshot.takenAt, takenAtMs, warningsCell(snapshot), contentsId).lastInsertRowid,
          );
          // One statement for every node (the cells as one JSON parameter); it writes only the rows that change.
          this.prepare(
            upsertNodeActivitySql(
              `SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]')
                 FROM json_each(?) WHERE true`,
            ),
          ).run(JSON.stringify(nodeActivityCells(snapshot.nodes, takenAtMs)));
          this.prepare(retainSnapshotsSql('?')).run(this.options.keepSnapshots);
          if (this.prepare(DELETE_UNUSED_CONTENTS_SQL).run().changes > 0)
            this.prepare(DELETE_UNUSED_PARTS_SQL).run();
          return id;
        },
        'IMMEDIATE',
      );
    });
  }

  /**
   * Writes a new `snapshot_contents` row and names its parts, storing only the parts not stored
   * yet (one part's text at a time); its id. In the caller's (IMMEDIATE) transaction, so no other
   * writer's retention deletes a part between finding and naming it.
   */
  private insertContents(digest: string, snapshot: Snapshot): number {
    const id = Number(
      this.prepare('INSERT INTO snapshot_contents (digest) VALUES (?)').run(digest).lastInsertRowid,
    );
    const stored = this.prepare('SELECT 1 AS found FROM snapshot_parts WHERE digest = ?');
    const insert = this.prepare(
      'INSERT INTO snapshot_parts (digest, records) VALUES (?, ?) ON CONFLICT (digest) DO NOTHING',
    );
    const named: [string, number, string][] = [];
    for (const part of contentsParts(snapshot)) {
      if (!stored.get(part.digest)) insert.run(part.digest, part.text);
      named.push([part.kind, part.position, part.digest]);
    }
    this.prepare(
      `INSERT INTO contents_parts (contents_id, kind, position, part)
         SELECT ?, json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]')
           FROM json_each(?)`,
    ).run(id, JSON.stringify(named));
    return id;
  }

  latestSnapshot(): Promise<Snapshot | null> {
    return this.run('latestSnapshot', () => {
      const rows = this.prepare(LATEST_SNAPSHOT_SQL).all() as SnapshotPartRow[];
      return rows.length > 0 ? snapshotFromPartRows(rows) : null;
    });
  }

  recordBenchmarkRun(run: BenchmarkRun): Promise<void> {
    return this.run('recordBenchmarkRun', () => {
      this.prepare(insertSql('benchmark_runs', BENCHMARK_COLUMNS)).run(...bind(benchmarkCells(run)));
    });
  }

  benchmarkRuns(algorithm: string, specHash: string): Promise<BenchmarkRun[]> {
    return this.run('benchmarkRuns', () =>
      (
        this.prepare(
          `SELECT * FROM benchmark_runs WHERE algorithm = ? AND spec_hash = ?
             ORDER BY started_at_ms, run, id`,
        ).all(algorithm, specHash) as Row[]
      ).map(benchmarkFromRow),
    );
  }

  benchmarkRunsFor(keys: readonly BenchmarkRunKey[]): Promise<Map<string, BenchmarkRun[]>> {
    // One statement for every pair: the pairs go in as one JSON parameter (json_each), so the
    // count never meets SQLite's bound-parameter limit; the (algorithm, spec_hash) index serves it.
    const pairs = [...new Map(keys.map((k) => [k.algorithm, k.specHash]))];
    return this.run('benchmarkRunsFor', () =>
      groupBy(
        (
          this.prepare(
            `SELECT b.* FROM json_each(?) AS k
               JOIN benchmark_runs AS b
                 ON b.algorithm = json_extract(k.value, '$[0]') AND b.spec_hash = json_extract(k.value, '$[1]')
             ORDER BY b.started_at_ms, b.run, b.id`,
          ).all(JSON.stringify(pairs)) as Row[]
        ).map(benchmarkFromRow),
        (r) => r.algorithm,
      ),
    );
  }

  benchmarkRunsVersion(): Promise<string> {
    return this.run('benchmarkRunsVersion', () => {
      const row = this.prepare(BENCHMARK_RUNS_VERSION_SQL).get() as Row;
      return `${Number(row.n)}/${Number(row.last)}`;
    });
  }

  saveSamples(samples: UtilizationSampleRecord[]): Promise<void> {
    return this.run('saveSamples', () => {
      if (samples.length === 0) return;
      const rows = JSON.stringify(samples.map((s) => bind(sampleCells(s))));
      this.prepare(insertJsonSql('utilization_samples', SAMPLE_COLUMNS)).run(rows);
    });
  }

  samples(algorithm: string, since: string): Promise<UtilizationSampleRecord[]> {
    return this.run('samples', () =>
      (
        this.prepare(
          'SELECT * FROM utilization_samples WHERE algorithm = ? AND at_ms >= ? ORDER BY at_ms, id',
        ).all(algorithm, toMs('samples', 'since', since)) as Row[]
      ).map(sampleFromRow),
    );
  }

  recordDecision(decision: DecisionRecord): Promise<void> {
    return this.run('recordDecision', () => {
      this.prepare(insertSql('decisions', DECISION_COLUMNS)).run(...bind(decisionCells(decision)));
    });
  }

  recordDecisions(decisions: readonly DecisionRecord[]): Promise<void> {
    return this.run('recordDecisions', () => {
      if (decisions.length === 0) return;
      const rows = JSON.stringify(decisions.map((d) => bind(decisionCells(d))));
      this.prepare(insertJsonSql('decisions', DECISION_COLUMNS)).run(rows);
    });
  }

  pruneHistory(before: string): Promise<PrunedHistory> {
    return this.run('pruneHistory', () => {
      const ms = toMs('pruneHistory', 'before', before);
      return transaction(this.db, () => ({
        decisions: this.prepare(pruneDecisionsSql('?')).run(ms).changes,
        samples: this.prepare(pruneSamplesSql('?')).run(ms).changes,
      }));
    });
  }

  decisions(subject: string, since: string): Promise<DecisionRecord[]> {
    return this.run('decisions', () =>
      (
        this.prepare('SELECT * FROM decisions WHERE subject = ? AND at_ms >= ? ORDER BY at_ms, id').all(
          subject,
          toMs('decisions', 'since', since),
        ) as Row[]
      ).map(decisionFromRow),
    );
  }

  decisionsSince(subjects: readonly string[], since: string): Promise<Map<string, DecisionRecord[]>> {
    return this.run('decisionsSince', () =>
      groupBy(
        (
          this.prepare(
            `SELECT d.* FROM decisions AS d
             WHERE d.subject IN (SELECT value FROM json_each(?)) AND d.at_ms >= ?
             ORDER BY d.at_ms, d.id`,
          ).all(JSON.stringify([...new Set(subjects)]), toMs('decisionsSince', 'since', since)) as Row[]
        ).map(decisionFromRow),
        (d) => d.subject,
      ),
    );
  }

  upsertPullRequest(pr: PullRequestRecord): Promise<void> {
    return this.run('upsertPullRequest', () => {
      transaction(
        this.db,
        () => {
          this.prepare(`${insertSql('pull_requests', PULL_REQUEST_COLUMNS)} ${pullRequestUpsertTail()}`).run(
            ...bind(pullRequestCells(pr)),
          );
          this.recordCycle(pr);
        },
        'IMMEDIATE',
      );
    });
  }

  /** Inserts or updates the branch's pull request cycle (see `cycleAction`); in the caller's transaction. */
  private recordCycle(pr: PullRequestRecord): void {
    const row = this.prepare(
      'SELECT * FROM pull_request_history WHERE cluster = ? AND branch = ? ORDER BY id DESC LIMIT 1',
    ).get(pr.cluster, pr.branch) as Row | undefined;
    const latest = row ? cycleFromRow(row) : null;
    if (cycleAction(latest, pr) === 'insert') {
      this.prepare(insertSql('pull_request_history', CYCLE_COLUMNS)).run(...bind(newCycleCells(pr)));
    } else {
      this.prepare(
        `UPDATE pull_request_history SET ${CYCLE_UPDATE_COLUMNS.map((c) => `${c} = ?`).join(', ')} WHERE id = ?`,
      ).run(...bind(cycleUpdateCells(latest!, pr)), latest!.id);
    }
  }

  pullRequests(cluster: string): Promise<PullRequestRecord[]> {
    return this.run('pullRequests', () =>
      (
        this.prepare(
          'SELECT * FROM pull_requests WHERE cluster = ? ORDER BY updated_at_ms DESC, id DESC',
        ).all(cluster) as Row[]
      ).map(pullRequestFromRow),
    );
  }

  pushedCommits(shas: readonly string[]): Promise<string[]> {
    return this.run('pushedCommits', () =>
      (
        this.prepare('SELECT sha FROM pushed_commits WHERE sha IN (SELECT value FROM json_each(?))').all(
          JSON.stringify([...new Set(shas)]),
        ) as Row[]
      ).map((r) => r.sha as string),
    );
  }

  recordPushedCommits(commits: readonly PushedCommit[]): Promise<void> {
    return this.run('recordPushedCommits', () => {
      this.db
        .transaction(() => {
          for (const c of commits)
            this.prepare(INSERT_PUSHED_COMMIT).run(
              c.sha,
              c.branch,
              c.at,
              toMs('recordPushedCommits', 'at', c.at),
            );
          for (const b of new Set(commits.map((c) => c.branch))) this.prepare(TRIM_PUSHED_COMMITS).run(b, b);
        })
        .immediate();
    });
  }

  recordBenchmarkJobUid(r: BenchmarkJobUid): Promise<void> {
    return this.run('recordBenchmarkJobUid', () => {
      const ms = toMs('recordBenchmarkJobUid', 'at', r.at);
      this.db
        .transaction(() => {
          this.prepare(UPSERT_BENCHMARK_JOB_UID).run(r.namespace, r.jobName, r.uid, r.at, ms);
          this.prepare(TRIM_BENCHMARK_JOB_UIDS).run(ms - BENCHMARK_JOB_UID_RETENTION_MS);
        })
        .immediate();
    });
  }

  recordBenchmarkSignalSample(sample: BenchmarkSignalSample): Promise<void> {
    return this.run('recordBenchmarkSignalSample', () => {
      const ms = toMs('recordBenchmarkSignalSample', 'at', sample.at);
      this.prepare(INSERT_BENCHMARK_SIGNAL_SAMPLE).run(...benchmarkSignalCells(sample, ms));
    });
  }

  benchmarkSignalSamples(algorithm: string, specHash: string): Promise<BenchmarkSignalSample[]> {
    return this.run('benchmarkSignalSamples', () =>
      (this.prepare(SELECT_BENCHMARK_SIGNAL_SAMPLES).all(algorithm, specHash) as Row[]).map(
        benchmarkSignalFromRow,
      ),
    );
  }

  benchmarkJobOwner(namespace: string, jobName: string): Promise<BenchmarkJobOwner> {
    return this.run('benchmarkJobOwner', () => {
      const row = this.prepare(SELECT_BENCHMARK_JOB_OWNER).get(
        namespace,
        jobName,
        BENCHMARK_JOB_UIDS_MIGRATION,
      ) as Row;
      return {
        uid: (row.uid as string | null) ?? null,
        recordingSince: (row.recording_since as string | null) ?? null,
      };
    });
  }

  saveFleetStatus(status: FleetStatusRecord): Promise<void> {
    return this.run('saveFleetStatus', () => {
      this.prepare(
        `INSERT INTO fleet_status (cluster, at, at_ms, body) VALUES (?, ?, ?, ?)
           ON CONFLICT (cluster) DO UPDATE SET at = excluded.at, at_ms = excluded.at_ms, body = excluded.body`,
      ).run(...bind(fleetStatusCells(status)));
    });
  }

  clusters(): Promise<string[]> {
    return this.run('clusters', () =>
      (this.prepare(CLUSTERS_SQL).all() as Row[]).map((r) => r.cluster as string),
    );
  }

  fleetStatus(cluster: string): Promise<FleetStatusRecord | null> {
    return this.run('fleetStatus', () => {
      const row = this.prepare('SELECT body FROM fleet_status WHERE cluster = ?').get(cluster) as
        Row | undefined;
      return row ? fleetStatusFromRow(row) : null;
    });
  }

  recentDecisions(since: string, limit: number): Promise<DecisionRecord[]> {
    return this.run('recentDecisions', () =>
      (
        this.prepare('SELECT * FROM decisions WHERE at_ms >= ? ORDER BY at_ms DESC, id DESC LIMIT ?').all(
          toMs('recentDecisions', 'since', since),
          limit,
        ) as Row[]
      ).map(decisionFromRow),
    );
  }

  pullRequestHistory(cluster: string): Promise<PullRequestCycle[]> {
    return this.run('pullRequestHistory', () =>
      (
        this.prepare(
          'SELECT * FROM pull_request_history WHERE cluster = ? ORDER BY opened_at_ms DESC, id DESC',
        ).all(cluster) as Row[]
      ).map(cycleFromRow),
    );
  }

  pullRequestCycle(id: number): Promise<PullRequestCycle | null> {
    return this.run('pullRequestCycle', () => {
      const row = this.prepare('SELECT * FROM pull_request_history WHERE id = ?').get(id) as Row | undefined;
      return row ? cycleFromRow(row) : null;
    });
  }

  nodeEmptiness(nodes: readonly string[]): Promise<NodeEmptiness> {
    return this.run('nodeEmptiness', () =>
      transaction(this.db, () => {
        const rows = this.prepare(nodeEmptinessSql('IN (SELECT value FROM json_each(?))')).all(
          JSON.stringify(nodes),
        ) as Parameters<typeof nodeEmptinessFromRows>[0];
        const head = this.prepare(OLDEST_SNAPSHOT_SQL).get() as { oldest: unknown } | undefined;
        return nodeEmptinessFromRows(rows, head?.oldest ?? null);
      }),
    );
  }

  prune(before: string): Promise<number> {
    return this.run('prune', () =>
      Number(
        this.prepare('DELETE FROM utilization_samples WHERE at_ms < ?').run(toMs('prune', 'before', before))
          .changes,
      ),
    );
  }
}
