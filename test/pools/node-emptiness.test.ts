/**
 * `Store.nodeEmptiness` (issue 11 item 6): since when a node has held no GPU pod, from the stored
 * snapshots, on both databases (SQLite file, real PostgreSQL).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeInfo, Snapshot } from '../../src/cluster/types.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/types.js';
import { makeNode } from '../store/snapshot-factory.js';
import { startTestPostgres, type TestPostgres } from '../store/postgres-server.js';

const T0 = Date.UTC(2026, 11, 1, 10, 0, 0);
const at = (s: number) => new Date(T0 + s * 1000).toISOString();

function node(name: string, busy: 'gpu' | 'pod' | 'none'): NodeInfo {
  return {
    ...makeNode(1),
    name,
    gpuRequested: busy === 'gpu' ? 1 : 0,
    foreignGpuRequested: 0,
    managedPods: busy === 'pod' ? 1 : 0,
  };
}

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

const backends: { name: string; url: () => Promise<string>; done: () => Promise<void> }[] = [];
let dir = '';
let server: TestPostgres | undefined;
backends.push({
  name: 'sqlite',
  url: async () => `sqlite:${path.join(dir, `${Math.random().toString(36).slice(2)}.db`)}`,
  done: async () => undefined,
});
backends.push({
  name: 'postgres',
  url: async () => {
    if (!server) throw new Error('PostgreSQL did not start');
    const schema = `emptiness_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
    const c = new pg.Client({ connectionString: server.url });
    await c.connect();
    await c.query(`CREATE SCHEMA ${schema}`);
    await c.end();
    const sep = server.url.includes('?') ? '&' : '?';
    return `${server.url}${sep}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  },
  done: async () => {
    await server?.stop();
  },
});

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'gpuops-emptiness-'));
  server = await startTestPostgres();
}, 120_000);
afterAll(async () => {
  for (const b of backends) await b.done();
  rmSync(dir, { recursive: true, force: true });
});

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
    });
  });

  it('reaches back only as far as the stored snapshots', async () => {
    await withStore(2, async (store) => {
      const e = await store.nodeEmptiness!(['a', 'b', 'c', 'd']);
      expect(e.oldest).toBe(at(120));
      expect(Object.fromEntries(e.emptyAfterBusy)).toEqual({ c: null });
    });
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
      });
    } finally {
      await store.close();
    }
  });
});
