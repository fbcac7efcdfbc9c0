/**
 * Conversion between gpuops records and table rows, shared by both stores. Rows are written as
 * arrays in the column order below; booleans and JSON are encoded per dialect by the store.
 */
import { createHash } from 'node:crypto';
import type { CpuMemory, NodeInfo, NodeResources, PodInfo, Snapshot, Taint } from '../cluster/types.js';
import type { Pool } from '../definitions/types.js';
import { StoreError } from './errors.js';
import type {
  BenchmarkRun,
  DecisionRecord,
  NodeEmptiness,
  PullRequestRecord,
  UtilizationSampleRecord,
} from './types.js';

/** A value as it goes into a statement before dialect encoding. */
export type Cell = string | number | boolean | null;

/**
 * Epoch milliseconds of an ISO-8601 time, for ordering and ranges.
 * @throws StoreError naming `operation` and `field` when the text is not a date.
 */
export function toMs(operation: string, field: string, iso: string): number {
  const ms = typeof iso === 'string' ? Date.parse(iso) : Number.NaN;
  if (Number.isNaN(ms)) {
    throw new StoreError(operation, `${field}: ${JSON.stringify(iso)} is not an ISO-8601 time`);
  }
  return ms;
}

/** A JSON column as read: SQLite gives text, PostgreSQL `json` gives the parsed value. */
export function fromJson<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

/** A boolean column as read: SQLite gives 0/1, PostgreSQL gives a boolean. */
export function fromBool(value: unknown): boolean {
  return value === true || value === 1;
}

/** A nullable numeric column (PostgreSQL BIGINT comes back as text). */
export function fromNum(value: unknown): number | null {
  return value === null || value === undefined ? null : Number(value);
}

type Row = Record<string, unknown>;

export const NODE_COLUMNS = [
  'name',
  'labels',
  'ready',
  'cordoned',
  'schedulable',
  'gpu_product',
  'gpu_capacity',
  'gpu_allocatable',
  'mig_allocatable',
  'gpu_requested',
  'foreign_gpu_requested',
  'managed_pods',
  'pool',
  'taints',
  'allocatable',
  'requested',
] as const;

const NO_RESOURCES: NodeResources = { cpuMillis: 0, memoryBytes: 0, pods: 0 };

export function nodeCells(n: NodeInfo): Cell[] {
  return [
    n.name,
    JSON.stringify(n.labels),
    n.ready,
    n.cordoned,
    n.schedulable,
    n.gpuProduct,
    n.gpuCapacity,
    n.gpuAllocatable,
    n.migAllocatable,
    n.gpuRequested,
    n.foreignGpuRequested,
    n.managedPods,
    n.pool,
    JSON.stringify(n.taints),
    JSON.stringify(n.allocatable),
    JSON.stringify(n.requested),
  ];
}

/** A node from the cells of `SELECT <NODE_COLUMNS>` in array mode (the order of {@link nodeCells}). */
export function nodeFromCells(c: unknown[]): NodeInfo {
  return {
    name: c[0] as string,
    labels: fromJson<Record<string, string>>(c[1]),
    ready: fromBool(c[2]),
    cordoned: fromBool(c[3]),
    schedulable: fromBool(c[4]),
    gpuProduct: (c[5] as string | null) ?? null,
    gpuCapacity: Number(c[6]),
    gpuAllocatable: Number(c[7]),
    migAllocatable: Number(c[8]),
    gpuRequested: Number(c[9]),
    foreignGpuRequested: Number(c[10]),
    managedPods: Number(c[11]),
    pool: (c[12] as Pool | null) ?? null,
    taints: fromJson<Taint[]>(c[13]),
    allocatable: c[14] == null ? { ...NO_RESOURCES } : fromJson<NodeResources>(c[14]),
    requested: c[15] == null ? { ...NO_RESOURCES } : fromJson<NodeResources>(c[15]),
  };
}

/**
 * A digest of what a snapshot stores as contents (its nodes and pods, in order; not `takenAt` nor
 * the warnings, which go in its own `snapshots` row): the key of `snapshot_contents` (migration
 * 5). Snapshots with the same digest share one stored copy of their nodes and pods, so a pass
 * whose cluster did not move writes one `snapshots` row and nothing else. Returns 64 hex
 * characters (SHA-256).
 */
export function snapshotContentDigest(snapshot: Pick<Snapshot, 'nodes' | 'pods'>): string {
  // The watch cache hands out the same arrays while nothing changed (`ClusterCache.snapshot`), so
  // a digest is remembered per pair of arrays: a pass over an unchanged cluster hashes nothing
  // (0.35 s a pass at 10,000 nodes / 99,000 pods). Snapshot arrays are never changed in place.
  const known = DIGESTS.get(snapshot.nodes);
  if (known?.pods === snapshot.pods) return known.digest;
  const digest = hashContents(snapshot);
  DIGESTS.set(snapshot.nodes, { pods: snapshot.pods, digest });
  return digest;
}

