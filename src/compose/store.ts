/**
 * Opening the database, the one place: a pass's (`compose.ts`), a command's, the read-only
 * commands' (never created, never migrated) and a dry run's (never a new file).
 */
import { existsSync } from 'node:fs';
import { openStore, statusStoreOf, type StatusStore, type Store } from '../store/index.js';
import type { OpenStoreOptions } from '../store/index.js';

/**
 * Opens the database of `url` (`sqlite:PATH`, `postgres://…`; see `store/open-store.ts`).
 * @throws StoreError when it cannot be opened or migrated
 */
export function openDatabase(url: string, options?: OpenStoreOptions): Promise<Store> {
  return openStore(url, options);
}

/** The file of a `sqlite:PATH` / `sqlite://PATH` URL; `null` for other databases. */
export function sqliteFile(database: string): string | null {
  return database.startsWith('sqlite:') ? database.slice('sqlite:'.length).replace(/^\/\//, '') : null;
}

/**
 * The database a `--dry-run` pass opens. A SQLite file that does not exist yet is replaced by a
 * private in-memory database (`sqlite::memory:`): the pass reads no history (no benchmark, no
 * decision, as on a first run) and leaves no file behind, because a dry run writes nothing anywhere
 * (docs/design.md, "Command-line contract": `--dry-run`). An existing file or a PostgreSQL URL is
 * used as given; the pass itself skips every write when dry-run is set.
 */
export function dryRunDatabase(database: string): string {
  const file = sqliteFile(database);
  return file !== null && file !== ':memory:' && !existsSync(file) ? 'sqlite::memory:' : database;
}

/**
 * Whether a pass over `database` opens it read-only: a dry run does (it writes nothing, not even a
 * schema migration), except on the private in-memory database {@link dryRunDatabase} gives it
 * when there is no file yet, which starts empty and must be given the schema.
 */
export function passOpensReadOnly(settings: { dryRun: boolean; database: string }): boolean {
  return settings.dryRun && settings.database !== 'sqlite::memory:';
}

/**
 * Opens the database of a read-only command (`prs`, `status`) read-only. Never creates one: a
 * mistyped SQLite path is an error naming `--database`, not an empty answer; never migrates one.
 * @throws Error naming `--database` when the SQLite file is missing; StoreSchemaBehindError when
 *   the database has migrations pending (it names `gpuops migrate`); StoreError when it cannot be opened
 */
export async function openExistingStore(database: string): Promise<Store & StatusStore> {
  const file = sqliteFile(database);
  if (file !== null && file !== ':memory:' && !existsSync(file)) {
    throw new Error(`--database: no database at ${file} (gpuops writes it on its first reconcile)`);
  }
  const store = await openStore(database, { readOnly: true });
  const status = statusStoreOf(store);
  if (!status) {
    await store.close();
    throw new Error(`--database: this store keeps no status or pull request history`);
  }
  return status;
}
