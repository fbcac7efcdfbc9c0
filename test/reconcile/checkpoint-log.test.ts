/**
 * The checkpoint `gpuops run`'s loop runs after each pass (`Reconciler.afterPass`, compose.ts):
 * SQLite's PASSIVE checkpoint waits for no reader, so a reader whose snapshot began before the
 * pass's commits (a long `gpuops status`) keeps those pages in the log. That is logged at debug
 * level; a checkpoint that copied every page logs nothing. Against the simulated cluster, a bare
 * repo and a real SQLite file, with a second connection as the reader.
 */
import { join } from 'node:path';
import Database from 'libsql';
import { pino, type Logger } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { createReconciler } from '../../src/compose/compose.js';
import { algorithmFile, gpuNode, startHarness, type Harness } from '../support/reconcile-harness.js';
import { settingsFor } from '../support/reconcile-settings.js';

const harnesses: Harness[] = [];
afterAll(async () => {
  await Promise.all(harnesses.map((h) => h.close()));
});

/** A pino logger at debug level whose lines are kept, parsed. */
function kept(): { log: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const log = pino({ level: 'debug' }, { write: (s: string) => void lines.push(JSON.parse(s)) });
  return { log, lines };
}

describe('createReconciler: the checkpoint after a pass', () => {
  it('logs at debug when a reader kept pages in the log, and nothing when every page was copied', async () => {
    const h = await startHarness({
      files: {
        'README.md': '# gitops\n',
        'algorithms/yolo.yaml': algorithmFile('yolo', { pool: 'short-task' }),
      },
      nodes: [gpuNode('gpu-a', 2), gpuNode('gpu-b', 4, 'short-task')],
    });
    harnesses.push(h);
    const dbFile = join(h.repo.root, 'state.db');
    const settings = settingsFor(h, dbFile);
    const { log, lines } = kept();
    const reconciler = await createReconciler(settings, log, { cacheDir: join(h.repo.root, 'cache-cli') });
    const reader = new Database(dbFile);
    const left = () => lines.filter((l) => String(l.msg).startsWith('database checkpoint left pages'));
    try {
      await reconciler.pass();
      await reconciler.afterPass!();
      expect(left()).toEqual([]);
      // The reader's snapshot begins now, before the second pass's commits.
      reader.exec('BEGIN');
      reader.prepare('SELECT count(*) FROM sqlite_master').get();
      await reconciler.pass();
      await reconciler.afterPass!();
      expect(left()).toHaveLength(1);
      const [line] = left();
      expect(line!.level).toBe(20);
      expect(line!.copiedPages as number).toBeLessThan(line!.logPages as number);
      // The reader done, the next checkpoint copies the rest and logs nothing more.
      reader.exec('COMMIT');
      await reconciler.afterPass!();
      expect(left()).toHaveLength(1);
    } finally {
      reader.close();
      await reconciler.close();
    }
  });
});
