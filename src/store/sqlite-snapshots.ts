/**
 * Snapshots on SQLite: writing one (contents stored once per digest, node activity, retention),
 * reading the newest, and node emptiness. Each exported function is the `Store` method of its name
 * (types.ts documents it) on a SqliteSession.
 */
import type { Snapshot } from '../cluster/index.js';
import { transaction } from './sqlite-transaction.js';
import { contentsParts, type SnapshotPartRow, snapshotFromPartRows } from './contents-parts.js';
import {
  snapshotContentDigest,
  nodeEmptinessSql,
  nodeActivityCells,
  upsertNodeActivitySql,
  nodeEmptinessFromRows,
  OLDEST_SNAPSHOT_SQL,
  DELETE_UNUSED_CONTENTS_SQL,
  DELETE_UNUSED_PARTS_SQL,
  LATEST_SNAPSHOT_SQL,
  retainSnapshotsSql,
  toMs,
  warningsCell,
} from './rows.js';
import type { NodeEmptiness } from './types.js';
import { NOTE_ACTIVITY_SNAPSHOT_SQL, refreshSnapshotParams, refreshSnapshotSql } from './snapshot-refresh.js';
import { type SqliteSession } from './sqlite-session.js';

/**
 * Stores a snapshot in one transaction and keeps the newest `keepSnapshots`. Its nodes and pods
 * are stored once per content digest (`snapshot_contents`, migration 5), in content-addressed
 * parts (migration 8, `contentsParts`: a changed pod writes its part, not every pod). A snapshot
 * equal to the one node activity last took (the usual pass: the cluster did not move) moves that
 * row's time and writes nothing else (`snapshot-refresh.ts`, migration 14); returns the id of the
 * row that holds it. The transaction takes the write lock first (IMMEDIATE), so another process's
 * retention cannot delete the contents between finding and naming them, nor another save come
 * between the refresh's check and its write.
 */
export function saveSnapshot(s: SqliteSession, snapshot: Snapshot): Promise<number> {
  return s.run('saveSnapshot', () => {
    const takenAtMs = toMs('saveSnapshot', 'takenAt', snapshot.takenAt);
    const digest = snapshotContentDigest(snapshot);
    const warnings = warningsCell(snapshot);
    return transaction(
      s.db,
      () => {
        const refreshed = s
          .prepare(refreshSnapshotSql('sqlite'))
          .get(
            ...refreshSnapshotParams('sqlite', { takenAt: snapshot.takenAt, takenAtMs, digest, warnings }),
          ) as { id: number } | undefined;
        if (refreshed) return Number(refreshed.id);
        const found = s.prepare('SELECT id FROM snapshot_contents WHERE digest = ?').get(digest) as
          { id: number } | undefined;
        const contentsId = found ? Number(found.id) : insertContents(s, digest, snapshot);
        const id = Number(
          s
            .prepare(
              'INSERT INTO snapshots (taken_at, taken_at_ms, warnings, contents_id) VALUES (?, ?, ?, ?)',
            )
            .run(snapshot.takenAt, takenAtMs, warnings, contentsId).lastInsertRowid,
        );
        // One statement for every node (the cells as one JSON parameter); it writes only the rows that change.
        s.prepare(
          upsertNodeActivitySql(
            `SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]')
               FROM json_each(?) WHERE true`,
          ),
        ).run(JSON.stringify(nodeActivityCells(snapshot.nodes, takenAtMs)));
        s.prepare(NOTE_ACTIVITY_SNAPSHOT_SQL(() => '?')).run(id);
        s.prepare(retainSnapshotsSql('?')).run(s.options.keepSnapshots);
        if (s.prepare(DELETE_UNUSED_CONTENTS_SQL).run().changes > 0) s.prepare(DELETE_UNUSED_PARTS_SQL).run();
        return id;
      },
      'IMMEDIATE',
    );
  });
}

/**
 * Writes a new `snapshot_contents` row and names its parts, storing only the parts not stored
 * yet (one part's text at a time); its id. In the caller's (IMMEDIATE) transaction, so no other
 * writer's retention deletes a part between finding and naming it.
 */
function insertContents(s: SqliteSession, digest: string, snapshot: Snapshot): number {
  const id = Number(
    s.prepare('INSERT INTO snapshot_contents (digest) VALUES (?)').run(digest).lastInsertRowid,
  );
  const stored = s.prepare('SELECT 1 AS found FROM snapshot_parts WHERE digest = ?');
  const insert = s.prepare(
    'INSERT INTO snapshot_parts (digest, records) VALUES (?, ?) ON CONFLICT (digest) DO NOTHING',
  );
  const named: [string, number, string][] = [];
  for (const part of contentsParts(snapshot)) {
    if (!stored.get(part.digest)) insert.run(part.digest, part.text);
    named.push([part.kind, part.position, part.digest]);
  }
  s.prepare(
    `INSERT INTO contents_parts (contents_id, kind, position, part)
       SELECT ?, json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]')
         FROM json_each(?)`,
  ).run(id, JSON.stringify(named));
  return id;
}

/** `Store.latestSnapshot` (types.ts) on SQLite; a failure rejects with a StoreError naming `latestSnapshot`. */
export function latestSnapshot(s: SqliteSession): Promise<Snapshot | null> {
  return s.run('latestSnapshot', () => {
    const rows = s.prepare(LATEST_SNAPSHOT_SQL).all() as SnapshotPartRow[];
    return rows.length > 0 ? snapshotFromPartRows(rows) : null;
  });
}

/** `Store.nodeEmptiness` (types.ts) on SQLite; a failure rejects with a StoreError naming `nodeEmptiness`. */
export function nodeEmptiness(s: SqliteSession, nodes: readonly string[]): Promise<NodeEmptiness> {
  return s.run('nodeEmptiness', () =>
    transaction(s.db, () => {
      const rows = s
        .prepare(nodeEmptinessSql('IN (SELECT value FROM json_each(?))'))
        .all(JSON.stringify(nodes)) as Parameters<typeof nodeEmptinessFromRows>[0];
      const head = s.prepare(OLDEST_SNAPSHOT_SQL).get() as { oldest: unknown } | undefined;
      return nodeEmptinessFromRows(rows, head?.oldest ?? null);
    }),
  );
}
