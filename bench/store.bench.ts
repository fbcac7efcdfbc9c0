/**
 * Store bench: saving and reading back a snapshot of 5,000 nodes and 50,000 pods, on SQLite (a
 * file: WAL, one transaction, prepared statements) and PostgreSQL (a throw-away server, as the
 * reconcile bench starts it). Two saves: new contents (one pod differs from every stored
 * snapshot: all rows written) and contents equal to a stored snapshot (the usual pass: only the
 * snapshots row, migration 5).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Snapshot } from '../src/cluster/types.js';
import { openDatabase } from '../src/compose/store.js';
import { makeSnapshot } from '../test/store/snapshot-factory.js';
import { startPostgres } from './reconcile.bench.js';
import type { Figure } from './run.js';
import { medianMs } from './measure.js';

const NODES = 5_000;
const PODS = 50_000;
/** Snapshots the store keeps. */
const KEEP = 3;

/** The three figures of one store at `url`. */
async function measureStore(name: string, url: string): Promise<Figure[]> {
  const store = await openDatabase(url, { keepSnapshots: KEEP });
  try {
    const base = makeSnapshot(NODES, PODS);
    let n = 0;
    // A snapshot no stored one equals: one pod's creation time moves each time.
    const changed = (): Snapshot => {
      n++;
      const pods = base.pods.slice();
      pods[n % PODS] = { ...pods[n % PODS]!, createdAt: new Date(Date.UTC(2026, 0, 1) + n).toISOString() };
      return { ...base, takenAt: new Date(Date.UTC(2026, 0, 1) + n * 30_000).toISOString(), pods };
    };
    const save = await medianMs(() => store.saveSnapshot(changed()), 3);
    const same = () => {
      n++;
      return store.saveSnapshot({
        ...base,
        takenAt: new Date(Date.UTC(2026, 0, 1) + n * 30_000).toISOString(),
      });
    };
    // Steady state: as many equal saves as snapshots kept, so that retention has already deleted
    // the contents of the changed ones (a cascade of 55,000 rows each) before the timed saves.
    for (let i = 0; i < KEEP; i++) await same();
    const equal = await medianMs(same, 3);
    const read = await medianMs(() => store.latestSnapshot(), 3);
    const size = `${NODES / 1000}k nodes/${PODS / 1000}k pods`;
    return [
      { name: `store ${name} saveSnapshot ${size}, new contents`, value: save, unit: 'ms', target: 2_000 },
      { name: `store ${name} saveSnapshot ${size}, equal to a stored one`, value: equal, unit: 'ms' },
      { name: `store ${name} latestSnapshot ${size}`, value: read, unit: 'ms', target: 2_000 },
    ];
  } finally {
    await store.close();
  }
}

export default async function bench(): Promise<Figure[]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'gpuops-bench-store-'));
  const figures: Figure[] = [];
  try {
    figures.push(...(await measureStore('sqlite', `sqlite:${path.join(dir, 'state.db')}`)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const postgres = await startPostgres();
  try {
    figures.push(...(await measureStore('postgres', postgres.url)));
  } finally {
    await postgres.stop();
  }
  return figures;
}
