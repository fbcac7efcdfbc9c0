/**
 * A snapshot equal to the one whose nodes `node_activity` last took is not stored again: its row's
 * time is moved to the new snapshot's (migration 14). A steady pass (the cluster did not move, only
 * the metrics did) then writes one short row instead of a new `snapshots` row, the node activity
 * upsert of every node (10,000 at the largest fleets, none of which changes), and retention.
 *
 * Which snapshot `node_activity` reflects is kept in `node_activity_snapshot` (one row), written
 * by every save that stores a row, in the same transaction as its node activity. So the check
 * holds whoever wrote last: another writer (a second replica, `reconcile --once`, `gpuops
 * snapshot`) that stored other contents moved the pointer to its own row, and the next save
 * stores its snapshot whole; one that stored equal contents left a row the next save may refresh.
 * A row retention deleted, or one another writer's later save superseded, is never refreshed.
 *
 * What readers see is what they saw when every pass stored a row: `latestSnapshot` gives the same
 * nodes, pods, warnings and `takenAt`; node activity is what the upsert would have left (it writes
 * no row for a node whose busy state did not change). Retention keeps the newest `keepSnapshots`
 * rows, each now the last time its contents were seen, so the oldest kept reaches further back.
 */
import type { Migration } from './migration-types.js';

/** Migration 14: the snapshot whose nodes `node_activity` last took (see the module comment). */
export const NODE_ACTIVITY_SNAPSHOT_MIGRATION: Migration = {
  id: 14,
  name: 'node activity snapshot',
  // One row (id 1) once a snapshot is stored. No foreign key: retention may delete the snapshot,
  // which then matches no row and is never refreshed.
  sql: () => `
CREATE TABLE node_activity_snapshot (
  id INTEGER PRIMARY KEY,
  snapshot_id INTEGER NOT NULL
);
`,
};

/**
 * Notes that `node_activity` took the nodes of snapshot `p(1)`: run by every save that inserts a
 * `snapshots` row, in its transaction, after the node activity upsert. The same in both dialects.
 */
export const NOTE_ACTIVITY_SNAPSHOT_SQL = (p: (i: number) => string): string =>
  `INSERT INTO node_activity_snapshot (id, snapshot_id) VALUES (1, ${p(1)})
     ON CONFLICT (id) DO UPDATE SET snapshot_id = excluded.snapshot_id`;

/** What a refresh is asked with: the new snapshot's time (text and epoch ms), digest and warnings. */
export interface RefreshCells {
  takenAt: string;
  takenAtMs: number;
  /** `snapshotContentDigest` of the new snapshot. */
  digest: string;
  /** `warningsCell` of the new snapshot. */
  warnings: string | null;
}

/**
 * Moves the time of the snapshot `node_activity` last took to the new one's when its contents and
 * warnings are the new snapshot's and its time is not later; returns its id (`RETURNING id`), or
 * no row when the snapshot must be stored whole. Parameters: {@link refreshSnapshotParams}.
 * PostgreSQL's `json` has no equality, so its warnings are compared as the text stored (written by
 * `JSON.stringify`, kept as is by `json`).
 */
export function refreshSnapshotSql(dialect: 'sqlite' | 'postgres'): string {
  const sqlite = dialect === 'sqlite';
  const [at, ms, digest, warnings, notBefore] = sqlite
    ? ['?', '?', '?', '?', '?']
    : ['$1', '$2', '$3', '$4', '$2'];
  const sameWarnings = sqlite
    ? `warnings IS ${warnings}`
    : `warnings::text IS NOT DISTINCT FROM ${warnings}::text`;
  return `UPDATE snapshots SET taken_at = ${at}, taken_at_ms = ${ms}
 WHERE id = (SELECT snapshot_id FROM node_activity_snapshot WHERE id = 1)
   AND contents_id = (SELECT id FROM snapshot_contents WHERE digest = ${digest})
   AND ${sameWarnings}
   AND taken_at_ms <= ${notBefore}
 RETURNING id`;
}

/** The parameters of {@link refreshSnapshotSql} in `dialect`'s order. */
export function refreshSnapshotParams(
  dialect: 'sqlite' | 'postgres',
  c: RefreshCells,
): (string | number | null)[] {
  const head = [c.takenAt, c.takenAtMs, c.digest, c.warnings];
  return dialect === 'sqlite' ? [...head, c.takenAtMs] : head;
}
