/**
 * `node_activity` (migration 4) is written only for nodes whose busy/empty state changes, on
 * SQLite and a real PostgreSQL server: a pass where nothing moved updates no row, and what
 * `nodeEmptiness` answers is the same as when every pass rewrote every row (the emptiness rule of
 * pools/return-idle). Row updates are counted by an AFTER UPDATE trigger.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/types.js';
import { activityNode } from './snapshot-factory.js';
import { type StoreBackend, storeBackends } from '../support/store-backends.js';

const T0 = Date.UTC(2026, 11, 1, 10, 0, 0);
const at = (s: number) => new Date(T0 + s * 1000).toISOString();

const node = activityNode;

/** A trigger recording each updated node_activity row's name in activity_writes. */
function triggerSql(dialect: StoreBackend['name']): string {
  return dialect === 'sqlite'
    ? `CREATE TABLE activity_writes (name TEXT NOT NULL);
       CREATE TRIGGER activity_written AFTER UPDATE ON node_activity
         BEGIN INSERT INTO activity_writes (name) VALUES (new.name); END;`
    : `CREATE TABLE activity_writes (name TEXT NOT NULL);
       CREATE FUNCTION activity_written() RETURNS trigger LANGUAGE plpgsql AS
         $$ BEGIN INSERT INTO activity_writes (name) VALUES (NEW.name); RETURN NEW; END $$;
       CREATE TRIGGER activity_written AFTER UPDATE ON node_activity
         FOR EACH ROW EXECUTE FUNCTION activity_written();`;
}

const { backends, setup, teardown } = storeBackends('activity');
beforeAll(setup, 120_000);
afterAll(teardown);

describe.each(backends)('node_activity writes on $name', (backend) => {
  const open: Store[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });

  it('updates only the rows whose state changes; nodeEmptiness answers as before', async () => {
    const url = await backend.url();
    const store = await openStore(url, { keepSnapshots: 2 });
    open.push(store);
    await backend.raw(url, triggerSql(backend.name));
    // Per pass (30 s apart): a busy, busy, busy, empty, empty, busy (a gpuops pod), empty;
    // b never busy; c empty, then busy from the third pass on; d appears at the fourth, busy.
    const plan: Record<string, ('gpu' | 'pod' | 'none' | null)[]> = {
      a: ['gpu', 'gpu', 'gpu', 'none', 'none', 'pod', 'none'],
      b: ['none', 'none', 'none', 'none', 'none', 'none', 'none'],
      c: ['none', 'none', 'gpu', 'gpu', 'gpu', 'gpu', 'gpu'],
      d: [null, null, null, 'gpu', 'gpu', 'gpu', 'gpu'],
    };
    const written: string[][] = [];
    for (let pass = 0; pass < 7; pass++) {
      const nodes = Object.entries(plan)
        .filter(([, states]) => states[pass] !== null)
        .map(([name, states]) => node(name, states[pass]!));
      const before = Number((await backend.raw(url, 'SELECT COUNT(*) AS n FROM activity_writes'))[0]!.n);
      await store.saveSnapshot({ takenAt: at(pass * 30), pods: [], nodes });
      const rows = await backend.raw(url, 'SELECT name FROM activity_writes');
      written.push(
        rows
          .slice(before)
          .map((r) => String(r.name))
          .sort(),
      );
    }
    // Inserts are not updates: pass 0 (a, b, c new) and d's first pass write through INSERT.
    expect(written).toEqual([[], [], ['c'], ['a'], [], ['a'], ['a']]);
    const e = await store.nodeEmptiness!(['a', 'b', 'c', 'd']);
    expect(Object.fromEntries(e.emptyAfterBusy)).toEqual({ a: at(180), c: null, d: null });
    expect(Object.fromEntries(e.firstSeen!)).toEqual({ a: at(0), b: at(0), c: at(0), d: at(90) });
    expect(e.oldest).toBe(at(150));
  });

  it('empty-since is the first empty pass after the last busy one, however long it stays empty', async () => {
    const url = await backend.url();
    const store = await openStore(url, { keepSnapshots: 1 });
    open.push(store);
    await store.saveSnapshot({ takenAt: at(0), pods: [], nodes: [node('x', 'gpu')] });
    await store.saveSnapshot({ takenAt: at(30), pods: [], nodes: [node('x', 'gpu')] });
    for (let t = 60; t <= 300; t += 30)
      await store.saveSnapshot({ takenAt: at(t), pods: [], nodes: [node('x', 'none')] });
    expect((await store.nodeEmptiness!(['x'])).emptyAfterBusy.get('x')).toBe(at(60));
    await store.saveSnapshot({ takenAt: at(330), pods: [], nodes: [node('x', 'pod')] });
    expect((await store.nodeEmptiness!(['x'])).emptyAfterBusy.get('x')).toBeNull();
    await store.saveSnapshot({ takenAt: at(360), pods: [], nodes: [node('x', 'none')] });
    await store.saveSnapshot({ takenAt: at(390), pods: [], nodes: [node('x', 'none')] });
    expect((await store.nodeEmptiness!(['x'])).emptyAfterBusy.get('x')).toBe(at(360));
  });
});
