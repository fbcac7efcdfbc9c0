/**
 * Store bench: saving and reading back a snapshot of 5,000 nodes and 50,000 pods in a SQLite
 * file (WAL, one transaction, prepared statements).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openStore } from '../src/store/open-store.js';
import { makeSnapshot } from '../test/store/snapshot-factory.js';
import type { Figure } from './run.js';
import { medianMs } from './measure.js';

export default async function bench(): Promise<Figure[]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'gpuops-bench-store-'));
  const store = await openStore(`sqlite:${path.join(dir, 'state.db')}`, { keepSnapshots: 3 });
  try {
    const snapshot = makeSnapshot(5_000, 50_000);
    const save = await medianMs(() => store.saveSnapshot(snapshot), 3);
    const read = await medianMs(() => store.latestSnapshot(), 3);
    return [
      { name: 'store sqlite saveSnapshot 5k nodes/50k pods', value: save, unit: 'ms', target: 2_000 },
      { name: 'store sqlite latestSnapshot 5k nodes/50k pods', value: read, unit: 'ms', target: 2_000 },
    ];
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