/** The last digest of each nodes array, with the pods array it went with. */
const DIGESTS = new WeakMap<readonly unknown[], { pods: readonly unknown[]; digest: string }>();

/** SHA-256 of a snapshot's nodes and pods as JSON (see {@link snapshotContentDigest}). */
function hashContents(snapshot: Pick<Snapshot, 'nodes' | 'pods'>): string {
  // The records as JSON, a slice at a time (one native call per slice; the text stays small).
  // Equal text means equal records, hence equal cells; a record built with its keys in another
  // order only misses the shortcut.
  const hash = createHash('sha256');
  const add = (items: readonly unknown[]) => {
    for (let i = 0; i < items.length; i += DIGEST_SLICE)
      hash.update(JSON.stringify(items.slice(i, i + DIGEST_SLICE)));
    hash.update('\0');
  };
  add(snapshot.nodes);
  add(snapshot.pods);
  return hash.digest('hex');
}

/** Records per `JSON.stringify` call of {@link snapshotContentDigest}. */
const DIGEST_SLICE = 100;

export const POD_COLUMNS = [
  'namespace',
  'name',
  'uid',
  'labels',
  'node_name',
  'phase',
  'ready',
  'terminating',
  'gpu_request',
  'managed',
  'algorithm',
  'owner_kind',
  'owner_name',
  'unschedulable',
  'created_at',
  'requests',
  'started_at',
] as const;

export function podCells(p: PodInfo): Cell[] {
  return [
    p.namespace,
    p.name,
    p.uid,
    JSON.stringify(p.labels),
    p.nodeName,
    p.phase,
    p.ready,
    p.terminating,
    p.gpuRequest,
    p.managed,
    p.algorithm,
    p.owner?.kind ?? null,
    p.owner?.name ?? null,
    p.unschedulable,
    p.createdAt,
    JSON.stringify(p.requests),
    p.startedAt,
  ];
}

/** A pod from the cells of `SELECT <POD_COLUMNS>` in array mode (the order of {@link podCells}). */
export function podFromCells(c: unknown[]): PodInfo {
  const ownerKind = (c[11] as string | null) ?? null;
  return {
    namespace: c[0] as string,
    name: c[1] as string,
    uid: c[2] as string,
    labels: fromJson<Record<string, string>>(c[3]),
    nodeName: (c[4] as string | null) ?? null,
    phase: c[5] as PodInfo['phase'],
    ready: fromBool(c[6]),
    terminating: fromBool(c[7]),
    gpuRequest: Number(c[8]),
    managed: fromBool(c[9]),
    algorithm: (c[10] as string | null) ?? null,
    owner: ownerKind === null ? null : { kind: ownerKind, name: c[12] as string },
    unschedulable: fromBool(c[13]),
    createdAt: c[14] as string,
    requests: c[15] == null ? { cpuMillis: 0, memoryBytes: 0 } : fromJson<CpuMemory>(c[15]),
    startedAt: (c[16] as string | null) ?? null,
  };
}

/** The count and highest id of `benchmark_runs` (`Store.benchmarkRunsVersion`); the same in both dialects. */
export const BENCHMARK_RUNS_VERSION_SQL = `SELECT count(*) AS n, coalesce(max(id), 0) AS last FROM benchmark_runs`;

/**
 * The newest snapshot (by `taken_at_ms`, then id) with its contents' parts (migration 8), one row
 * per part in (kind, position) order, in one statement (a consistent view without a transaction);
 * one row with a null kind when the contents have no parts. The same in both dialects.
 */
export const LATEST_SNAPSHOT_SQL = `SELECT s.taken_at, s.warnings, cp.kind, p.records
  FROM (SELECT taken_at, warnings, contents_id FROM snapshots
         ORDER BY taken_at_ms DESC, id DESC LIMIT 1) s
  LEFT JOIN contents_parts cp ON cp.contents_id = s.contents_id
  LEFT JOIN snapshot_parts p ON p.digest = cp.part
 ORDER BY cp.kind, cp.position`;

/** Retention: deletes all but the newest `limit` snapshots (`limit`: the dialect's parameter). */
export const retainSnapshotsSql = (limit: string): string =>
  `DELETE FROM snapshots WHERE id NOT IN (SELECT id FROM snapshots ORDER BY taken_at_ms DESC, id DESC LIMIT ${limit})`;

/**
 * Retention, after {@link retainSnapshotsSql}: deletes the contents no snapshot names any more
 * (their `contents_parts` rows go by ON DELETE CASCADE). The same in both dialects.
 */
export const DELETE_UNUSED_CONTENTS_SQL = `DELETE FROM snapshot_contents WHERE NOT EXISTS
  (SELECT 1 FROM snapshots s WHERE s.contents_id = snapshot_contents.id)`;

/**
 * Retention, after {@link DELETE_UNUSED_CONTENTS_SQL} deleted any: deletes the parts no contents
 * name any more (index `contents_parts_part`). The same in both dialects.
 */
