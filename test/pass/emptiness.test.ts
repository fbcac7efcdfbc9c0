/**
 * Node emptiness without waiting for the snapshot write (issue 27 item 1): `emptinessWith(stored,
 * snapshot)` must equal what the real store says once that snapshot is saved, through every
 * transition of `node_activity` (new node busy or empty, busy → empty, empty → busy, staying).
 */
import { describe, expect, it } from 'vitest';
import type { NodeInfo, Snapshot } from '../../src/cluster/types.js';
import { emptinessWith, emptySinceNow } from '../../src/pass/emptiness.js';
import { openStore } from '../../src/store/index.js';
import { nodeInfo } from '../support/node-info.js';

const T0 = Date.parse('2026-12-01T10:00:00Z');
const at = (s: number) => new Date(T0 + s * 1000).toISOString();

/** A 1-GPU T4 node in short-task holding its one GPU (busy) or none. */
const node = (name: string, busy: boolean): NodeInfo =>
  nodeInfo(name, {
    labels: { 'gpuops.dev/pool': 'short-task' },
    pool: 'short-task',
    gpuProduct: 'Tesla-T4',
    gpuCapacity: 1,
    gpuAllocatable: 1,
    allocatable: { cpuMillis: 96_000, memoryBytes: 2 ** 36, pods: 110 },
    gpuRequested: busy ? 1 : 0,
  });

const snapshot = (s: number, nodes: NodeInfo[]): Snapshot => ({ takenAt: at(s), nodes, pods: [] });

/** Busy (true) or empty (false) per node, snapshot after snapshot, 60 s apart. */
const HISTORY: Record<string, boolean>[] = [
  { a: true, b: false },
  { a: false, b: false, c: true },
  { a: false, b: true, c: true, d: false },
  { a: true, b: false, c: false, d: false },
  { a: false, b: false, c: false, d: true, e: false },
];
const NAMES = ['a', 'b', 'c', 'd', 'e'];

describe('emptinessWith: the stored node activity plus this snapshot', () => {
  it('equals what the store reads back after saving it, at every step', async () => {
    const store = await openStore('sqlite::memory:');
    try {
      for (const [i, states] of HISTORY.entries()) {
        const snap = snapshot(
          i * 60,
          Object.entries(states).map(([n, busy]) => node(n, busy)),
        );
        const before = await store.nodeEmptiness!(NAMES);
        const predicted = emptinessWith(before, snap.nodes, snap.takenAt);
        await store.saveSnapshot(snap);
        const after = await store.nodeEmptiness!(NAMES);
        expect({ step: i, ...predicted }).toEqual({ step: i, ...after });
        expect(emptySinceNow(before, snap.nodes, snap.takenAt)).toEqual(
          emptySinceNow(after, snap.nodes, snap.takenAt),
        );
      }
    } finally {
      await store.close();
    }
  });

  it('judges each node as the method says after five snapshots', async () => {
    const store = await openStore('sqlite::memory:');
    try {
      for (const [i, states] of HISTORY.slice(0, 4).entries())
        await store.saveSnapshot(
          snapshot(
            i * 60,
            Object.entries(states).map(([n, b]) => node(n, b)),
          ),
        );
      const last = HISTORY[4]!;
      const nodes = Object.entries(last).map(([n, b]) => node(n, b));
      const since = emptySinceNow(await store.nodeEmptiness!(NAMES), nodes, at(240));
      expect(Object.fromEntries(since)).toEqual({
        a: at(240), // busy at 180 s, empty now: empty since this snapshot
        b: at(180), // busy at 120 s, empty since the snapshot after
        c: at(180), // busy until 120 s
        // d is busy now: no entry
        e: at(240), // first seen now, never busy
      });
    } finally {
      await store.close();
    }
  });
});
