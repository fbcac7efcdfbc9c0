/**
 * The SQLite connection of the store: opening the file (WAL journal, pragmas), the migrations, and
 * the SQL helpers its queries share. The driver is `libsql` (better-sqlite3's API).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'libsql';
import { storeError } from './errors.js';
import { transaction } from './sqlite-transaction.js';
import { migrationSql, pendingMigrations, SCHEMA_MIGRATIONS_DDL } from './migrations.js';
import type { Cell } from './rows.js';
import type { WalCheckpoint } from './wal-checkpoint.js';
import { makeDirs } from '../disk/index.js';

/** One result row as the driver gives it: column name → value (text, number or null; JSON as text). */
export type Row = Record<string, unknown>;

/** SQLite binds no booleans: they become 1/0. */
export function bind(cells: Cell[]): (string | number | null)[] {
  return cells.map((c) => (typeof c === 'boolean' ? (c ? 1 : 0) : c));
}

/** `INSERT` of one row, a `?` per column. */
export function insertSql(table: string, columns: readonly string[]): string {
  return `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`;
}

/**
 * SQLite's automatic checkpoint (pages of 4 KiB in the write-ahead log): ten times SQLite's
 * default of 1,000. A commit that carries the log past it copies the log into the file there and
 * then, with two fsyncs (20–50 ms at 2,000 GPU nodes, docs/performance.md); the loop checkpoints
 * between passes instead (`SqliteSession.checkpoint`), so this is only the bound of a log nobody
 * checkpoints (a one-shot command between its commits, a loop whose checkpoint a reader keeps
 * from finishing): about 40 MiB.
 */
export const WAL_AUTOCHECKPOINT_PAGES = 10_000;

/**
 * `journal_size_limit` (bytes): when the log starts over after a checkpoint, a log file larger
 * than this is cut back to it, so one large pass (the first snapshot of 10,000 nodes) does not
 * leave a file of its size behind.
 */
export const WAL_SIZE_LIMIT_BYTES = 16 * 1024 * 1024;

/** How long (ms) a statement waits for another connection's lock before SQLITE_BUSY. */
const BUSY_TIMEOUT_MS = 10_000;

/** How the SQLite store opens its file and what it keeps. */
export interface SqliteStoreOptions {
  /** Snapshots kept by `saveSnapshot` (newest first); older ones are deleted. */
  keepSnapshots: number;
  /**
   * Open the file read-only (SQLite's `mode=ro` URI parameter, SQLITE_OPEN_READONLY): every write,
   * a migration included, fails with SQLITE_READONLY, and the file is never created. Default false.
   */
  readOnly?: boolean;
}

/**
 * One SQLite connection with its prepared statements: opening the file, the schema migrations, and
 * `run`, which turns a driver error into a StoreError naming the operation. The queries by table
 * group (sqlite-snapshots.ts, sqlite-benchmarks.ts, sqlite-history.ts, sqlite-pull-requests.ts)
 * run on it.
 */
export class SqliteSession {
  readonly db: Database.Database;
  /** Prepared statements by SQL text: a reconcile pass asks once per algorithm, preparing is not free. */
  private readonly statements = new Map<string, Database.Statement>();

