/**
 * Migrations 5–8: snapshot contents stored once per digest, then as documents, then in
 * content-addressed parts; and the node resources and pod requests they carry.
 */
import type { Migration } from './migration-types.js';

/** Migrations 5–8, in id order (see the module comment). */
export const CONTENTS_MIGRATIONS: readonly Migration[] = [
  {
    id: 5,
    name: 'shared snapshot contents',
    // snapshot_contents: the nodes and pods of one or more snapshots, found by the digest of the
    // records (rows.ts, snapshotContentDigest), so that a pass whose cluster did not move stores
    // one snapshots row pointing at the contents already there instead of ~20,000 row copies.
    // snapshot_nodes/snapshot_pods are rebuilt keyed by contents_id (SQLite cannot change a
    // table's keys in place); contents go with the last snapshot that names them (saveSnapshot's
    // retention), their rows by ON DELETE CASCADE. Back-fill: each stored snapshot becomes its own
    // contents, with a digest ('snapshot:<id>') that no computed digest (hex) can equal.
    sql: (t) => `
CREATE TABLE snapshot_contents (
  id ${t.id},
  digest TEXT NOT NULL UNIQUE
);
ALTER TABLE snapshots ADD COLUMN contents_id INTEGER REFERENCES snapshot_contents (id);
INSERT INTO snapshot_contents (digest) SELECT 'snapshot:' || id FROM snapshots ORDER BY id;
UPDATE snapshots SET contents_id =
  (SELECT c.id FROM snapshot_contents c WHERE c.digest = 'snapshot:' || snapshots.id);
CREATE INDEX snapshots_contents ON snapshots (contents_id);

CREATE TABLE contents_nodes (
  contents_id INTEGER NOT NULL REFERENCES snapshot_contents (id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  name TEXT NOT NULL,
  labels ${t.json} NOT NULL,
  ready ${t.bool} NOT NULL,
  cordoned ${t.bool} NOT NULL,
  schedulable ${t.bool} NOT NULL,
  gpu_product TEXT,
  gpu_capacity INTEGER NOT NULL,
  gpu_allocatable INTEGER NOT NULL,
  mig_allocatable INTEGER NOT NULL,
  gpu_requested INTEGER NOT NULL,
  foreign_gpu_requested INTEGER NOT NULL,
  managed_pods INTEGER NOT NULL,
  pool TEXT,
  taints ${t.json} NOT NULL,
  PRIMARY KEY (contents_id, position)
);
INSERT INTO contents_nodes
  (contents_id, position, name, labels, ready, cordoned, schedulable, gpu_product, gpu_capacity,
   gpu_allocatable, mig_allocatable, gpu_requested, foreign_gpu_requested, managed_pods, pool, taints)
  SELECT s.contents_id, n.position, n.name, n.labels, n.ready, n.cordoned, n.schedulable,
         n.gpu_product, n.gpu_capacity, n.gpu_allocatable, n.mig_allocatable, n.gpu_requested,
         n.foreign_gpu_requested, n.managed_pods, n.pool, n.taints
    FROM snapshot_nodes n JOIN snapshots s ON s.id = n.snapshot_id;
DROP TABLE snapshot_nodes;
ALTER TABLE contents_nodes RENAME TO snapshot_nodes;

CREATE TABLE contents_pods (
  contents_id INTEGER NOT NULL REFERENCES snapshot_contents (id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  namespace TEXT NOT NULL,
  name TEXT NOT NULL,
  uid TEXT NOT NULL,
  labels ${t.json} NOT NULL,
  node_name TEXT,
  phase TEXT NOT NULL,
  ready ${t.bool} NOT NULL,
  terminating ${t.bool} NOT NULL,
  gpu_request INTEGER NOT NULL,
  managed ${t.bool} NOT NULL,
  algorithm TEXT,
  owner_kind TEXT,
  owner_name TEXT,
  unschedulable ${t.bool} NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (contents_id, position)
);
INSERT INTO contents_pods
  (contents_id, position, namespace, name, uid, labels, node_name, phase, ready, terminating,
   gpu_request, managed, algorithm, owner_kind, owner_name, unschedulable, created_at)
  SELECT s.contents_id, p.position, p.namespace, p.name, p.uid, p.labels, p.node_name, p.phase,
         p.ready, p.terminating, p.gpu_request, p.managed, p.algorithm, p.owner_kind, p.owner_name,
         p.unschedulable, p.created_at
    FROM snapshot_pods p JOIN snapshots s ON s.id = p.snapshot_id;
DROP TABLE snapshot_pods;
ALTER TABLE contents_pods RENAME TO snapshot_pods;
`,
  },
  {
    id: 6,
    name: 'node resources, pod requests and start, benchmark GPU product',
    // What kube-scheduler's NodeResourcesFit judges (a free GPU on a node with no cpu left is no
    // room): a node's allocatable cpu, memory and pods and what its pods request (JSON: {cpuMillis,
    // memoryBytes, pods}), a pod's effective cpu/memory requests and its status.startTime (a
    // replica is starting only for so long); and the GPU product a benchmark run was measured on (a
    // run time holds for one product). Rows stored before have NULL: read back as 0
    // requested/allocatable and an unknown start or product.
    sql: (t) => `
ALTER TABLE snapshot_nodes ADD COLUMN allocatable ${t.json};
ALTER TABLE snapshot_nodes ADD COLUMN requested ${t.json};
ALTER TABLE snapshot_pods ADD COLUMN requests ${t.json};
ALTER TABLE snapshot_pods ADD COLUMN started_at TEXT;
ALTER TABLE benchmark_runs ADD COLUMN gpu_product TEXT;
`,
  },
  {
    id: 7,
    name: 'snapshot contents as documents',
    // snapshot_contents.nodes / .pods: the nodes and pods of the contents as two JSON documents
    // (one array of cells per record, the format of migration 8's parts, NODE_COLUMNS / POD_COLUMNS
    // order), instead of one row per node and pod. A pass whose cluster moved (one pod started)
    // wrote ~55,000 rows at 50,000 pods, each cell bound from JavaScript one by one; it now binds
    // two strings, and a read parses two. Nothing queried the rows one by one. Back-filled from
    // the rows, in position order; then the row tables go.
    sql: (_t, dialect) => (dialect === 'sqlite' ? SQLITE_DOCUMENTS : POSTGRES_DOCUMENTS),
  },
  {
    id: 8,
    name: 'snapshot contents in parts',
    // snapshot_parts: runs of a contents' nodes or pods (contents-parts.ts: cut where a record's
    // key hashes to 0 mod 256, so one pod's change makes one new part), keyed by the SHA-256 of
    // their text and shared by every contents that names them (contents_parts, in order per kind).
    // Migration 7 rewrote the whole pods document (38 MB at 99,000 pods) whenever one pod moved.
    // Back-fill: each contents' two documents become a part each, with digests
    // ('contents:<id>:nodes' / ':pods') that no computed digest (hex) can equal; then the
    // document columns go. Parts go when no contents name them (saveSnapshot's retention).
    sql: () => `
CREATE TABLE snapshot_parts (
  digest TEXT PRIMARY KEY,
  records TEXT NOT NULL
);
CREATE TABLE contents_parts (
  contents_id INTEGER NOT NULL REFERENCES snapshot_contents (id) ON DELETE CASCADE,
  kind TEXT NOT NULL,
  position INTEGER NOT NULL,
  part TEXT NOT NULL REFERENCES snapshot_parts (digest),
  PRIMARY KEY (contents_id, kind, position)
);
CREATE INDEX contents_parts_part ON contents_parts (part);
INSERT INTO snapshot_parts (digest, records)
  SELECT 'contents:' || id || ':nodes', nodes FROM snapshot_contents WHERE nodes IS NOT NULL AND nodes <> '[]';
INSERT INTO snapshot_parts (digest, records)
  SELECT 'contents:' || id || ':pods', pods FROM snapshot_contents WHERE pods IS NOT NULL AND pods <> '[]';
INSERT INTO contents_parts (contents_id, kind, position, part)
  SELECT id, 'nodes', 0, 'contents:' || id || ':nodes' FROM snapshot_contents WHERE nodes IS NOT NULL AND nodes <> '[]';
INSERT INTO contents_parts (contents_id, kind, position, part)
  SELECT id, 'pods', 0, 'contents:' || id || ':pods' FROM snapshot_contents WHERE pods IS NOT NULL AND pods <> '[]';
ALTER TABLE snapshot_contents DROP COLUMN nodes;
ALTER TABLE snapshot_contents DROP COLUMN pods;
`,
  },
];

