/**
 * What passes recorded on SQLite: utilization samples, decisions (with their retention) and pushed
 * commits. Each exported function is the `Store` method of its name (types.ts documents it) on a
 * SqliteSession.
 */
import { transaction } from './sqlite-transaction.js';
import { pruneDecisionsSql, pruneSamplesSql, type PrunedHistory } from './history-retention.js';
import { INSERT_PUSHED_COMMIT, TRIM_PUSHED_COMMITS, type PushedCommit } from './pushed-commits.js';
import {
  DECISION_COLUMNS,
  decisionCells,
  decisionHeadCells,
  decisionFromRow,
  groupBy,
  SAMPLE_COLUMNS,
  sampleHeadCells,
  sampleFromRow,
  toMs,
} from './rows.js';
import type { DecisionRecord, UtilizationSampleRecord } from './types.js';
import { bind, insertSql, type Row, type SqliteSession } from './sqlite-session.js';
import { insertTimedRows } from './sqlite-batch-insert.js';

/**
 * `column`'s index in `columns`; throws (at module load) for a name not there, which `indexOf`'s
 * -1 would turn into sharing silently off.
 */
export function columnIndex(columns: readonly string[], column: string): number {
  const i = columns.indexOf(column);
  if (i < 0) throw new Error(`sqlite-history: no column ${column} in ${columns.join(', ')}`);
  return i;
}

/** A sample's `namespace` (head cell 1): one namespace often serves many pods, bound once then. */
const SAMPLE_SHARABLE_NAMESPACE = columnIndex(SAMPLE_COLUMNS, 'namespace');

/**
 * A decision's `kind`, `action` and `reason` (head cells): in a steady pass most of the 1,000 rows
 * are scaling decisions that change nothing, for one reason (`insertTimedRows` binds such a cell
 * once where all rows of a statement agree).
 */
const DECISION_SHARABLE = (['kind', 'action', 'reason'] as const).map((c) =>
  columnIndex(DECISION_COLUMNS, c),
);

/** `Store.saveSamples` (types.ts) on SQLite; a failure rejects with a StoreError naming `saveSamples`. */
export function saveSamples(s: SqliteSession, samples: UtilizationSampleRecord[]): Promise<void> {
  return s.run('saveSamples', () => {
    // No boolean cell: nothing to bind. Every number a bound double (sqlite-batch-insert.ts).
    insertTimedRows(s, 'utilization_samples', SAMPLE_COLUMNS, samples, sampleHeadCells, 'saveSamples', [
      SAMPLE_SHARABLE_NAMESPACE,
    ]);
  });
}

/** `Store.samples` (types.ts) on SQLite; a failure rejects with a StoreError naming `samples`. */
export function samples(
  s: SqliteSession,
  algorithm: string,
  since: string,
): Promise<UtilizationSampleRecord[]> {
  return s.run('samples', () =>
    (
      s
        .prepare('SELECT * FROM utilization_samples WHERE algorithm = ? AND at_ms >= ? ORDER BY at_ms, id')
        .all(algorithm, toMs('samples', 'since', since)) as Row[]
    ).map(sampleFromRow),
  );
}

/** `Store.recordDecision` (types.ts) on SQLite; a failure rejects with a StoreError naming `recordDecision`. */
export function recordDecision(s: SqliteSession, decision: DecisionRecord): Promise<void> {
  return s.run('recordDecision', () => {
    s.prepare(insertSql('decisions', DECISION_COLUMNS)).run(...bind(decisionCells(decision)));
  });
}

/** `Store.recordDecisions` (types.ts) on SQLite; a failure rejects with a StoreError naming `recordDecisions`. */
export function recordDecisions(s: SqliteSession, decisions: readonly DecisionRecord[]): Promise<void> {
  return s.run('recordDecisions', () => {
    // No boolean cell: nothing to bind. Every number a bound double (sqlite-batch-insert.ts).
    insertTimedRows(
      s,
      'decisions',
      DECISION_COLUMNS,
      decisions,
      decisionHeadCells,
      'recordDecisions',
      DECISION_SHARABLE,
    );
  });
}

