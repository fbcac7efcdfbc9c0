/**
 * Snapshots share their nodes and pods by content digest (`snapshot_contents`, migration 5; two
 * JSON documents since migration 7),
 * on SQLite (a real file) and a real PostgreSQL server (postgres-server.ts): an equal snapshot
 * writes no second copy, retention deletes contents no snapshot names, the migrations back-fill
 * a database written by migration 4, and concurrent writers never fail on the foreign key.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Snapshot } from '../../src/cluster/types.js';
import { MIGRATIONS, migrationSql, SCHEMA_MIGRATIONS_DDL } from '../../src/store/migrations.js';
import { contentsParts } from '../../src/store/contents-parts.js';
import { openStore } from '../../src/store/open-store.js';
import { type Cell, NODE_COLUMNS, nodeCells, POD_COLUMNS, podCells } from '../../src/store/rows.js';
import type { Store } from '../../src/store/types.js';
import { makeSnapshot } from './snapshot-factory.js';
import { storeBackends, storedRecordsSql } from '../support/store-backends.js';

const T0 = Date.UTC(2026, 11, 1, 10, 0, 0);
const at = (s: number) => new Date(T0 + s * 1000).toISOString();
/** Snapshot `shape` (a number of nodes; pods are 5 per node) taken at `t` seconds. */
const snap = (shape: number, t: number): Snapshot => makeSnapshot(shape, shape * 5, at(t));

const { backends, setup, teardown } = storeBackends('contents');
beforeAll(setup, 120_000);
afterAll(teardown);

