/**
 * Pull requests on PostgreSQL: the current row per branch, the history of cycles, and the fleet
 * status. Each exported function is the `Store` method of its name (types.ts documents it) on a
 * PgSession.
 */
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
import { PULL_REQUEST_COLUMNS, pullRequestCells, pullRequestFromRow, pullRequestUpsertTail } from './rows.js';
import type { FleetStatusRecord, PullRequestCycle, PullRequestRecord } from './types.js';
import { insertSql, type PgSession, type Row } from './postgres-session.js';

/** `Store.upsertPullRequest` (types.ts) on PostgreSQL; a failure rejects with a StoreError naming `upsertPullRequest`. */
export async function upsertPullRequest(s: PgSession, pr: PullRequestRecord): Promise<void> {
  await s.transaction('upsertPullRequest', async (c) => {
    await c.query(
      `${insertSql('pull_requests', PULL_REQUEST_COLUMNS)} ${pullRequestUpsertTail()}`,
      pullRequestCells(pr),
    );
    // The pull_requests row is locked by the upsert: a second writer of the same branch waits here.
    const found = await c.query(
      'SELECT * FROM pull_request_history WHERE cluster = $1 AND branch = $2 ORDER BY id DESC LIMIT 1',
      [pr.cluster, pr.branch],
    );
    const latest = found.rows[0] ? cycleFromRow(found.rows[0] as Row) : null;
    if (cycleAction(latest, pr) === 'insert') {
      await c.query(insertSql('pull_request_history', CYCLE_COLUMNS), newCycleCells(pr));
    } else {
      await c.query(
        `UPDATE pull_request_history SET ${CYCLE_UPDATE_COLUMNS.map((col, i) => `${col} = $${i + 1}`).join(', ')}
           WHERE id = $${CYCLE_UPDATE_COLUMNS.length + 1}`,
        [...cycleUpdateCells(latest!, pr), latest!.id],
      );
    }
  });
}

/** `Store.pullRequests` (types.ts) on PostgreSQL; a failure rejects with a StoreError naming `pullRequests`. */
export async function pullRequests(s: PgSession, cluster: string): Promise<PullRequestRecord[]> {
  const rows = await s.query(
    'pullRequests',
    'SELECT * FROM pull_requests WHERE cluster = $1 ORDER BY updated_at_ms DESC, id DESC',
    [cluster],
  );
  return rows.map(pullRequestFromRow);
}

/** `Store.saveFleetStatus` (types.ts) on PostgreSQL; a failure rejects with a StoreError naming `saveFleetStatus`. */
export async function saveFleetStatus(s: PgSession, status: FleetStatusRecord): Promise<void> {
  await s.query(
    'saveFleetStatus',
    `INSERT INTO fleet_status (cluster, at, at_ms, body) VALUES ($1, $2, $3, $4)
     ON CONFLICT (cluster) DO UPDATE SET at = excluded.at, at_ms = excluded.at_ms, body = excluded.body`,
    fleetStatusCells(status),
  );
}

/** `Store.clusters` (types.ts) on PostgreSQL; a failure rejects with a StoreError naming `clusters`. */
export async function clusters(s: PgSession): Promise<string[]> {
  return (await s.query('clusters', CLUSTERS_SQL)).map((r) => r.cluster as string);
}

/** `Store.fleetStatus` (types.ts) on PostgreSQL; a failure rejects with a StoreError naming `fleetStatus`. */
export async function fleetStatus(s: PgSession, cluster: string): Promise<FleetStatusRecord | null> {
  const rows = await s.query('fleetStatus', 'SELECT body FROM fleet_status WHERE cluster = $1', [cluster]);
  return rows[0] ? fleetStatusFromRow(rows[0]) : null;
}

/** `Store.pullRequestHistory` (types.ts) on PostgreSQL; a failure rejects with a StoreError naming `pullRequestHistory`. */
export async function pullRequestHistory(s: PgSession, cluster: string): Promise<PullRequestCycle[]> {
  const rows = await s.query(
    'pullRequestHistory',
    'SELECT * FROM pull_request_history WHERE cluster = $1 ORDER BY opened_at_ms DESC, id DESC',
    [cluster],
  );
  return rows.map(cycleFromRow);
}

/** `Store.pullRequestCycle` (types.ts) on PostgreSQL; a failure rejects with a StoreError naming `pullRequestCycle`. */
export async function pullRequestCycle(s: PgSession, id: number): Promise<PullRequestCycle | null> {
  const rows = await s.query('pullRequestCycle', 'SELECT * FROM pull_request_history WHERE id = $1', [id]);
  return rows[0] ? cycleFromRow(rows[0]) : null;
}