/** `Store.pruneHistory` (types.ts) on SQLite; a failure rejects with a StoreError naming `pruneHistory`. */
export function pruneHistory(s: SqliteSession, before: string): Promise<PrunedHistory> {
  return s.run('pruneHistory', () => {
    const ms = toMs('pruneHistory', 'before', before);
    return transaction(s.db, () => ({
      decisions: s.prepare(pruneDecisionsSql('?')).run(ms).changes,
      samples: s.prepare(pruneSamplesSql('?')).run(ms).changes,
    }));
  });
}

/** `Store.decisions` (types.ts) on SQLite; a failure rejects with a StoreError naming `decisions`. */
export function decisions(s: SqliteSession, subject: string, since: string): Promise<DecisionRecord[]> {
  return s.run('decisions', () =>
    (
      s
        .prepare('SELECT * FROM decisions WHERE subject = ? AND at_ms >= ? ORDER BY at_ms, id')
        .all(subject, toMs('decisions', 'since', since)) as Row[]
    ).map(decisionFromRow),
  );
}

/** `Store.decisionsSince` (types.ts) on SQLite; a failure rejects with a StoreError naming `decisionsSince`. */
export function decisionsSince(
  s: SqliteSession,
  subjects: readonly string[],
  since: string,
): Promise<Map<string, DecisionRecord[]>> {
  return s.run('decisionsSince', () =>
    groupBy(
      (
        s
          .prepare(
            `SELECT d.* FROM decisions AS d
           WHERE d.subject IN (SELECT value FROM json_each(?)) AND d.at_ms >= ?
           ORDER BY d.at_ms, d.id`,
          )
          .all(JSON.stringify([...new Set(subjects)]), toMs('decisionsSince', 'since', since)) as Row[]
      ).map(decisionFromRow),
      (d) => d.subject,
    ),
  );
}

/** `Store.decisionsMark` (types.ts) on SQLite: the AUTOINCREMENT counter of `decisions` (0 before the first). */
export function decisionsMark(s: SqliteSession): Promise<number> {
  return s.run('decisionsMark', () => {
    const row = s.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'decisions'").get() as
      Row | undefined;
    return row ? Number(row.seq) : 0;
  });
}

/** `Store.pushedCommits` (types.ts) on SQLite; a failure rejects with a StoreError naming `pushedCommits`. */
export function pushedCommits(s: SqliteSession, shas: readonly string[]): Promise<string[]> {
  return s.run('pushedCommits', () =>
    (
      s
        .prepare('SELECT sha FROM pushed_commits WHERE sha IN (SELECT value FROM json_each(?))')
        .all(JSON.stringify([...new Set(shas)])) as Row[]
    ).map((r) => r.sha as string),
  );
}

/** `Store.recordPushedCommits` (types.ts) on SQLite; a failure rejects with a StoreError naming `recordPushedCommits`. */
export function recordPushedCommits(s: SqliteSession, commits: readonly PushedCommit[]): Promise<void> {
  return s.run('recordPushedCommits', () => {
    s.db
      .transaction(() => {
        for (const c of commits)
          s.prepare(INSERT_PUSHED_COMMIT).run(c.sha, c.branch, c.at, toMs('recordPushedCommits', 'at', c.at));
        for (const b of new Set(commits.map((c) => c.branch))) s.prepare(TRIM_PUSHED_COMMITS).run(b, b);
      })
      .immediate();
  });
}

/** `Store.recentDecisions` (types.ts) on SQLite; a failure rejects with a StoreError naming `recentDecisions`. */
export function recentDecisions(s: SqliteSession, since: string, limit: number): Promise<DecisionRecord[]> {
  return s.run('recentDecisions', () =>
    (
      s
        .prepare('SELECT * FROM decisions WHERE at_ms >= ? ORDER BY at_ms DESC, id DESC LIMIT ?')
        .all(toMs('recentDecisions', 'since', since), limit) as Row[]
    ).map(decisionFromRow),
  );
}

/** `Store.prune` (types.ts) on SQLite; a failure rejects with a StoreError naming `prune`. */
export function prune(s: SqliteSession, before: string): Promise<number> {
  return s.run('prune', () =>
    Number(
      s.prepare('DELETE FROM utilization_samples WHERE at_ms < ?').run(toMs('prune', 'before', before))
        .changes,
    ),
  );
}