describe.each(backends)('snapshot contents on $name', (backend) => {
  const open: Store[] = [];
  let url = '';
  const store = async (keepSnapshots: number, fresh = true) => {
    if (fresh) url = await backend.url();
    const s = await openStore(url, { keepSnapshots });
    open.push(s);
    return s;
  };
  const count = async (table: string) =>
    Number((await backend.raw(url, `SELECT COUNT(*) AS n FROM ${table}`))[0]!.n);
  const records = async (column: 'nodes' | 'pods') =>
    Number((await backend.raw(url, storedRecordsSql(backend.name, column)))[0]!.n);
  const counts = async () => ({
    snapshots: await count('snapshots'),
    contents: await count('snapshot_contents'),
    nodes: await records('nodes'),
    pods: await records('pods'),
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });

  it('an equal snapshot writes no second copy of its nodes and pods and reads back whole', async () => {
    const s = await store(10);
    // Equal to the last one: its row's time moves (snapshot-refresh.ts), no row is added.
    for (const t of [0, 30, 60]) await s.saveSnapshot(snap(3, t));
    expect(await counts()).toEqual({ snapshots: 1, contents: 1, nodes: 3, pods: 15 });
    expect(await s.latestSnapshot()).toStrictEqual(snap(3, 60));
    // One pod changes phase: new contents, the old ones stay for the snapshots that name them;
    // the nodes did not change, so their part is shared (migration 8), the pods' part is new.
    const moved = snap(3, 90);
    moved.pods[4]!.phase = 'Failed';
    await s.saveSnapshot(moved);
    expect(await counts()).toEqual({ snapshots: 2, contents: 2, nodes: 3, pods: 30 });
    expect(await s.latestSnapshot()).toStrictEqual(moved);
    // Back to the first contents: a row of its own, the contents shared, not written a third time.
    await s.saveSnapshot(snap(3, 120));
    expect(await counts()).toEqual({ snapshots: 3, contents: 2, nodes: 3, pods: 30 });
    expect(await s.latestSnapshot()).toStrictEqual(snap(3, 120));
  });

  it('one changed pod among 2,000 writes one new part; retention deletes the part it replaced', async () => {
    const s = await store(2);
    await s.saveSnapshot(snap(400, 0));
    const parts = await count('snapshot_parts');
    expect(parts).toBeGreaterThan(4); // 400 nodes and 2,000 pods cut into runs of ~256
    const moved = snap(400, 30);
    moved.pods[1234]!.ready = !moved.pods[1234]!.ready;
    await s.saveSnapshot(moved);
    expect(await count('snapshot_parts')).toBe(parts + 1);
    expect(await s.latestSnapshot()).toStrictEqual(moved);
    await s.saveSnapshot(snap(400, 60)); // the first contents again: shared, nothing written
    expect(await count('snapshot_parts')).toBe(parts + 1);
    const again = snap(400, 90);
    again.pods[7]!.ready = !again.pods[7]!.ready;
    await s.saveSnapshot(again); // keeps 60 and 90: moved's contents go, and its one part
    expect(await count('snapshot_parts')).toBe(parts + 1);
    const base = new Set([...contentsParts(snap(400, 60))].map((p) => p.digest));
    const fresh = [...contentsParts(again)].filter((p) => !base.has(p.digest));
    expect(fresh.map((p) => p.kind)).toEqual(['pods']);
    const freshPods = (JSON.parse(fresh[0]!.text) as unknown[]).length;
    expect(await counts()).toEqual({ snapshots: 2, contents: 2, nodes: 400, pods: 2000 + freshPods });
    expect(await s.latestSnapshot()).toStrictEqual(again);
  });

  it('a snapshot with no nodes and no pods reads back empty', async () => {
    const s = await store(2);
    await s.saveSnapshot(snap(0, 0));
    expect(await s.latestSnapshot()).toStrictEqual(snap(0, 0));
    expect(await count('snapshot_parts')).toBe(0);
  });

  it('retention deletes contents when no kept snapshot names them, and only then', async () => {
    const s = await store(2);
    await s.saveSnapshot(snap(2, 0));
    await s.saveSnapshot(snap(4, 30));
    await s.saveSnapshot(snap(2, 60)); // drops the first snapshot; its contents stay (named at 60)
    expect(await counts()).toEqual({ snapshots: 2, contents: 2, nodes: 6, pods: 30 });
    await s.saveSnapshot(snap(2, 90)); // equal to the last: refreshed, nothing dropped
    expect(await counts()).toEqual({ snapshots: 2, contents: 2, nodes: 6, pods: 30 });
    await s.saveSnapshot(snap(3, 120)); // drops the one at 30: shape 4's contents go
    expect(await counts()).toEqual({ snapshots: 2, contents: 2, nodes: 5, pods: 25 });
    await s.saveSnapshot(snap(5, 150));
    await s.saveSnapshot(snap(6, 180));
    expect(await counts()).toEqual({ snapshots: 2, contents: 2, nodes: 11, pods: 55 });
    expect(await s.latestSnapshot()).toStrictEqual(snap(6, 180));
  });

  it('the migration gives each stored snapshot its own contents, read back as written', async () => {
    url = await backend.url();
    const before = MIGRATIONS.filter((m) => m.id < 5)
      .map((m) => migrationSql(m, backend.name))
      .join(';\n');
    const recorded = MIGRATIONS.filter((m) => m.id < 5)
      .map((m) => `INSERT INTO schema_migrations (id, name, applied_at) VALUES (${m.id}, 'm', 'x')`)
      .join(';\n');
    await backend.raw(url, `${SCHEMA_MIGRATIONS_DDL};\n${before};\n${recorded}`);
    const old = [snap(2, 0), snap(2, 30), snap(3, 60)];
    old[1]!.warnings = ['Node gpu-node-00001: one warning'];
    for (const [i, x] of old.entries()) await backend.raw(url, legacySnapshotSql(backend.name, i + 1, x));
    if (backend.name === 'postgres')
      await backend.raw(url, `SELECT setval(pg_get_serial_sequence('snapshots', 'id'), 3)`);
    const s = await store(10, false);
    expect(await s.latestSnapshot()).toStrictEqual(beforeMigration6(old[2]!));
    expect(await counts()).toEqual({ snapshots: 3, contents: 3, nodes: 7, pods: 35 });
    const links = await backend.raw(
      url,
      `SELECT s.id, c.digest FROM snapshots s JOIN snapshot_contents c ON c.id = s.contents_id ORDER BY s.id`,
    );
    expect(links.map((r) => [Number(r.id), r.digest])).toEqual([
      [1, 'snapshot:1'],
      [2, 'snapshot:2'],
      [3, 'snapshot:3'],
    ]);
    // Every old snapshot reads back its own rows: keep 1 and walk them from the newest down.
    await backend.raw(url, 'DELETE FROM snapshots WHERE id = 3');
    expect(await s.latestSnapshot()).toStrictEqual(beforeMigration6(old[1]!));
    await backend.raw(url, 'DELETE FROM snapshots WHERE id = 2');
    expect(await s.latestSnapshot()).toStrictEqual(beforeMigration6(old[0]!));
    // A new save equal to a back-filled one gets computed-digest contents; retention then
    // deletes the back-filled contents no snapshot names (2 and 3).
    await s.saveSnapshot(snap(2, 90));
    expect(await counts()).toEqual({ snapshots: 2, contents: 2, nodes: 4, pods: 20 });
  });

  it('two writers saving at once, each keeping one snapshot, never fail and leave whole contents', async () => {
    const a = await store(1);
    const b = await store(1, false);
    // Both alternate between two contents, so each save may find contents the other writer's
    // retention is about to delete (SQLite: one process, the transactions still take turns).
    const saves = Array.from({ length: 24 }, (_, i) =>
      (i % 2 ? a : b).saveSnapshot(snap(2 + ((i >> 1) % 2), i * 30)),
    );
    const results = await Promise.allSettled(saves);
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    const latest = (await a.latestSnapshot())!;
    const shape = latest.nodes.length;
    expect(latest).toStrictEqual(snap(shape, Date.parse(latest.takenAt) / 1000 - T0 / 1000));
    expect(await counts()).toEqual({ snapshots: 1, contents: 1, nodes: shape, pods: shape * 5 });
  });
});

