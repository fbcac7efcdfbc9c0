/**
 * Snapshots on PostgreSQL: writing one (contents stored once per digest, node activity, retention),
 * reading the newest, and node emptiness. Each exported function is the `Store` method of its name
 * (types.ts documents it) on a PgSession.
 */
import pg from 'pg';
import type { Snapshot } from '../cluster/index.js';
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
import { type PgSession, type Row, SNAPSHOT_LOCK } from './postgres-session.js';

/**
 * Writes a new `snapshot_contents` row and names its parts, storing only the parts not stored yet
 * (one part's text at a time); its id. In the caller's transaction, under {@link SNAPSHOT_LOCK}, so
 * the stored digests read first stay stored until it commits.
 */
async function insertContents(c: pg.PoolClient, digest: string, snapshot: Snapshot): Promise<unknown> {
  const inserted = await c.query('INSERT INTO snapshot_contents (digest) VALUES ($1) RETURNING id', [digest]);
  const id = (inserted.rows[0] as Row).id;
  const stored = new Set((await c.query('SELECT digest FROM snapshot_parts')).rows.map((r: Row) => r.digest));
  const kinds: string[] = [];
  const positions: number[] = [];
  const digests: string[] = [];
  for (const part of contentsParts(snapshot)) {
    if (!stored.has(part.digest)) {
      await c.query(
        'INSERT INTO snapshot_parts (digest, records) VALUES ($1, $2) ON CONFLICT (digest) DO NOTHING',
        [part.digest, part.text],
      );
      stored.add(part.digest);
    }
    kinds.push(part.kind);
    positions.push(part.position);
    digests.push(part.digest);
  }
  await c.query(
    `INSERT INTO contents_parts (contents_id, kind, position, part)
       SELECT $1, * FROM unnest($2::text[], $3::int[], $4::text[])`,
    [id, kinds, positions, digests],
  );
  return id;
}

/**
 * Stores a snapshot in one transaction and keeps the newest `keepSnapshots`. Its nodes and pods
 * are stored once per content digest (`snapshot_contents`, migration 5), in content-addressed
 * parts (migration 8, `contentsParts`: a changed pod writes its part, not every pod). A snapshot
 * equal to the one node activity last took (the usual pass: the cluster did not move) moves that
 * row's time and writes nothing else (`snapshot-refresh.ts`, migration 14); returns the id of the
 * row that holds it. Writers take turns ({@link SNAPSHOT_LOCK}), so another process's retention
 * cannot delete the contents between finding and naming them, no other writer inserts the same
 * digest meanwhile, and no other save comes between the refresh's check and its write.
 */
export async function saveSnapshot(s: PgSession, snapshot: Snapshot): Promise<number> {
  const takenAtMs = toMs('saveSnapshot', 'takenAt', snapshot.takenAt);
  const digest = snapshotContentDigest(snapshot);
  const warnings = warningsCell(snapshot);
  return s.transaction('saveSnapshot', async (c) => {
    await c.query('SELECT pg_advisory_xact_lock($1)', [SNAPSHOT_LOCK]);
    const refreshed = (
      await c.query(
        refreshSnapshotSql('postgres'),
        refreshSnapshotParams('postgres', { takenAt: snapshot.takenAt, takenAtMs, digest, warnings }),
      )
    ).rows[0] as Row | undefined;
    if (refreshed) return Number(refreshed.id);
    const found = (await c.query('SELECT id FROM snapshot_contents WHERE digest = $1', [digest])).rows[0] as
      Row | undefined;
    const contentsId = Number(found ? found.id : await insertContents(c, digest, snapshot));
    const head = await c.query(
      'INSERT INTO snapshots (taken_at, taken_at_ms, warnings, contents_id) VALUES ($1, $2, $3, $4) RETURNING id',
      [snapshot.takenAt, takenAtMs, warnings, contentsId],
    );
    const id = Number((head.rows[0] as Row).id);
    const activity = nodeActivityCells(snapshot.nodes, takenAtMs);
    if (activity.length > 0)
      await c.query(upsertNodeActivitySql('SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[])'), [
        activity.map((a) => a[0]),
        activity.map((a) => a[1]),
        activity.map((a) => a[2]),
      ]);
    await c.query(
      NOTE_ACTIVITY_SNAPSHOT_SQL((i) => `$${i}`),
      [id],
    );
    await c.query(retainSnapshotsSql('$1'), [s.options.keepSnapshots]);
    if (((await c.query(DELETE_UNUSED_CONTENTS_SQL)).rowCount ?? 0) > 0)
      await c.query(DELETE_UNUSED_PARTS_SQL);
    return id;
  });
}

/** `Store.latestSnapshot` (types.ts) on PostgreSQL; a failure rejects with a StoreError naming `latestSnapshot`. */
export async function latestSnapshot(s: PgSession): Promise<Snapshot | null> {
  // One statement, one consistent view: a concurrent saveSnapshot's retention cannot delete the
  // contents mid-read.
  const rows = (await s.query('latestSnapshot', LATEST_SNAPSHOT_SQL)) as unknown as SnapshotPartRow[];
  return rows.length > 0 ? snapshotFromPartRows(rows) : null;
}

/** `Store.nodeEmptiness` (types.ts) on PostgreSQL; a failure rejects with a StoreError naming `nodeEmptiness`. */
export function nodeEmptiness(s: PgSession, nodes: readonly string[]): Promise<NodeEmptiness> {
  return s.withClient('nodeEmptiness', async (c) => {
    const rows = await c.query(nodeEmptinessSql('= ANY($1::text[])'), [[...nodes]]);
    const head = await c.query(OLDEST_SNAPSHOT_SQL);
    return nodeEmptinessFromRows(
      rows.rows as Parameters<typeof nodeEmptinessFromRows>[0],
      (head.rows[0] as { oldest: unknown } | undefined)?.oldest ?? null,
    );
  });
}
