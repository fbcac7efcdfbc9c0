/**
 * Rows of the pull request history and the fleet status (migration "pull request history and
 * fleet status"), shared by both stores, and the rule that maps an upsert of a branch's pull
 * request onto its cycles.
 */
import { pullRequestOnHost, pullRequestWhat, toMs, type Cell, type Row } from './rows.js';
import type { FleetStatusRecord, PullRequestCycle, PullRequestRecord } from './types.js';

/** Every cluster with a fleet status or a pull request record, sorted (both stores; plain SQL). */
export const CLUSTERS_SQL =
  'SELECT cluster FROM fleet_status UNION SELECT cluster FROM pull_requests UNION SELECT cluster FROM pull_request_history ORDER BY cluster';

/** The columns of `pull_request_history` gpuops writes (one row per pull request cycle of a branch). */
export const CYCLE_COLUMNS = [
  'cluster',
  'branch',
  'kind',
  'subject',
  'title',
  'body',
  'number',
  'url',
  'state',
  'opened_at',
  'opened_at_ms',
  'closed_at',
  'updated_at',
  'updated_at_ms',
] as const;

/** Cells of a new cycle, in {@link CYCLE_COLUMNS} order, opened at `pr.updatedAt`. */
export function newCycleCells(pr: PullRequestRecord): Cell[] {
  const ms = toMs('upsertPullRequest', 'updatedAt', pr.updatedAt);
  return [
    pr.cluster,
    pr.branch,
    pr.kind,
    pr.subject,
    pr.title,
    pr.body,
    pr.number,
    pr.url,
    pr.state,
    pr.updatedAt,
    ms,
    pr.state === 'open' ? null : pr.updatedAt,
    pr.updatedAt,
    ms,
  ];
}

/** Columns an update of the running cycle sets, in order (then `WHERE id = ?`). */
export const CYCLE_UPDATE_COLUMNS = [
  'kind',
  'subject',
  'title',
  'body',
  'number',
  'url',
  'state',
  'closed_at',
  'updated_at',
  'updated_at_ms',
] as const;

/** Cells of {@link CYCLE_UPDATE_COLUMNS} for `pr` applied to the cycle `latest`. */
export function cycleUpdateCells(latest: PullRequestCycle, pr: PullRequestRecord): Cell[] {
  // The first time it is seen merged or closed is when the cycle ended; later refreshes keep it.
  const closedAt = pr.state === 'open' ? null : (latest.closedAt ?? pr.updatedAt);
  return [
    pr.kind,
    pr.subject,
    pr.title,
    pr.body,
    pr.number,
    pr.url,
    pr.state,
    closedAt,
    pr.updatedAt,
    toMs('upsertPullRequest', 'updatedAt', pr.updatedAt),
  ];
}

/**
 * Whether an upsert of a branch's pull request starts a new cycle or updates the latest one.
 * A new cycle starts when the branch has none yet, or when the latest has ended (merged or
 * closed) and the pull request is open again, or when the host gave it a different number (a new
 * pull request on the same branch). Anything else updates the latest cycle: a refresh of an ended
 * cycle (`closed` → `closed`, or `closed` → `merged`) is the same pull request.
 */
export function cycleAction(latest: PullRequestCycle | null, pr: PullRequestRecord): 'insert' | 'update' {
  if (latest === null) return 'insert';
  if (pr.number !== null && latest.number !== null && pr.number !== latest.number) return 'insert';
  if (latest.state !== 'open' && pr.state === 'open') return 'insert';
  return 'update';
}

/** A `pull_request_history` row read back (either dialect) as one cycle; `closedAt` null while open. */
export function cycleFromRow(r: Row): PullRequestCycle {
  return {
    id: Number(r.id),
    ...pullRequestWhat(r),
    ...pullRequestOnHost(r),
    openedAt: r.opened_at as string,
    closedAt: (r.closed_at as string | null) ?? null,
    updatedAt: r.updated_at as string,
  };
}

/** Cells of `fleet_status` (cluster, at, at_ms, body JSON text). */
export function fleetStatusCells(s: FleetStatusRecord): Cell[] {
  return [s.cluster, s.at, toMs('saveFleetStatus', 'at', s.at), JSON.stringify(s)];
}

/**
 * The fleet status a `fleet_status` row holds: its `body` JSON (SQLite gives text, PostgreSQL the
 * parsed value). @throws SyntaxError when the text is not JSON (a row gpuops did not write).
 */
export function fleetStatusFromRow(r: Row): FleetStatusRecord {
  const body = r.body;
  return (typeof body === 'string' ? JSON.parse(body) : body) as FleetStatusRecord;
}