/** The cells of a contents document in NODE_COLUMNS / POD_COLUMNS order (rows.ts); JSON text columns as values. */
const NODE_DOCUMENT_CELLS =
  'name, json(labels), ready, cordoned, schedulable, gpu_product, gpu_capacity, gpu_allocatable, ' +
  'mig_allocatable, gpu_requested, foreign_gpu_requested, managed_pods, pool, json(taints), json(allocatable), json(requested)';
const POD_DOCUMENT_CELLS =
  'namespace, name, uid, json(labels), node_name, phase, ready, terminating, gpu_request, managed, ' +
  'algorithm, owner_kind, owner_name, unschedulable, created_at, json(requests), started_at';

/** Migration 7 on SQLite: `json(…)` embeds the JSON text columns as values; 0/1 stay numbers. */
const SQLITE_DOCUMENTS = `
ALTER TABLE snapshot_contents ADD COLUMN nodes TEXT;
ALTER TABLE snapshot_contents ADD COLUMN pods TEXT;
UPDATE snapshot_contents SET
  nodes = (SELECT json_group_array(json_array(${NODE_DOCUMENT_CELLS}) ORDER BY position)
             FROM snapshot_nodes WHERE contents_id = snapshot_contents.id),
  pods = (SELECT json_group_array(json_array(${POD_DOCUMENT_CELLS}) ORDER BY position)
            FROM snapshot_pods WHERE contents_id = snapshot_contents.id);
DROP TABLE snapshot_nodes;
DROP TABLE snapshot_pods;
`;

/** Migration 7 on PostgreSQL: the json columns go in as values, booleans as JSON booleans. */
const POSTGRES_DOCUMENTS = `
ALTER TABLE snapshot_contents ADD COLUMN nodes TEXT, ADD COLUMN pods TEXT;
UPDATE snapshot_contents SET
  nodes = COALESCE((SELECT json_agg(json_build_array(${NODE_DOCUMENT_CELLS.replace(/json\((\w+)\)/g, '$1')}) ORDER BY position)::text
                      FROM snapshot_nodes WHERE contents_id = snapshot_contents.id), '[]'),
  pods = COALESCE((SELECT json_agg(json_build_array(${POD_DOCUMENT_CELLS.replace(/json\((\w+)\)/g, '$1')}) ORDER BY position)::text
                     FROM snapshot_pods WHERE contents_id = snapshot_contents.id), '[]');
DROP TABLE snapshot_nodes;
DROP TABLE snapshot_pods;
`;