export const DELETE_UNUSED_PARTS_SQL = `DELETE FROM snapshot_parts WHERE NOT EXISTS
  (SELECT 1 FROM contents_parts cp WHERE cp.part = snapshot_parts.digest)`;

/** `Snapshot.warnings` as stored: JSON text, or null when absent. */
export function warningsCell(snapshot: Snapshot): string | null {
  return snapshot.warnings === undefined ? null : JSON.stringify(snapshot.warnings);
}

export const BENCHMARK_COLUMNS = [
  'algorithm',
  'spec_hash',
  'run',
  'status',
  'duration_seconds',
  'node',
  'job_name',
  'started_at',
  'started_at_ms',
  'finished_at',
  'message',
  'gpu_product',
] as const;

export function benchmarkCells(b: BenchmarkRun): Cell[] {
  return [
    b.algorithm,
    b.specHash,
    b.run,
    b.status,
    b.durationSeconds,
    b.node,
    b.jobName,
    b.startedAt,
    toMs('recordBenchmarkRun', 'startedAt', b.startedAt),
    b.finishedAt,
    b.message,
    b.gpuProduct ?? null,
  ];
}

export function benchmarkFromRow(r: Row): BenchmarkRun {
  return {
    algorithm: r.algorithm as string,
    specHash: r.spec_hash as string,
    run: Number(r.run),
    status: r.status as BenchmarkRun['status'],
    durationSeconds: fromNum(r.duration_seconds),
    node: (r.node as string | null) ?? null,
    jobName: r.job_name as string,
    startedAt: r.started_at as string,
    finishedAt: (r.finished_at as string | null) ?? null,
    message: r.message as string,
    gpuProduct: (r.gpu_product as string | null) ?? null,
  };
}

export const SAMPLE_COLUMNS = ['algorithm', 'namespace', 'pod', 'utilization', 'at', 'at_ms'] as const;

export function sampleCells(s: UtilizationSampleRecord): Cell[] {
  return [s.algorithm, s.namespace, s.pod, s.utilization, s.at, toMs('saveSamples', 'at', s.at)];
}

export function sampleFromRow(r: Row): UtilizationSampleRecord {
  return {
    algorithm: r.algorithm as string,
    namespace: r.namespace as string,
    pod: r.pod as string,
    utilization: Number(r.utilization),
    at: r.at as string,
  };
}

export const DECISION_COLUMNS = [
  'kind',
  'subject',
  'action',
  'reason',
  'message',
  'replicas_from',
  'replicas_to',
  'utilization',
  'at',
  'at_ms',
] as const;

export function decisionCells(d: DecisionRecord): Cell[] {
  return [
    d.kind,
    d.subject,
    d.action,
    d.reason,
    d.message,
    d.replicasFrom,
    d.replicasTo,
    d.utilization,
    d.at,
    toMs('recordDecision', 'at', d.at),
  ];
}

export function decisionFromRow(r: Row): DecisionRecord {
  return {
    kind: r.kind as DecisionRecord['kind'],
    subject: r.subject as string,
    action: r.action as string,
    reason: r.reason as string,
    message: r.message as string,
    replicasFrom: fromNum(r.replicas_from),
    replicasTo: fromNum(r.replicas_to),
    utilization: fromNum(r.utilization),
    at: r.at as string,
  };
}

export const PULL_REQUEST_COLUMNS = [
  'cluster',
  'branch',
  'kind',
  'subject',
  'title',
  'body',
  'desired_hash',
  'number',
  'url',
  'state',
  'updated_at',
  'updated_at_ms',
] as const;

export function pullRequestCells(p: PullRequestRecord): Cell[] {
  return [
    p.cluster,
    p.branch,
    p.kind,
    p.subject,
    p.title,
    p.body,
    p.desiredHash,
    p.number,
    p.url,
    p.state,
    p.updatedAt,
    toMs('upsertPullRequest', 'updatedAt', p.updatedAt),
  ];
}

export function pullRequestFromRow(r: Row): PullRequestRecord {
  return {
    cluster: r.cluster as string,
    branch: r.branch as string,
    kind: r.kind as string,
    subject: r.subject as string,
    title: r.title as string,
    body: r.body as string,
    desiredHash: r.desired_hash as string,
    number: fromNum(r.number),
    url: (r.url as string | null) ?? null,
    state: r.state as PullRequestRecord['state'],
    updatedAt: r.updated_at as string,
  };
}

/** `INSERT … ON CONFLICT (cluster, branch) DO UPDATE` body, the same in both dialects. */
export function pullRequestUpsertTail(): string {
  return `ON CONFLICT (cluster, branch) DO UPDATE SET ${PULL_REQUEST_COLUMNS.filter(
    (c) => c !== 'cluster' && c !== 'branch',
  )
    .map((c) => `${c} = excluded.${c}`)
    .join(', ')}`;
}

/** Groups rows (already in the wanted order) by `key`, keeping that order within each group. */
export function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = out.get(k);
    if (group) group.push(item);
    else out.set(k, [item]);
  }
  return out;
}

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
