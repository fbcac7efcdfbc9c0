/** `node_activity` rows: when each node was first seen, last busy and empty since. */
import type { NodeEmptiness } from './types.js';

/**
 * Upsert of the `node_activity` rows of a snapshot's nodes, the same in both dialects
 * (`ON CONFLICT … DO UPDATE … WHERE`, SQLite ≥ 3.24). Values per node: name, t, busy ? t : NULL
 * (t: the snapshot's time, epoch ms). A node not seen before is inserted (first_seen = t). After
 * that a row is written only when the node's busy/empty state changes, so a pass where nothing
 * moved writes no row: a node turning busy (never busy, or empty since) gets last_busy = t and
 * empty_since = NULL; a node turning empty (busy in the previous snapshot: last_busy set,
 * empty_since NULL) gets empty_since = t, the first snapshot after its last busy one. While a
 * node stays busy last_busy keeps the time it turned busy: readers only ask whether it is set
 * (ever busy) and read empty_since, which is the same as when every pass rewrote the row.
 * `values` is the SQL giving the rows (a SELECT over arrays or JSON); it must end in a WHERE
 * clause for SQLite to parse the ON CONFLICT after a SELECT.
 */
export const upsertNodeActivitySql = (values: string): string => `INSERT INTO node_activity
  (name, first_seen_at_ms, last_busy_at_ms) ${values}
ON CONFLICT (name) DO UPDATE SET
  last_busy_at_ms = COALESCE(excluded.last_busy_at_ms, node_activity.last_busy_at_ms),
  empty_since_ms = CASE WHEN excluded.last_busy_at_ms IS NOT NULL THEN NULL
    ELSE excluded.first_seen_at_ms END
WHERE (excluded.last_busy_at_ms IS NOT NULL
       AND (node_activity.last_busy_at_ms IS NULL OR node_activity.empty_since_ms IS NOT NULL))
   OR (excluded.last_busy_at_ms IS NULL
       AND node_activity.last_busy_at_ms IS NOT NULL AND node_activity.empty_since_ms IS NULL)`;

/** `node_activity` cells of the nodes of a snapshot taken at `t` (epoch ms): name, t, busy ? t : null. */
export function nodeActivityCells(
  nodes: readonly { name: string; gpuRequested: number; managedPods: number }[],
  t: number,
): [string, number, number | null][] {
  return nodes.map((n) => [n.name, t, n.gpuRequested > 0 || n.managedPods > 0 ? t : null]);
}

/** `Store.nodeEmptiness`: the `node_activity` rows of the nodes asked for (`names`: the dialect's list match). */
export const nodeEmptinessSql = (names: string): string =>
  `SELECT name, first_seen_at_ms, last_busy_at_ms, empty_since_ms FROM node_activity WHERE name ${names}`;
/** The time of the oldest snapshot kept (`oldest`, epoch ms; null with none): how far back node activity was seen. */
export const OLDEST_SNAPSHOT_SQL = 'SELECT MIN(taken_at_ms) AS oldest FROM snapshots';

/** Rows of {@link nodeEmptinessSql} and {@link OLDEST_SNAPSHOT_SQL} → `NodeEmptiness`. */
export function nodeEmptinessFromRows(
  rows: readonly {
    name: unknown;
    first_seen_at_ms: unknown;
    last_busy_at_ms: unknown;
    empty_since_ms: unknown;
  }[],
  oldest: unknown,
): NodeEmptiness {
  const iso = (ms: unknown) => (ms === null || ms === undefined ? null : new Date(Number(ms)).toISOString());
  const busy = rows.filter((r) => r.last_busy_at_ms !== null && r.last_busy_at_ms !== undefined);
  return {
    oldest: iso(oldest),
    emptyAfterBusy: new Map(busy.map((r) => [String(r.name), iso(r.empty_since_ms)])),
    firstSeen: new Map(rows.map((r) => [String(r.name), iso(r.first_seen_at_ms)!])),
  };
}
