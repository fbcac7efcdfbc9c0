/**
 * `Store.nodeEmptiness` (issue 11 item 6): since when a node has held no GPU pod, from the stored
 * snapshots, on both databases (SQLite file, real PostgreSQL).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Snapshot } from '../../src/cluster/types.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/types.js';
import { activityNode } from '../store/snapshot-factory.js';
import { storeBackends } from '../support/store-backends.js';

const T0 = Date.UTC(2026, 11, 1, 10, 0, 0);
const at = (s: number) => new Date(T0 + s * 1000).toISOString();

const node = activityNode;

/** a: busy at 0 and 60, empty from 120; b: never busy; c: busy only in the newest (180); d: a gpuops pod at 60. */
function history(): Snapshot[] {
  const busy: Record<string, number[]> = { a: [0, 60], b: [], c: [180], d: [60] };
  return [0, 60, 120, 180].map((t) => ({
    takenAt: at(t),
    pods: [],
    nodes: Object.entries(busy).map(([name, times]) =>
      node(name, times.includes(t) ? (name === 'd' ? 'pod' : 'gpu') : 'none'),
    ),
  }));
}

const { backends, setup, teardown } = storeBackends('emptiness');
beforeAll(setup, 120_000);
afterAll(teardown);

describe.each(backends)('Store.nodeEmptiness on $name', (backend) => {
  async function withStore(keepSnapshots: number, fn: (s: Store) => Promise<void>): Promise<void> {
    const store = await openStore(await backend.url(), { keepSnapshots });
    try {
      for (const s of history()) await store.saveSnapshot(s);
      await fn(store);
    } finally {
      await store.close();
    }
  }

  it('first snapshot after the last busy one; busy in the newest → null; never busy → absent', async () => {
    await withStore(50, async (store) => {
      const e = await store.nodeEmptiness!(['a', 'b', 'c', 'd']);
      expect(e.oldest).toBe(at(0));
      expect(Object.fromEntries(e.emptyAfterBusy)).toEqual({ a: at(120), c: null, d: at(120) });
      expect(Object.fromEntries(e.firstSeen!)).toEqual({ a: at(0), b: at(0), c: at(0), d: at(0) });
    });
  });

  it('reaches back past snapshot retention (node_activity is kept per node)', async () => {
    await withStore(2, async (store) => {
      const e = await store.nodeEmptiness!(['a', 'b', 'c', 'd']);
      expect(e.oldest).toBe(at(120));
      expect(Object.fromEntries(e.emptyAfterBusy)).toEqual({ a: at(120), c: null, d: at(120) });
      expect(e.firstSeen!.get('b')).toBe(at(0));
    });
  });

  it('passes 30 s apart, 50 snapshots kept: empty for pools.returnAfterSeconds (1800 s) is seen', async () => {
    const store = await openStore(await backend.url(), { keepSnapshots: 50 });
    try {
      // x busy until 30 s, then empty; y busy again at 1830 s; z comes at 600 s, never busy.
      for (let t = 0; t <= 2100; t += 30) {
        const nodes = [
          node('x', t <= 30 ? 'gpu' : 'none'),
          node('y', t <= 30 || t === 1830 ? 'pod' : 'none'),
        ];
        if (t >= 600) nodes.push(node('z', 'none'));
        await store.saveSnapshot({ takenAt: at(t), pods: [], nodes });
      }
      const e = await store.nodeEmptiness!(['x', 'y', 'z']);
      // Equal passes refresh one row (store/snapshot-refresh.ts): the kept rows are the cluster's
      // last 50 states, so the oldest reaches back to the first state's last pass (30 s).
      expect(e.oldest).toBe(at(30));
      expect(Object.fromEntries(e.emptyAfterBusy)).toEqual({ x: at(60), y: at(1860) });
      expect(e.firstSeen!.get('z')).toBe(at(600));
      // x: empty 2040 s ≥ 1800 s; one pass earlier than 1860 s it would have been 1770 s.
      expect((Date.parse(at(2100)) - Date.parse(e.emptyAfterBusy.get('x')!)) / 1000).toBe(2040);
    } finally {
      await store.close();
    }
  });

  it('busy again after being empty clears empty-since; empty again starts it anew', async () => {
    const store = await openStore(await backend.url(), { keepSnapshots: 1 });
    try {
      const seq: ['gpu' | 'none', number][] = [
        ['gpu', 0],
        ['none', 30],
        ['gpu', 60],
      ];
      for (const [b, t] of seq) await store.saveSnapshot({ takenAt: at(t), pods: [], nodes: [node('x', b)] });
      expect((await store.nodeEmptiness!(['x'])).emptyAfterBusy.get('x')).toBeNull();
      await store.saveSnapshot({ takenAt: at(90), pods: [], nodes: [node('x', 'none')] });
      await store.saveSnapshot({ takenAt: at(120), pods: [], nodes: [node('x', 'none')] });
      expect((await store.nodeEmptiness!(['x'])).emptyAfterBusy.get('x')).toBe(at(90));
    } finally {
      await store.close();
    }
  });

  it('only the nodes asked for', async () => {
    await withStore(50, async (store) => {
      const e = await store.nodeEmptiness!(['a', 'zz']);
      expect(Object.fromEntries(e.emptyAfterBusy)).toEqual({ a: at(120) });
      expect((await store.nodeEmptiness!([])).emptyAfterBusy.size).toBe(0);
    });
  });

  it('an empty database knows nothing', async () => {
    const store = await openStore(await backend.url());
    try {
      expect(await store.nodeEmptiness!(['a', 'b', 'c', 'd'])).toEqual({
        oldest: null,
        emptyAfterBusy: new Map(),
        firstSeen: new Map(),
      });
    } finally {
      await store.close();
    }
  });
});
