/**
 * The fleet status's pool entries in a row of their own (migration 12, `fleet_status_pools`),
 * shared by both stores. A pass writes the fleet status whole (every algorithm's utilisation
 * moves every pass), but its pool entries, one per GPU node (10,000 at the largest fleets), change
 * only when a node moves between pools: the body is written with `"pools": null` and the pool
 * entries only when they differ from the ones this store wrote last for the cluster.
 *
 * The body holds `"at": null` too: the pass's time is the row's `at` column, put back in its place
 * on reading (a body stored before holds the same time as its column). So a pass whose record is
 * the one this store wrote last but for its time (no utilisation moved, as between two samples
 * of a pass the crossing trigger started) writes the time alone, not the body (2 MB at 5,000
 * algorithms).
 *
 * What this store wrote last is kept in memory ({@link WrittenPools}) with a token written beside
 * the entries; before skipping either, the store reads the token back (one short column). Another
 * writer (a replica that led meanwhile, a second process) writes its own token with the entries
 * whenever it writes the status (its memory holds no token of the row's), so a kept entry list or
 * body whose token is no longer the row's is written again: the rows hold this pass's record always.
 */
import { randomUUID } from 'node:crypto';
import { toMs, type Cell, type Row } from './rows.js';
import type { FleetStatusRecord, StatusPoolEntry } from './types.js';
import type { Migration } from './migration-types.js';

/** Migration 12: the pool entries' table. Bodies stored before it keep their entries inline. */
export const FLEET_POOLS_MIGRATION: Migration = {
  id: 12,
  name: 'fleet status pools',
  // fleet_status_pools: per cluster, the pool entries of the newest fleet status (JSON array as
  // written) and the token of the write that stored them. fleet_status.body holds "pools": null
  // from now on; a body stored before keeps its array, which the reader takes as it is.
  sql: (t) => `
CREATE TABLE fleet_status_pools (
  cluster TEXT PRIMARY KEY,
  token TEXT NOT NULL,
  pools ${t.json} NOT NULL
);
`,
};

/** The read of a cluster's fleet status: its time, its body and, when stored apart, its pool entries. */
export const FLEET_STATUS_SQL = (p: string) =>
  `SELECT f.at, f.body, p.pools FROM fleet_status AS f LEFT JOIN fleet_status_pools AS p ON p.cluster = f.cluster WHERE f.cluster = ${p}`;

/** The upsert of the body row (cluster, at, at_ms, body); placeholders `p(1)`…`p(4)`. */
export const UPSERT_FLEET_STATUS_SQL = (p: (i: number) => string) =>
  `INSERT INTO fleet_status (cluster, at, at_ms, body) VALUES (${p(1)}, ${p(2)}, ${p(3)}, ${p(4)})
     ON CONFLICT (cluster) DO UPDATE SET at = excluded.at, at_ms = excluded.at_ms, body = excluded.body`;

/** The time of a pass whose body is the stored one (at, at_ms, cluster); placeholders `p(1)`…`p(3)`. */
export const UPDATE_FLEET_AT_SQL = (p: (i: number) => string) =>
  `UPDATE fleet_status SET at = ${p(1)}, at_ms = ${p(2)} WHERE cluster = ${p(3)}`;

/** The upsert of the pool entries' row (cluster, token, pools). */
export const UPSERT_FLEET_POOLS_SQL = (p: (i: number) => string) =>
  `INSERT INTO fleet_status_pools (cluster, token, pools) VALUES (${p(1)}, ${p(2)}, ${p(3)})
     ON CONFLICT (cluster) DO UPDATE SET token = excluded.token, pools = excluded.pools`;

/** The body as stored: the record as JSON with `"at": null` and `"pools": null` (see the module comment). */
export function fleetBodyText(s: FleetStatusRecord): string {
  // Same keys in the same order as the record (a spread keeps the place of a key it overrides):
  // the time and the entries are put back in their place on reading. A replacer would run for
  // every value.
  return JSON.stringify({ ...s, at: null, pools: null });
}

/** Cells of the body row (cluster, at, at_ms, body); `body` is {@link fleetBodyText}'s. */
export function fleetBodyCells(s: FleetStatusRecord, body: string): Cell[] {
  return [s.cluster, s.at, toMs('saveFleetStatus', 'at', s.at), body];
}

/** Parameters of {@link UPDATE_FLEET_AT_SQL}. */
export function fleetAtCells(s: FleetStatusRecord): Cell[] {
  return [s.at, toMs('saveFleetStatus', 'at', s.at), s.cluster];
}

/** The record from a {@link FLEET_STATUS_SQL} row: the body with its pool entries back in place. */
export function fleetStatusFromJoinedRow(r: Row): FleetStatusRecord {
  const parse = (v: unknown): unknown => (typeof v === 'string' ? JSON.parse(v) : v);
  const record = parse(r.body) as FleetStatusRecord;
  // The column holds the pass's time; a body holds null, or (stored before) the same time.
  if (typeof r.at === 'string') record.at = r.at;
  // A body stored before migration 12 holds its entries; a later one holds null.
  if (!Array.isArray(record.pools)) record.pools = (parse(r.pools) as StatusPoolEntry[] | null) ?? [];
  return record;
}

/** Whether two pool entry lists are equal, entry by entry and field by field. */
export function samePoolEntries(a: readonly StatusPoolEntry[], b: readonly StatusPoolEntry[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (
      x.node !== y.node ||
      x.from !== y.from ||
      x.to !== y.to ||
      x.reason !== y.reason ||
      x.message !== y.message
    )
      return false;
  }
  return true;
}

/**
 * The pool entries and body one store wrote last, per cluster, with the token written beside them
 * (see the module comment). One per store object: a process's reconciler keeps its store open.
 */
export class WrittenPools {
  private readonly byCluster = new Map<
    string,
    { pools: StatusPoolEntry[]; token: string; body: string | null }
  >();

  /**
   * The token the row must still hold for `pools` to be skipped, or null when they must be
   * written (none kept for the cluster, or other entries kept).
   */
  keptToken(cluster: string, pools: readonly StatusPoolEntry[]): string | null {
    const kept = this.byCluster.get(cluster);
    return kept && samePoolEntries(kept.pools, pools) ? kept.token : null;
  }

  /** Whether `body` ({@link fleetBodyText}) is the one kept for the cluster: skipped while the token is the row's. */
  keptBody(cluster: string, body: string): boolean {
    return this.byCluster.get(cluster)?.body === body;
  }

  /** A new token for a write of the cluster's entries. */
  newToken(): string {
    return randomUUID();
  }

  /**
   * Notes a committed write of `pools` and `body` under `token` (a copy of the entries is kept:
   * the caller's may change).
   */
  wrote(cluster: string, pools: readonly StatusPoolEntry[], token: string, body: string): void {
    this.byCluster.set(cluster, { pools: pools.map((e) => ({ ...e })), token, body });
  }

  /** Notes a committed write of the body alone, the entries and token kept (the row held them). */
  wroteBody(cluster: string, body: string): void {
    const kept = this.byCluster.get(cluster);
    if (kept) kept.body = body;
  }

  /** Forgets the cluster's entries and body (a failed write: the next one writes them). */
  forget(cluster: string): void {
    this.byCluster.delete(cluster);
  }
}
