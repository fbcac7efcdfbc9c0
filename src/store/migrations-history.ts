/**
 * Migrations 2–4: snapshot warnings, pull request history with fleet status, and node activity.
 */
import type { Migration } from './migration-types.js';

/** Migrations 2–4, in id order (see the module comment). */
export const HISTORY_MIGRATIONS: readonly Migration[] = [
  {
    id: 2,
    name: 'snapshot warnings',
    // Snapshot.warnings (objects read only in part); NULL when the snapshot had none recorded.
    sql: (t) => `ALTER TABLE snapshots ADD COLUMN warnings ${t.json};`,
  },
  {
    id: 3,
    name: 'pull request history and fleet status',
    // pull_request_history: one row per pull request cycle (open → merged/closed), with its
    // last body; existing branches become one cycle each. fleet_status: the newest pass's pools
    // and placements per cluster, for `gpuops status` (JSON as written).
    sql: (t) => `
CREATE TABLE pull_request_history (
  id ${t.id},
  cluster TEXT NOT NULL,
  branch TEXT NOT NULL,
  kind TEXT NOT NULL,
  subject TEXT NOT NULL,
  title TEXT NOT NULL,
  body TEXT NOT NULL,
  number INTEGER,
  url TEXT,
  state TEXT NOT NULL,
  opened_at TEXT NOT NULL,
  opened_at_ms ${t.ms} NOT NULL,
  closed_at TEXT,
  updated_at TEXT NOT NULL,
  updated_at_ms ${t.ms} NOT NULL
);
CREATE INDEX pull_request_history_branch ON pull_request_history (cluster, branch, id);
CREATE INDEX pull_request_history_opened ON pull_request_history (cluster, opened_at_ms, id);
INSERT INTO pull_request_history
  (cluster, branch, kind, subject, title, body, number, url, state,
   opened_at, opened_at_ms, closed_at, updated_at, updated_at_ms)
  SELECT cluster, branch, kind, subject, title, body, number, url, state,
         updated_at, updated_at_ms, CASE WHEN state = 'open' THEN NULL ELSE updated_at END,
         updated_at, updated_at_ms
    FROM pull_requests ORDER BY updated_at_ms, id;
CREATE TABLE fleet_status (
  cluster TEXT PRIMARY KEY,
  at TEXT NOT NULL,
  at_ms ${t.ms} NOT NULL,
  body ${t.json} NOT NULL
);
CREATE INDEX decisions_at ON decisions (at_ms);
`,
  },
  {
    id: 4,
    name: 'node activity',
    // node_activity: per node, kept up to date by every saveSnapshot, so that "empty since" reaches
    // back past snapshot retention (keepSnapshots passes, 25 min at 30 s passes, is shorter than
    // pools.returnAfterSeconds). first_seen: the first snapshot that listed the node; last_busy:
    // the last one that saw a GPU pod or a gpuops pod there (NULL: never); empty_since: the first
    // snapshot after last_busy (NULL: never busy, or busy in the newest). The primary key is the
    // index the lookups by name use; last_busy has its own for "which nodes were ever busy".
    // Back-filled from the snapshots stored now.
    sql: (t) => `
CREATE TABLE node_activity (
  name TEXT PRIMARY KEY,
  first_seen_at_ms ${t.ms} NOT NULL,
  last_busy_at_ms ${t.ms},
  empty_since_ms ${t.ms}
);
CREATE INDEX node_activity_last_busy ON node_activity (last_busy_at_ms);
INSERT INTO node_activity (name, first_seen_at_ms, last_busy_at_ms)
  SELECT n.name, MIN(s.taken_at_ms),
         MAX(CASE WHEN n.gpu_requested > 0 OR n.managed_pods > 0 THEN s.taken_at_ms END)
    FROM snapshot_nodes n JOIN snapshots s ON s.id = n.snapshot_id
   GROUP BY n.name;
UPDATE node_activity SET empty_since_ms =
  (SELECT MIN(s.taken_at_ms) FROM snapshots s WHERE s.taken_at_ms > node_activity.last_busy_at_ms)
  WHERE last_busy_at_ms IS NOT NULL;
`,
  },
];
