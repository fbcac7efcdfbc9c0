/**
 * Picks the Store implementation from a database URL (`--database` / `GPUOPS_DATABASE_URL`,
 * resolved by the CLI's settings) and brings its schema up to date.
 */
import { connectionError } from './connect-error.js';
import { StoreError, redactUrl } from './errors.js';
import type { Store } from './types.js';

/** Default number of snapshots kept; older ones are deleted when a new one is saved. */
export const DEFAULT_KEEP_SNAPSHOTS = 50;

export interface OpenStoreOptions {
  /** Snapshots to keep (≥ 1, default {@link DEFAULT_KEEP_SNAPSHOTS}). */
  keepSnapshots?: number;
  /** Apply pending migrations before returning (default true; safe on every start). */
  migrate?: boolean;
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
 * Runs `migrate()` unless `options.migrate` is false; on a failed migration the store is closed.
 * @throws StoreError (`open`) for an unknown scheme, an empty path or bad options, and
 *   (`migrate`) when the database cannot be upgraded; StoreConnectionError (`connect`) when it
 *   cannot be reached or opened (`cannot connect to PostgreSQL at HOST:PORT (--database): …`,
 *   see {@link connectionError}). Messages never contain the password of the URL.
 */
export async function openStore(url: string, options: OpenStoreOptions = {}): Promise<Store> {
  const keepSnapshots = options.keepSnapshots ?? DEFAULT_KEEP_SNAPSHOTS;
  if (!Number.isInteger(keepSnapshots) || keepSnapshots < 1) {
    throw new StoreError('open', `keepSnapshots must be a whole number ≥ 1, got ${String(keepSnapshots)}`);
  }
  const setting = options.setting ?? '--database';
  let store: Store;
  try {
    store = await createStore(url, keepSnapshots);
  } catch (err) {
    throw connectionError(url, err, setting, 'open');
  }
  if (options.migrate !== false) {
    try {
      await store.migrate();
    } catch (err) {
      await store.close().catch(() => undefined);
      throw connectionError(url, err, setting, 'migrate');
    }
  }
  return store;
}

/** Loads only the driver the URL names (`pg` or `better-sqlite3`): a CLI start pays for one. */
async function createStore(url: string, keepSnapshots: number): Promise<Store> {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
  if (scheme === 'sqlite') {
    let file = url.slice('sqlite:'.length);
    if (file.startsWith('//')) file = file.slice(2);
    if (file === '') throw new StoreError('open', `database URL "${url}" has no file path: use sqlite:PATH`);
    const { SqliteStore } = await import('./sqlite-store.js');
    return new SqliteStore(file, { keepSnapshots });
  }
  if (scheme === 'postgres' || scheme === 'postgresql') {
    const { PostgresStore } = await import('./postgres-store.js');
    return new PostgresStore(url, { keepSnapshots });
  }
  throw new StoreError(
    'open',
    `unsupported database URL "${redactUrl(url)}": use sqlite:PATH, sqlite::memory: or postgres://user:password@host:port/database`,
  );
}
