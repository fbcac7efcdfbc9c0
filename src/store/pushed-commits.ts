/**
 * The commits gpuops pushed to its own branches (migration 9), as both stores read and write them.
 * A commit on a gpuops branch is gpuops's only when it is recorded here, or is an ancestor of one
 * that is (`working-copy/commit-ledger.ts`): an author e-mail is whatever the pusher typed.
 */

/** One commit gpuops built for a branch, recorded before the push that carries it. */
export interface PushedCommit {
  /** Full object id (40 or 64 hex digits). */
  sha: string;
  /** The gpuops branch it was built for, e.g. `gpuops/prod/pools`. */
  branch: string;
  /** ISO-8601 time of the record. */
  at: string;
}

/**
 * Commits kept per branch, newest first. Every commit gpuops pushed to a branch is an ancestor of
 * its newest one (a branch is only ever extended or rebuilt by gpuops), so one would do; a few
 * more cover pushes that were recorded and then refused.
 */
export const PUSHED_COMMITS_PER_BRANCH = 32;

/** Insert one record (placeholders `?`; PostgreSQL numbers them), keeping an earlier record of the same commit. */
export const INSERT_PUSHED_COMMIT =
  'INSERT INTO pushed_commits (sha, branch, at, at_ms) VALUES (?, ?, ?, ?) ON CONFLICT (sha) DO NOTHING';

/** Delete a branch's records past the newest {@link PUSHED_COMMITS_PER_BRANCH} (placeholders: branch, branch). */
export const TRIM_PUSHED_COMMITS = `DELETE FROM pushed_commits WHERE branch = ? AND sha NOT IN (
  SELECT sha FROM pushed_commits WHERE branch = ? ORDER BY at_ms DESC, sha LIMIT ${PUSHED_COMMITS_PER_BRANCH})`;

/** `sql` with `?` placeholders numbered `$1, $2, …` for PostgreSQL. */
export function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}
