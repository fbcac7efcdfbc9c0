/**
 * A snapshot's nodes and pods as stored since migration 8: content-addressed parts. Each kind's
 * records (in snapshot order) are cut into runs, a part each: a JSON array with one array of cells
 * per record, in NODE_COLUMNS / POD_COLUMNS order (rows.ts), its JSON columns as JSON values. A
 * part is keyed by the SHA-256 of its text, so equal runs are stored once however many contents
 * name them.
 *
 * Where a run ends depends only on the records' keys (a node's name, a pod's namespace/name):
 * after a record whose key hashes to 0 modulo {@link PART_MEAN_RECORDS} (content-defined chunking,
 * at record granularity). A pod that changes phase changes only its own part; one added or removed
 * changes its part, or two when its key was a cut. So a pass whose cluster moved a little writes a
 * part or two (~100 kB at 99,000 pods), not the whole 38 MB pods document that migration 7 stored.
 */
import { createHash } from 'node:crypto';
import type { NodeInfo, PodInfo, Snapshot } from '../cluster/index.js';
import { StoreError } from './errors.js';
import {
  fromJson,
  NODE_COLUMNS,
  nodeCells,
  nodeFromCells,
  POD_COLUMNS,
  podCells,
  podFromCells,
} from './rows.js';

/** Which records a part holds. */
export type PartKind = 'nodes' | 'pods';

/** One part of a snapshot's contents: its kind, its place among that kind's parts, its text and digest. */
export interface ContentsPart {
  kind: PartKind;
  /** 0-based, in snapshot order within the kind. */
  position: number;
  /** The part's records: a JSON array of cell arrays. */
  text: string;
  /** SHA-256 of `text`, 64 hex characters: the part's key in `snapshot_parts`. */
  digest: string;
}

/** Mean records per part: a run ends after a record whose key hash is 0 modulo this (a power of 2). */
export const PART_MEAN_RECORDS = 256;
/** A run is cut here whatever the keys, so no part grows without bound (reached with odds ~e^-64). */
export const PART_MAX_RECORDS = 16_384;

/**
 * The parts of a snapshot, nodes first, one at a time: each part's text is built only when the
 * generator reaches it, so a caller that stores or drops each before asking for the next holds
 * one part's text at once.
 * @throws StoreError (`saveSnapshot`) naming the record (its index in the snapshot) and column
 *   when a field that the row tables held NOT NULL is null or missing: such a snapshot is not stored.
 */
export function* contentsParts(snapshot: Pick<Snapshot, 'nodes' | 'pods'>): Generator<ContentsPart> {
  yield* kindParts('nodes', snapshot.nodes, (n) => n.name, nodeDocumentCells, NODE_COLUMNS, NULLABLE_NODE);
  yield* kindParts(
    'pods',
    snapshot.pods,
    (p) => `${p.namespace}/${p.name}`,
    podDocumentCells,
    POD_COLUMNS,
    NULLABLE_POD,
  );
}

function* kindParts<T>(
  kind: PartKind,
  records: readonly T[],
  key: (record: T) => string,
  cells: (record: T) => unknown[],
  columns: readonly string[],
  nullable: ReadonlySet<string>,
): Generator<ContentsPart> {
  const required = columns.map((c, i) => (nullable.has(c) ? -1 : i)).filter((i) => i >= 0);
  let position = 0;
  let run: unknown[][] = [];
  for (let r = 0; r < records.length; r++) {
    const row = cells(records[r]!);
    for (const i of required) {
      if (row[i] === null || row[i] === undefined)
        throw new StoreError('saveSnapshot', `${kind.slice(0, -1)} ${r}: ${columns[i]} must not be null`);
    }
    run.push(row);
    if (isCut(key(records[r]!)) || run.length >= PART_MAX_RECORDS || r === records.length - 1) {
      const text = JSON.stringify(run);
      yield { kind, position: position++, text, digest: createHash('sha256').update(text).digest('hex') };
      run = [];
    }
  }
}

/** True when a run ends after the record with this key (FNV-1a, 32 bits). */
export function isCut(key: string): boolean {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return (h & (PART_MEAN_RECORDS - 1)) === 0;
}

/** A row of LATEST_SNAPSHOT_SQL (rows.ts): the snapshot's head and one of its parts (kind null: none). */
export interface SnapshotPartRow {
  taken_at: unknown;
  warnings: unknown;
  kind: unknown;
  records: unknown;
}

/**
 * The snapshot of LATEST_SNAPSHOT_SQL's rows (at least one), each kind's parts concatenated in
 * row order. Cells read back through nodeFromCells / podFromCells, which take SQLite's 0/1 and
 * JSON's booleans alike.
 */
export function snapshotFromPartRows(rows: readonly SnapshotPartRow[]): Snapshot {
  const head = rows[0]!;
  const snapshot: Snapshot = { takenAt: head.taken_at as string, nodes: [], pods: [] };
  for (const row of rows) {
    if (row.kind === null || row.kind === undefined) continue;
    const cells = fromJson<unknown[][]>(row.records);
    if (row.kind === 'nodes') for (const c of cells) snapshot.nodes.push(nodeFromCells(c));
    else for (const c of cells) snapshot.pods.push(podFromCells(c));
  }
  if (head.warnings !== null && head.warnings !== undefined)
    snapshot.warnings = fromJson<string[]>(head.warnings);
  return snapshot;
}

// Migration 6's columns are NULL in rows stored before it (read back as 0 and unknown).
const NULLABLE_NODE: ReadonlySet<string> = new Set(['gpu_product', 'pool', 'allocatable', 'requested']);
const NULLABLE_POD: ReadonlySet<string> = new Set([
  'node_name',
  'algorithm',
  'owner_kind',
  'owner_name',
  'requests',
  'started_at',
]);

/** A node's cells in a part: nodeCells with its JSON columns as JSON values. */
function nodeDocumentCells(n: NodeInfo): unknown[] {
  const cells: unknown[] = nodeCells(n);
  cells[1] = n.labels;
  cells[13] = n.taints;
  cells[14] = n.allocatable;
  cells[15] = n.requested;
  return cells;
}

/** A pod's cells in a part: podCells with its JSON columns as JSON values. */
function podDocumentCells(p: PodInfo): unknown[] {
  const cells: unknown[] = podCells(p);
  cells[3] = p.labels;
  cells[15] = p.requests;
  return cells;
}
