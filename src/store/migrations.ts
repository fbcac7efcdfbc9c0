/**
 * The versioned schema, shared by the SQLite and PostgreSQL stores. Each migration is applied
 * once, in id order, inside a transaction, and recorded in `schema_migrations`. Append new
 * migrations at the end; never edit one that has shipped.
 *
 * Time columns come in pairs: `<name>` keeps the ISO-8601 text exactly as given (so records
 * round-trip byte for byte) and `<name>_ms` holds the same instant in epoch milliseconds for
 * ordering, ranges and retention (text comparison would break across offsets and precisions).
 */
import { TYPES, type Dialect, type Migration } from './migration-types.js';
import { INITIAL_MIGRATION } from './migrations-initial.js';
import { HISTORY_MIGRATIONS } from './migrations-history.js';
import { CONTENTS_MIGRATIONS } from './migrations-contents.js';
import { BOOKKEEPING_MIGRATIONS } from './migrations-bookkeeping.js';
import { FLEET_POOLS_MIGRATION } from './fleet-status-pools.js';
import { READY_PODS_MIGRATION } from './decision-ready-pods.js';
import { NODE_ACTIVITY_SNAPSHOT_MIGRATION } from './snapshot-refresh.js';

export type { Dialect, Migration } from './migration-types.js';

/** Every migration, in id order. */
export const MIGRATIONS: readonly Migration[] = [
  INITIAL_MIGRATION,
  ...HISTORY_MIGRATIONS,
  ...CONTENTS_MIGRATIONS,
  ...BOOKKEEPING_MIGRATIONS,
  FLEET_POOLS_MIGRATION,
  READY_PODS_MIGRATION,
  NODE_ACTIVITY_SNAPSHOT_MIGRATION,
];

/** The statements of one migration for one dialect. */
export function migrationSql(m: Migration, dialect: Dialect): string {
  return m.sql(TYPES[dialect], dialect);
}

/** DDL of the bookkeeping table; the same in both dialects. */
export const SCHEMA_MIGRATIONS_DDL = `CREATE TABLE IF NOT EXISTS schema_migrations (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  applied_at TEXT NOT NULL
)`;

/**
 * The migrations still to apply given the ids already applied. Throws when the database has a
 * migration this build does not know (written by a newer gpuops): running on would corrupt it.
 */
export function pendingMigrations(applied: readonly number[]): Migration[] {
  const known = new Set(MIGRATIONS.map((m) => m.id));
  const unknown = applied.filter((id) => !known.has(id));
  if (unknown.length > 0) {
    const latest = Math.max(...MIGRATIONS.map((m) => m.id));
    throw new Error(
      `the database has schema migration ${Math.max(...unknown)}, newer than this gpuops knows (${latest}); upgrade gpuops`,
    );
  }
  const done = new Set(applied);
  return MIGRATIONS.filter((m) => !done.has(m.id)).sort((a, b) => a.id - b.id);
}