  /**
   * @param file a path, or `:memory:`. Writable: the folder is created when missing. Read-only:
   *   the file must exist; its journal mode is left as it is.
   * @throws StoreError (`open`) when the file cannot be opened (read-only: when it does not exist).
   */
  constructor(
    file: string,
    readonly options: SqliteStoreOptions,
  ) {
    try {
      if (options.readOnly) {
        if (file === ':memory:' || !existsSync(file)) throw new Error(`no database file at ${file}`);
        // A URI, so that SQLite opens it read-only; pathToFileURL escapes `?`, `#` and `%` in the path.
        this.db = new Database(`${pathToFileURL(path.resolve(file)).href}?mode=ro`);
      } else {
        if (file !== ':memory:') makeDirs(path.dirname(path.resolve(file)));
        this.db = new Database(file);
        if (file !== ':memory:') {
          this.db.pragma('journal_mode = WAL');
          // The pass's commits no longer carry the log into the file (`checkpoint`, below): SQLite's
          // own checkpoint is the backstop for a writer that never calls it, and the log's file is
          // cut back to its limit when it starts over.
          this.db.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
          this.db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
        }
      }
      this.db.pragma('foreign_keys = ON');
      // A second process migrating or writing waits instead of failing with SQLITE_BUSY.
      this.db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
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
  prepare(sql: string): Database.Statement {
    let stmt = this.statements.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      this.statements.set(sql, stmt);
    }
    return stmt;
  }

  /** `fn`'s result, or a StoreError naming `operation` when it throws. */
  run<T>(operation: string, fn: () => T): Promise<T> {
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

  /**
   * Copies the write-ahead log into the database file, without waiting for any reader or writer
   * (`PRAGMA wal_checkpoint(PASSIVE)`: what SQLite's automatic checkpoint runs, fsync of the log
   * and of the file included), then, when it copied all of it, starts the log over itself: a
   * commit writing `user_version` back unchanged, and its fsync (`startLogOver`). A loop calls it
   * between passes, off their critical path; a pass's commits then never pay for either. Answers
   * the log's pages (frames) and how many of them are now in the file; `null` for a read-only or
   * in-memory database, which has no log.
   * @throws StoreError naming `checkpoint` when SQLite fails (a rejected promise): the copy, or
   *   the start's commit (SQLITE_FULL: disk full; SQLITE_READONLY: the file became read-only;
   *   SQLITE_IOERR: an I/O error). A lock held by another connection is not an error.
   */
  checkpoint(): Promise<WalCheckpoint | null> {
    return this.run('checkpoint', () => {
      if (this.options.readOnly || this.db.memory) return null;
      const r = (this.db.pragma('wal_checkpoint(PASSIVE)') as Row[])[0];
      // -1 for both when the database is not in WAL mode.
      if (!r || Number(r.log) < 0) return null;
      const done = {
        busy: Number(r.busy) !== 0,
        logPages: Number(r.log),
        copiedPages: Number(r.checkpointed),
      };
      // One page is the last start's own commit (a pass that wrote nothing): no commit, no fsync.
      if (!done.busy && done.logPages > 1 && done.copiedPages === done.logPages) this.startLogOver();
      return done;
    });
  }

  /**
   * Starts the write-ahead log over now, after a checkpoint copied all of it, rather than in the
   * next pass's first commit: the commit that starts a log writes its header and waits for it to
   * reach the disk (an fsync, even at `synchronous = NORMAL`; SQLite's `sqlite3WalFrames`), which
   * every pass's first commit (its snapshot's) paid. A commit needs a page to write: this one
   * writes `user_version` back unchanged (the database header's page), so nothing stored moves.
   * It waits for no other writer (`busy_timeout` 0 while it runs, 10 s again after): one that
   * holds the lock (SQLITE_BUSY or an extended code) leaves the start to the next commit, as
   * before. A log of one page is this start's own commit, copied: not started again (a pass that
   * wrote nothing pays no commit). Other errors are thrown (disk full, read-only file, I/O).
   */
  private startLogOver(): void {
    this.db.pragma('busy_timeout = 0');
    try {
      transaction(
        this.db,
        () => {
          const row = this.db.prepare('PRAGMA user_version').get() as Row;
          const version = Number(row.user_version);
          if (!Number.isSafeInteger(version))
            throw new Error(`user_version reads ${String(row.user_version)}`);
          this.db.exec(`PRAGMA user_version = ${version}`);
        },
        'IMMEDIATE',
      );
    } catch (err) {
      // SQLITE_BUSY and its extended codes (SQLITE_BUSY_RECOVERY, _SNAPSHOT, _TIMEOUT): libsql
      // reports the extended name.
      if (!String((err as { code?: unknown }).code ?? '').startsWith('SQLITE_BUSY')) throw err;
    } finally {
      this.db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    }
  }

  close(): Promise<void> {
    return this.run('close', () => {
      if (this.db.open) this.db.close();
    });
  }
}
