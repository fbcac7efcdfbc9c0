/**
 * Snapshot rows: node and pod cells in column order, the contents digest, and the SQL of the
 * newest snapshot and of snapshot retention; the same in both dialects.
 */
import { createHash } from 'node:crypto';
import type { CpuMemory, NodeInfo, NodeResources, PodInfo, Snapshot, Taint } from '../cluster/index.js';
import type { Pool } from '../definitions/index.js';
import { type Cell, fromBool, fromJson } from './row-cells.js';

/** The columns of `snapshot_nodes` gpuops writes, in the order of {@link nodeCells}. */
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

/** A node's cells in {@link NODE_COLUMNS} order: labels, taints and resources as JSON text, GPUs as whole counts. */
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

/** The columns of `snapshot_pods` gpuops writes, in the order of {@link podCells}. */
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

/** A pod's cells in {@link POD_COLUMNS} order: labels and requests as JSON text, times ISO-8601. */
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
