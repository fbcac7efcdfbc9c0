/**
 * Picks the Store implementation from a database URL (`--database` / `GPUOPS_DATABASE_URL`,
 * resolved by the CLI's settings) and brings its schema up to date, or, read-only, checks that it
 * is up to date.
 */
import { connectionError } from './connect-error.js';
import { StoreError, redactUrl } from './errors.js';
import { pendingMigrations } from './migrations.js';
import { schemaBehindError } from './schema-behind.js';
import type { Store } from './types.js';

/** Default number of snapshots kept; older ones are deleted when a new one is saved. */
export const DEFAULT_KEEP_SNAPSHOTS = 50;

/** How `openStore` opens the database; every field optional. */
export interface OpenStoreOptions {
  /** Snapshots to keep (≥ 1, default {@link DEFAULT_KEEP_SNAPSHOTS}). */
  keepSnapshots?: number;
  /** Apply pending migrations before returning (default true; safe on every start). */
  migrate?: boolean;
  /**
   * Open for reading only (`status`, `prs`, `plan`, `--dry-run`): a SQLite file is opened with
   * SQLite's read-only flag and must exist, a PostgreSQL session is `READ ONLY`, nothing is
   * migrated, and a database with pending migrations is refused ({@link StoreSchemaBehindError}).
   * Default false.
   */
  readOnly?: boolean;
  /** The setting the URL came from, named in connection errors (default `--database`). */
  setting?: string;
}

/**
 * Opens the database named by `url`:
 * - `sqlite:PATH` (also `sqlite://PATH`, `sqlite:///abs/path`): a SQLite file; its folder is
 *   created. `sqlite::memory:` is a private in-memory database (tests).
 * - `postgres://user:password@host:port/db` or `postgresql://…`: a PostgreSQL connection pool
 *   (libpq URL parameters such as `sslmode` are honoured by `pg`).
 *
 * Runs `migrate()` unless `options.migrate` is false or `options.readOnly` is set; read-only it
 * compares the recorded migrations with this build's instead. On any failure the store is closed.
 * @throws StoreError (`open`) for an unknown scheme, an empty path or bad options, and
 *   (`migrate`) when the database cannot be upgraded or was migrated by a newer gpuops;
 *   StoreSchemaBehindError (`open`) when read-only finds migrations pending; StoreConnectionError
 *   (`connect`) when it cannot be reached or opened (`cannot connect to PostgreSQL at HOST:PORT
 *   (--database): …`, see {@link connectionError}). Messages never contain the password of the URL.
 */
export async function openStore(url: string, options: OpenStoreOptions = {}): Promise<Store> {
  const keepSnapshots = options.keepSnapshots ?? DEFAULT_KEEP_SNAPSHOTS;
  if (!Number.isInteger(keepSnapshots) || keepSnapshots < 1) {
    throw new StoreError('open', `keepSnapshots must be a whole number ≥ 1, got ${String(keepSnapshots)}`);
  }
  const setting = options.setting ?? '--database';
  const readOnly = options.readOnly === true;
  let store: Store;
  try {
    store = await createStore(url, keepSnapshots, readOnly);
  } catch (err) {
    throw connectionError(url, err, setting, 'open');
  }
  if (readOnly) {
    let pending;
    try {
      pending = pendingMigrations(await store.appliedMigrations());
    } catch (err) {
      await store.close().catch(() => undefined);
      throw connectionError(url, err, setting, 'migrate');
    }
    if (pending.length > 0) {
      await store.close().catch(() => undefined);
      throw schemaBehindError(url, setting, pending);
    }
  } else if (options.migrate !== false) {
    try {
      await store.migrate();
    } catch (err) {
      await store.close().catch(() => undefined);
      throw connectionError(url, err, setting, 'migrate');
    }
  }
  return store;
}

/** Loads only the driver the URL names (`pg` or `libsql`): a CLI start pays for one. */
async function createStore(url: string, keepSnapshots: number, readOnly: boolean): Promise<Store> {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
  if (scheme === 'sqlite') {
    let file = url.slice('sqlite:'.length);
    if (file.startsWith('//')) file = file.slice(2);
    if (file === '') throw new StoreError('open', `database URL "${url}" has no file path: use sqlite:PATH`);
    const { SqliteStore } = await import('./sqlite-store.js');
    return new SqliteStore(file, { keepSnapshots, readOnly });
  }
  if (scheme === 'postgres' || scheme === 'postgresql') {
    const { PostgresStore } = await import('./postgres-store.js');
    return new PostgresStore(url, { keepSnapshots, readOnly });
  }
  throw new StoreError(
    'open',
    `unsupported database URL "${redactUrl(url)}": use sqlite:PATH, sqlite::memory: or postgres://user:password@host:port/database`,
  );
}