/**
 * What a snapshot stored before migration 6 reads back as: no cpu, memory or pod counts (0) and
 * no pod start time (null), the rest as written.
 */
function beforeMigration6(snapshot: Snapshot): Snapshot {
  return {
    ...snapshot,
    nodes: snapshot.nodes.map((n) => ({
      ...n,
      allocatable: { cpuMillis: 0, memoryBytes: 0, pods: 0 },
      requested: { cpuMillis: 0, memoryBytes: 0, pods: 0 },
    })),
    pods: snapshot.pods.map((p) => ({ ...p, requests: { cpuMillis: 0, memoryBytes: 0 }, startedAt: null })),
  };
}

/** Columns of `snapshot_nodes` and `snapshot_pods` up to migration 5 (migration 6 appends the rest). */
const NODE_COLUMNS_5 = NODE_COLUMNS.slice(0, NODE_COLUMNS.indexOf('allocatable'));
const POD_COLUMNS_5 = POD_COLUMNS.slice(0, POD_COLUMNS.indexOf('requests'));

/**
 * SQL writing `snapshot` as migrations 1-4 stored it: a snapshots row with id `id`, its node and
 * pod rows keyed by snapshot_id.
 */
function legacySnapshotSql(dialect: 'sqlite' | 'postgres', id: number, snapshot: Snapshot): string {
  const lit = (c: Cell): string =>
    c === null
      ? 'NULL'
      : typeof c === 'boolean'
        ? dialect === 'sqlite'
          ? String(Number(c))
          : String(c)
        : typeof c === 'number'
          ? String(c)
          : `'${c.replace(/'/g, "''")}'`;
  const rows = (table: string, columns: readonly string[], cells: Cell[][]) =>
    cells.length === 0
      ? ''
      : `INSERT INTO ${table} (snapshot_id, position, ${columns.join(', ')}) VALUES ${cells
          .map((r, i) => `(${[id, i, ...r].map(lit).join(', ')})`)
          .join(', ')};`;
  const warnings = snapshot.warnings === undefined ? null : JSON.stringify(snapshot.warnings);
  return `INSERT INTO snapshots (id, taken_at, taken_at_ms, warnings)
      VALUES (${id}, ${lit(snapshot.takenAt)}, ${Date.parse(snapshot.takenAt)}, ${lit(warnings)});
    ${rows(
      'snapshot_nodes',
      NODE_COLUMNS_5,
      snapshot.nodes.map((n) => nodeCells(n).slice(0, NODE_COLUMNS_5.length)),
    )}
    ${rows(
      'snapshot_pods',
      POD_COLUMNS_5,
      snapshot.pods.map((p) => podCells(p).slice(0, POD_COLUMNS_5.length)),
    )}`;
}
