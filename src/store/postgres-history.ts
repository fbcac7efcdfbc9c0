/**
 * What passes recorded on PostgreSQL: utilization samples, decisions (with their retention) and
 * pushed commits. Each exported function is the `Store` method of its name (types.ts documents it)
 * on a PgSession.
 */
import { pruneDecisionsSql, pruneSamplesSql, type PrunedHistory } from './history-retention.js';
import { INSERT_PUSHED_COMMIT, numbered, TRIM_PUSHED_COMMITS, type PushedCommit } from './pushed-commits.js';
import {
  DECISION_COLUMNS,
  decisionCells,
  decisionFromRow,
  groupBy,
  SAMPLE_COLUMNS,
  sampleCells,
  sampleFromRow,
  toMs,
} from './rows.js';
import type { DecisionRecord, UtilizationSampleRecord } from './types.js';
import { insertSql, insertUnnest, type PgSession } from './postgres-session.js';

/** `Store.saveSamples` (types.ts) on PostgreSQL; a failure rejects with a StoreError naming `saveSamples`. */
export async function saveSamples(s: PgSession, samples: UtilizationSampleRecord[]): Promise<void> {
  if (samples.length === 0) return;
  const rows = samples.map(sampleCells);
  await s.transaction('saveSamples', (c) => insertUnnest(c, 'utilization_samples', SAMPLE_COLUMNS, rows));
}

/** `Store.samples` (types.ts) on PostgreSQL; a failure rejects with a StoreError naming `samples`. */
export async function samples(
  s: PgSession,
  algorithm: string,
  since: string,
): Promise<UtilizationSampleRecord[]> {
  const rows = await s.query(
    'samples',
    'SELECT * FROM utilization_samples WHERE algorithm = $1 AND at_ms >= $2 ORDER BY at_ms, id',
    [algorithm, toMs('samples', 'since', since)],
  );
  return rows.map(sampleFromRow);
}

/** `Store.recordDecision` (types.ts) on PostgreSQL; a failure rejects with a StoreError naming `recordDecision`. */
export async function recordDecision(s: PgSession, decision: DecisionRecord): Promise<void> {
  await s.query('recordDecision', insertSql('decisions', DECISION_COLUMNS), decisionCells(decision));
}

/** `Store.recordDecisions` (types.ts) on PostgreSQL; a failure rejects with a StoreError naming `recordDecisions`. */
export async function recordDecisions(s: PgSession, decisions: readonly DecisionRecord[]): Promise<void> {
  if (decisions.length === 0) return;
  // One UNNEST per 5,000 decisions: a pass over 1,000 algorithms was 1,000 round trips.
  await s.transaction('recordDecisions', (c) =>
    insertUnnest(c, 'decisions', DECISION_COLUMNS, decisions.map(decisionCells)),
  );
}

/** `Store.pruneHistory` (types.ts) on PostgreSQL; a failure rejects with a StoreError naming `pruneHistory`. */
export async function pruneHistory(s: PgSession, before: string): Promise<PrunedHistory> {
  const ms = toMs('pruneHistory', 'before', before);
  return s.transaction('pruneHistory', async (c) => ({
    decisions: (await c.query(pruneDecisionsSql('$1'), [ms])).rowCount ?? 0,
    samples: (await c.query(pruneSamplesSql('$1'), [ms])).rowCount ?? 0,
  }));
}

/** `Store.decisions` (types.ts) on PostgreSQL; a failure rejects with a StoreError naming `decisions`. */
export async function decisions(s: PgSession, subject: string, since: string): Promise<DecisionRecord[]> {
  const rows = await s.query(
    'decisions',
    'SELECT * FROM decisions WHERE subject = $1 AND at_ms >= $2 ORDER BY at_ms, id',
    [subject, toMs('decisions', 'since', since)],
  );
  return rows.map(decisionFromRow);
}

/** `Store.decisionsSince` (types.ts) on PostgreSQL; a failure rejects with a StoreError naming `decisionsSince`. */
export async function decisionsSince(
  s: PgSession,
  subjects: readonly string[],
  since: string,
): Promise<Map<string, DecisionRecord[]>> {
  const rows = await s.query(
    'decisionsSince',
    'SELECT * FROM decisions WHERE subject = ANY($1::text[]) AND at_ms >= $2 ORDER BY at_ms, id',
    [[...new Set(subjects)], toMs('decisionsSince', 'since', since)],
  );
  return groupBy(rows.map(decisionFromRow), (d) => d.subject);
}

/** `Store.pushedCommits` (types.ts) on PostgreSQL; a failure rejects with a StoreError naming `pushedCommits`. */
export async function pushedCommits(s: PgSession, shas: readonly string[]): Promise<string[]> {
  const rows = await s.query('pushedCommits', 'SELECT sha FROM pushed_commits WHERE sha = ANY($1)', [
    [...new Set(shas)],
  ]);
  return rows.map((r) => r.sha as string);
}

/** `Store.recordPushedCommits` (types.ts) on PostgreSQL; a failure rejects with a StoreError naming `recordPushedCommits`. */
export async function recordPushedCommits(s: PgSession, commits: readonly PushedCommit[]): Promise<void> {
  await s.transaction('recordPushedCommits', async (c) => {
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

/** `Store.recentDecisions` (types.ts) on PostgreSQL; a failure rejects with a StoreError naming `recentDecisions`. */
export async function recentDecisions(s: PgSession, since: string, limit: number): Promise<DecisionRecord[]> {
  const rows = await s.query(
    'recentDecisions',
    'SELECT * FROM decisions WHERE at_ms >= $1 ORDER BY at_ms DESC, id DESC LIMIT $2',
    [toMs('recentDecisions', 'since', since), limit],
  );
  return rows.map(decisionFromRow);
}

/** `Store.prune` (types.ts) on PostgreSQL; a failure rejects with a StoreError naming `prune`. */
export function prune(s: PgSession, before: string): Promise<number> {
  return s.withClient('prune', async (c) => {
    const result = await c.query('DELETE FROM utilization_samples WHERE at_ms < $1', [
      toMs('prune', 'before', before),
    ]);
    return result.rowCount ?? 0;
  });
}
