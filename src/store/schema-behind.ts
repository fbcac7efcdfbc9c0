/**
 * The error of a read-only open (`gpuops status`, `prs`, `plan`, `--dry-run`) that finds the
 * database's schema older than this build's. A read-only command never migrates (docs/design.md,
 * "Architecture": "not even a schema migration"): against a shared PostgreSQL, one `status` from a
 * newer laptop build would otherwise upgrade production under the running controllers, which then
 * refuse it.
 */
import { StoreError, redactSecrets } from './errors.js';
import type { Migration } from './migrations.js';

/** A database with schema migrations pending, opened read-only. Its message is whole. */
export class StoreSchemaBehindError extends StoreError {
  /**
   * @param pending the migrations this build would apply, in id order (never empty)
   */
  constructor(
    message: string,
    readonly pending: readonly Pick<Migration, 'id' | 'name'>[],
  ) {
    super('open', message);
    this.message = redactSecrets(message);
  }
}

/** The database of `url` as a person names it: the SQLite file, or PostgreSQL's URL without a password. */
function databaseName(url: string): string {
  return /^sqlite:/i.test(url)
    ? `SQLite database ${url.slice('sqlite:'.length).replace(/^\/\//, '')}`
    : `PostgreSQL database ${url}`;
}

/**
 * The refusal of a read-only open, naming the database, the setting it came from, the migrations
 * missing and the command that applies them:
 * `the SQLite database /x/state.db (--database) is at schema migration 4, this gpuops needs 5
 * (5 shared snapshot contents); a read-only command never changes the schema: run `gpuops migrate
 * --database sqlite:/x/state.db` first, or start `gpuops run`, which migrates` (a password in the
 * URL shows as `***`). A database with no migration at all
 * (a 0-byte file, another program's database) says it has no gpuops schema.
 */
export function schemaBehindError(
  url: string,
  setting: string,
  pending: readonly Pick<Migration, 'id' | 'name'>[],
): StoreSchemaBehindError {
  const first = pending[0]!;
  const latest = pending[pending.length - 1]!;
  const where = `the ${databaseName(url)} (${setting})`;
  const state =
    first.id === 1
      ? `${where} has no gpuops schema (an empty file, or not a gpuops database)`
      : `${where} is at schema migration ${first.id - 1}, this gpuops needs ${latest.id} (${pending
          .map((m) => `${m.id} ${m.name}`)
          .join(', ')})`;
  const run = `gpuops migrate --database ${redactSecrets(url)}`;
  return new StoreSchemaBehindError(
    `${state}; a read-only command never changes the schema: run \`${run}\` first, or start \`gpuops run\`, which migrates`,
    pending,
  );
}
