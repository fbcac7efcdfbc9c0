/**
 * A snapshot equal to the one node activity last took moves that row's time and writes nothing
 * else (`store/snapshot-refresh.ts`, migration 14), on SQLite (a real file) and a real PostgreSQL
 * server. Rows written are counted by triggers on every snapshot table; what readers get
 * (`latestSnapshot`, `nodeEmptiness`) is checked after each save against what storing every
 * snapshot whole gives. A changed snapshot after an unchanged one, another writer's snapshot, a
 * row retention deleted and a new process (restart) are each checked.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Snapshot } from '../../src/cluster/types.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/types.js';
import { activityNode, makeSnapshot } from './snapshot-factory.js';
import { schemaAt, type StoreBackend, storeBackends } from '../support/store-backends.js';

const T0 = Date.UTC(2026, 11, 7, 10, 0, 0);
const at = (s: number) => new Date(T0 + s * 1000).toISOString();

/** The tables a save may write; a trigger logs each row written to `writes` as `table op`. */
const TABLES = ['snapshots', 'snapshot_contents', 'snapshot_parts', 'contents_parts', 'node_activity'];
const OPS = ['INSERT', 'UPDATE', 'DELETE'];

function triggersSql(dialect: StoreBackend['name']): string {
  const log = 'CREATE TABLE writes (seq INTEGER NOT NULL, what TEXT NOT NULL);';
  if (dialect === 'sqlite')
    return [
      log,
      ...TABLES.flatMap((t) =>
        OPS.map(
          (op) => `CREATE TRIGGER w_${t}_${op} AFTER ${op} ON ${t}
             BEGIN INSERT INTO writes (seq, what) VALUES ((SELECT COUNT(*) FROM writes), '${t} ${op}'); END;`,
        ),
      ),
    ].join('\n');
  return [
    log,
    `CREATE FUNCTION log_write() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
       INSERT INTO writes (seq, what) VALUES ((SELECT COUNT(*) FROM writes), TG_TABLE_NAME || ' ' || TG_OP);
       RETURN NULL; END $$;`,
    ...TABLES.map(
      (t) => `CREATE TRIGGER w_${t} AFTER INSERT OR UPDATE OR DELETE ON ${t}
         FOR EACH ROW EXECUTE FUNCTION log_write();`,
    ),
  ].join('\n');
}

/** A snapshot of 40 nodes and 200 pods at `t` seconds, node `x` busy or not. */
function snap(t: number, x: 'gpu' | 'none' = 'none'): Snapshot {
  const s = makeSnapshot(40, 200, at(t));
  return { ...s, nodes: [...s.nodes, activityNode('x', x)] };
}

const { backends, setup, teardown } = storeBackends('refresh');
beforeAll(setup, 120_000);
afterAll(teardown);

