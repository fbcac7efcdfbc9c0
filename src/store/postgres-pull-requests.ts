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
  newCycleCells,
} from './history-rows.js';
import {
  PULL_REQUEST_COLUMNS,
  PULL_REQUEST_OF_BRANCH_SQL,
  pullRequestCells,
  pullRequestFromRow,
  pullRequestUpsertTail,
} from './rows.js';
import type { FleetStatusRecord, PullRequestCycle, PullRequestRecord } from './types.js';
import { insertSql, type PgSession, type Row } from './postgres-session.js';
import {
  FLEET_STATUS_SQL,
  fleetAtCells,
  fleetBodyCells,
  fleetBodyText,
  fleetStatusFromJoinedRow,
  UPDATE_FLEET_AT_SQL,
  UPSERT_FLEET_POOLS_SQL,
  UPSERT_FLEET_STATUS_SQL,
  type WrittenPools,
} from './fleet-status-pools.js';

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

/** `Store.pullRequest` (types.ts) on PostgreSQL; a failure rejects with a StoreError naming `pullRequest`. */
export async function pullRequest(
  s: PgSession,
  cluster: string,
  branch: string,
): Promise<PullRequestRecord | null> {
  const rows = await s.query('pullRequest', PULL_REQUEST_OF_BRANCH_SQL('$1', '$2'), [cluster, branch]);
  return rows.length > 0 ? pullRequestFromRow(rows[0]!) : null;
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

/**
 * `Store.saveFleetStatus` (types.ts) on PostgreSQL: the pool entries when they are not the ones the
 * row holds from `written`'s last write, the body when it is not that write's either, else the
 * pass's time alone (`fleet-status-pools.ts`); a failure rejects with a StoreError naming
 * `saveFleetStatus` and forgets the cluster's entries in `written`. The token is read `FOR UPDATE`:
 * another writer's save of the cluster waits until this one commits.
 */
export async function saveFleetStatus(
  s: PgSession,
  written: WrittenPools,
  status: FleetStatusRecord,
): Promise<void> {
  const q = (i: number) => `$${i}`;
  const body = fleetBodyText(status);
  try {
    await s.transaction('saveFleetStatus', async (c) => {
      const kept = written.keptToken(status.cluster, status.pools);
      const rows =
        kept === null
          ? []
          : (
              await c.query('SELECT token FROM fleet_status_pools WHERE cluster = $1 FOR UPDATE', [
                status.cluster,
              ])
            ).rows;
      if (kept === null || rows[0]?.token !== kept) {
        const token = written.newToken();
        await c.query(UPSERT_FLEET_POOLS_SQL(q), [status.cluster, token, JSON.stringify(status.pools)]);
        await c.query(UPSERT_FLEET_STATUS_SQL(q), fleetBodyCells(status, body));
        written.wrote(status.cluster, status.pools, token, body);
      } else if (
        written.keptBody(status.cluster, body) &&
        (await c.query(UPDATE_FLEET_AT_SQL(q), fleetAtCells(status))).rowCount === 1
      ) {
        // The body stored is this one: the time alone moved.
      } else {
        await c.query(UPSERT_FLEET_STATUS_SQL(q), fleetBodyCells(status, body));
        written.wroteBody(status.cluster, body);
      }
    });
  } catch (err) {
    written.forget(status.cluster);
    throw err;
  }
}

/** `Store.clusters` (types.ts) on PostgreSQL; a failure rejects with a StoreError naming `clusters`. */
export async function clusters(s: PgSession): Promise<string[]> {
  return (await s.query('clusters', CLUSTERS_SQL)).map((r) => r.cluster as string);
}

/** `Store.fleetStatus` (types.ts) on PostgreSQL; a failure rejects with a StoreError naming `fleetStatus`. */
export async function fleetStatus(s: PgSession, cluster: string): Promise<FleetStatusRecord | null> {
  const rows = await s.query('fleetStatus', FLEET_STATUS_SQL('$1'), [cluster]);
  return rows[0] ? fleetStatusFromJoinedRow(rows[0]) : null;
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
