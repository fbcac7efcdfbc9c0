/**
 * Pull requests on SQLite: the current row per branch, the history of cycles, and the fleet status.
 * Each exported function is the `Store` method of its name (types.ts documents it) on a
 * SqliteSession.
 */
import { transaction } from './sqlite-transaction.js';
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
import { bind, insertSql, type Row, type SqliteSession } from './sqlite-session.js';

/** `Store.upsertPullRequest` (types.ts) on SQLite; a failure rejects with a StoreError naming `upsertPullRequest`. */
export function upsertPullRequest(s: SqliteSession, pr: PullRequestRecord): Promise<void> {
  return s.run('upsertPullRequest', () => {
    transaction(
      s.db,
      () => {
        s.prepare(`${insertSql('pull_requests', PULL_REQUEST_COLUMNS)} ${pullRequestUpsertTail()}`).run(
          ...bind(pullRequestCells(pr)),
        );
        recordCycle(s, pr);
      },
      'IMMEDIATE',
    );
  });
}

/** Inserts or updates the branch's pull request cycle (see `cycleAction`); in the caller's transaction. */
function recordCycle(s: SqliteSession, pr: PullRequestRecord): void {
  const row = s
    .prepare('SELECT * FROM pull_request_history WHERE cluster = ? AND branch = ? ORDER BY id DESC LIMIT 1')
    .get(pr.cluster, pr.branch) as Row | undefined;
  const latest = row ? cycleFromRow(row) : null;
  if (cycleAction(latest, pr) === 'insert') {
    s.prepare(insertSql('pull_request_history', CYCLE_COLUMNS)).run(...bind(newCycleCells(pr)));
  } else {
    s.prepare(
      `UPDATE pull_request_history SET ${CYCLE_UPDATE_COLUMNS.map((c) => `${c} = ?`).join(', ')} WHERE id = ?`,
    ).run(...bind(cycleUpdateCells(latest!, pr)), latest!.id);
  }
}

/** `Store.pullRequest` (types.ts) on SQLite; a failure rejects with a StoreError naming `pullRequest`. */
export function pullRequest(
  s: SqliteSession,
  cluster: string,
  branch: string,
): Promise<PullRequestRecord | null> {
  return s.run('pullRequest', () => {
    const row = s.prepare(PULL_REQUEST_OF_BRANCH_SQL('?', '?')).get(cluster, branch) as Row | undefined;
    return row ? pullRequestFromRow(row) : null;
  });
}

/** `Store.pullRequests` (types.ts) on SQLite; a failure rejects with a StoreError naming `pullRequests`. */
export function pullRequests(s: SqliteSession, cluster: string): Promise<PullRequestRecord[]> {
  return s.run('pullRequests', () =>
    (
      s
        .prepare('SELECT * FROM pull_requests WHERE cluster = ? ORDER BY updated_at_ms DESC, id DESC')
        .all(cluster) as Row[]
    ).map(pullRequestFromRow),
  );
}

/**
 * `Store.saveFleetStatus` (types.ts) on SQLite: the pool entries when they are not the ones the row
 * holds from `written`'s last write, the body when it is not that write's either, else the pass's
 * time alone (`fleet-status-pools.ts`); a failure rejects with a StoreError naming
 * `saveFleetStatus` and forgets the cluster's entries in `written`.
 */
export function saveFleetStatus(
  s: SqliteSession,
  written: WrittenPools,
  status: FleetStatusRecord,
): Promise<void> {
  return s.run('saveFleetStatus', () => {
    const q = () => '?';
    const body = fleetBodyText(status);
    try {
      transaction(
        s.db,
        () => {
          const kept = written.keptToken(status.cluster, status.pools);
          const row =
            kept === null
              ? undefined
              : (s.prepare('SELECT token FROM fleet_status_pools WHERE cluster = ?').get(status.cluster) as
                  Row | undefined);
          if (kept === null || row?.token !== kept) {
            const token = written.newToken();
            s.prepare(UPSERT_FLEET_POOLS_SQL(q)).run(status.cluster, token, JSON.stringify(status.pools));
            s.prepare(UPSERT_FLEET_STATUS_SQL(q)).run(...bind(fleetBodyCells(status, body)));
            written.wrote(status.cluster, status.pools, token, body);
          } else if (
            written.keptBody(status.cluster, body) &&
            s.prepare(UPDATE_FLEET_AT_SQL(q)).run(...bind(fleetAtCells(status))).changes === 1
          ) {
            // The body stored is this one: the time alone moved.
          } else {
            s.prepare(UPSERT_FLEET_STATUS_SQL(q)).run(...bind(fleetBodyCells(status, body)));
            written.wroteBody(status.cluster, body);
          }
        },
        'IMMEDIATE',
      );
    } catch (err) {
      written.forget(status.cluster);
      throw err;
    }
  });
}

/** `Store.clusters` (types.ts) on SQLite; a failure rejects with a StoreError naming `clusters`. */
export function clusters(s: SqliteSession): Promise<string[]> {
  return s.run('clusters', () => (s.prepare(CLUSTERS_SQL).all() as Row[]).map((r) => r.cluster as string));
}

/** `Store.fleetStatus` (types.ts) on SQLite; a failure rejects with a StoreError naming `fleetStatus`. */
export function fleetStatus(s: SqliteSession, cluster: string): Promise<FleetStatusRecord | null> {
  return s.run('fleetStatus', () => {
    const row = s.prepare(FLEET_STATUS_SQL('?')).get(cluster) as Row | undefined;
    return row ? fleetStatusFromJoinedRow(row) : null;
  });
}

/** `Store.pullRequestHistory` (types.ts) on SQLite; a failure rejects with a StoreError naming `pullRequestHistory`. */
export function pullRequestHistory(s: SqliteSession, cluster: string): Promise<PullRequestCycle[]> {
  return s.run('pullRequestHistory', () =>
    (
      s
        .prepare('SELECT * FROM pull_request_history WHERE cluster = ? ORDER BY opened_at_ms DESC, id DESC')
        .all(cluster) as Row[]
    ).map(cycleFromRow),
  );
}

/** `Store.pullRequestCycle` (types.ts) on SQLite; a failure rejects with a StoreError naming `pullRequestCycle`. */
export function pullRequestCycle(s: SqliteSession, id: number): Promise<PullRequestCycle | null> {
  return s.run('pullRequestCycle', () => {
    const row = s.prepare('SELECT * FROM pull_request_history WHERE id = ?').get(id) as Row | undefined;
    return row ? cycleFromRow(row) : null;
  });
}