describe.each(backends)('unchanged snapshots on $name', (backend) => {
  const open: Store[] = [];
  let url = '';
  const store = async (keepSnapshots = 5) => {
    const s = await openStore(url, { keepSnapshots });
    open.push(s);
    return s;
  };
  const fresh = async (keepSnapshots = 5) => {
    url = await backend.url();
    const s = await store(keepSnapshots);
    await backend.raw(url, triggersSql(backend.name));
    return s;
  };
  /** The rows a save wrote, as `table op`, in order. */
  const writesOf = async (save: () => Promise<unknown>): Promise<string[]> => {
    const before = Number((await backend.raw(url, 'SELECT COUNT(*) AS n FROM writes'))[0]!.n);
    await save();
    const rows = await backend.raw(url, `SELECT what FROM writes WHERE seq >= ${before} ORDER BY seq`);
    return rows.map((r) => String(r.what));
  };
  const snapshotRows = async () =>
    (await backend.raw(url, 'SELECT id, taken_at FROM snapshots ORDER BY id')).map((r) => [
      Number(r.id),
      r.taken_at,
    ]);
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });

  it('two unchanged passes write one row each: the time of the snapshot they repeat', async () => {
    const s = await fresh();
    const first = await s.saveSnapshot(snap(0));
    expect(await writesOf(() => s.saveSnapshot(snap(30)))).toEqual(['snapshots UPDATE']);
    expect(await writesOf(() => s.saveSnapshot(snap(60)))).toEqual(['snapshots UPDATE']);
    expect(await snapshotRows()).toEqual([[first, at(60)]]);
    expect(await s.saveSnapshot(snap(90))).toBe(first);
    // What a reader gets is the last snapshot saved, as when each was stored whole.
    expect(await s.latestSnapshot()).toStrictEqual(snap(90));
    expect(await (await store()).latestSnapshot()).toStrictEqual(snap(90));
  });

  it('writes a change that follows an unchanged pass, and the repeat of an older state', async () => {
    const s = await fresh();
    await s.saveSnapshot(snap(0, 'gpu'));
    await s.saveSnapshot(snap(30, 'gpu')); // unchanged: refreshed
    // x turns empty: a new row, its node activity written.
    const changed = await writesOf(() => s.saveSnapshot(snap(60)));
    expect(changed).toContain('snapshots INSERT');
    expect(changed).toContain('node_activity UPDATE');
    expect(await s.latestSnapshot()).toStrictEqual(snap(60));
    expect((await s.nodeEmptiness!(['x'])).emptyAfterBusy.get('x')).toBe(at(60));
    // Busy again: equal to the first row's contents, but node activity took the empty one last,
    // so it is stored whole (a refresh of the first row would leave x empty since 60).
    const again = await writesOf(() => s.saveSnapshot(snap(90, 'gpu')));
    expect(again).toContain('snapshots INSERT');
    expect(again).toContain('node_activity UPDATE');
    expect(await s.latestSnapshot()).toStrictEqual(snap(90, 'gpu'));
    expect((await s.nodeEmptiness!(['x'])).emptyAfterBusy.get('x')).toBeNull();
    expect((await snapshotRows()).map((r) => r[1])).toEqual([at(30), at(60), at(90)]);
  });

  it('stores whole a snapshot whose warnings changed, or which is older than the stored one', async () => {
    const s = await fresh();
    await s.saveSnapshot(snap(0));
    const warned = { ...snap(30), warnings: ['Node gpu-node-00001: one warning'] };
    expect(await writesOf(() => s.saveSnapshot(warned))).toContain('snapshots INSERT');
    expect(await s.latestSnapshot()).toStrictEqual(warned);
    expect(await writesOf(() => s.saveSnapshot({ ...warned, takenAt: at(60) }))).toEqual([
      'snapshots UPDATE',
    ]);
    expect(await writesOf(() => s.saveSnapshot({ ...snap(90), warnings: [] }))).toContain('snapshots INSERT');
    // An earlier time (a clock that went back) is a row of its own, as before.
    expect(await writesOf(() => s.saveSnapshot({ ...snap(45), warnings: [] }))).toContain('snapshots INSERT');
    expect((await s.latestSnapshot())!.takenAt).toBe(at(90));
  });

  it("sees another writer's snapshot between two equal ones and stores the next whole", async () => {
    const a = await fresh();
    const b = await store();
    await a.saveSnapshot(snap(0));
    await b.saveSnapshot(snap(30, 'gpu')); // another replica: x busy
    expect(await writesOf(() => a.saveSnapshot(snap(60)))).toContain('node_activity UPDATE');
    expect(await b.latestSnapshot()).toStrictEqual(snap(60));
    expect((await b.nodeEmptiness!(['x'])).emptyAfterBusy.get('x')).toBe(at(60));
    // The other writer saving the same contents refreshes the row a wrote: nothing else written.
    expect(await writesOf(() => b.saveSnapshot(snap(90)))).toEqual(['snapshots UPDATE']);
    expect(await a.latestSnapshot()).toStrictEqual(snap(90));
  });

  it('stores whole after retention deleted the snapshot node activity last took', async () => {
    const a = await fresh(5);
    await a.saveSnapshot(snap(600));
    // A writer keeping one snapshot saves an older one (its clock behind): node activity takes
    // it (x busy), then its retention deletes it, the newer row of a staying.
    const behind = await store(1);
    await behind.saveSnapshot(snap(0, 'gpu'));
    expect((await a.nodeEmptiness!(['x'])).emptyAfterBusy.get('x')).toBeNull();
    // Equal to a's row, but node activity did not take that one last: stored whole.
    expect(await writesOf(() => a.saveSnapshot(snap(630)))).toContain('node_activity UPDATE');
    expect((await a.nodeEmptiness!(['x'])).emptyAfterBusy.get('x')).toBe(at(630));
    expect(await a.latestSnapshot()).toStrictEqual(snap(630));
  });

  it('a new process refreshes the snapshot the last one stored', async () => {
    const a = await fresh();
    await a.saveSnapshot(snap(0));
    await open.pop()!.close();
    const restarted = await store();
    expect(await restarted.latestSnapshot()).toStrictEqual(snap(0));
    expect(await writesOf(() => restarted.saveSnapshot(snap(30)))).toEqual(['snapshots UPDATE']);
    expect(await restarted.latestSnapshot()).toStrictEqual(snap(30));
  });

  it('stores the first snapshot after the migration whole, then refreshes it', async () => {
    url = await backend.url();
    await schemaAt(backend, url, 13);
    const old = await store();
    await old.saveSnapshot(snap(0)); // migrated at once: a snapshot stored before it is simulated below
    await backend.raw(url, 'DELETE FROM node_activity_snapshot');
    await backend.raw(url, triggersSql(backend.name));
    expect(await writesOf(() => old.saveSnapshot(snap(30)))).toContain('snapshots INSERT');
    expect(await writesOf(() => old.saveSnapshot(snap(60)))).toEqual(['snapshots UPDATE']);
    expect(await old.latestSnapshot()).toStrictEqual(snap(60));
  });
});
