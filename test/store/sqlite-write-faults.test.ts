/**
 * A SQLite write that fails because the disk is full or the file is read-only reports that error,
 * not "cannot rollback - no transaction is active" (SQLite rolls back by itself on SQLITE_FULL, and
 * the driver's ROLLBACK then failed over it). On a real full file system (a 2 MiB tmpfs, mounted
 * when the tests run as root), on a real read-only mount, and with SQLite's own page limit
 * (`max_page_count`) where nothing can be mounted. After the fault, with room again, the store
 * writes as before: no transaction was left open.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'libsql';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.js';
import { transaction } from '../../src/store/sqlite-transaction.js';
import type { Store } from '../../src/store/types.js';
import { makeSnapshot } from './snapshot-factory.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'gpuops-sqlite-faults-'));
  cleanups.push(() => rmSync(d, { recursive: true, force: true }));
  return d;
}

const isRoot = process.getuid?.() === 0;
const canMount =
  isRoot &&
  process.platform === 'linux' &&
  (() => {
    const d = mkdtempSync(join(tmpdir(), 'gpuops-mount-probe-'));
    const ok = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', d]).status === 0;
    if (ok) spawnSync('umount', [d]);
    rmSync(d, { recursive: true, force: true });
    return ok;
  })();

/** A folder on a tmpfs of `size`, unmounted after the test. */
function tmpfs(size: string): string {
  const d = join(tempDir(), 'mnt');
  mkdirSync(d);
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', d]);
  cleanups.push(() => execFileSync('umount', ['-l', d]));
  return d;
}

const at = (minute: number) => new Date(Date.UTC(2026, 11, 1, 10, minute)).toISOString();

describe('a SQLite write that fails reports its own error', () => {
  it.skipIf(!canMount)(
    'disk full (a real 2 MiB tmpfs): "database or disk is full", then writes again once there is room',
    async () => {
      const dir = tmpfs('2m');
      const store: Store = await openStore(`sqlite:${join(dir, 'state.db')}`);
      cleanups.push(() => void store.close());
      await store.saveSnapshot(makeSnapshot(5, 10, at(0)));
      // Fill what is left, but for a few kB.
      const filler = join(dir, 'filler');
      for (let size = 4 << 20; size >= 4096; size >>= 1) {
        try {
          writeFileSync(filler, Buffer.alloc(size), { flag: 'a' });
        } catch {
          // ENOSPC: try a smaller piece
        }
      }
      const err = await store.saveSnapshot(makeSnapshot(400, 4000, at(1))).catch((e: unknown) => e as Error);
      expect(err).toBeInstanceOf(Error);
      expect((err as Error).message).toMatch(/^store saveSnapshot: database or disk is full/);
      expect((err as Error).message).not.toMatch(/cannot rollback/);
      rmSync(filler);
      await store.saveSnapshot(makeSnapshot(400, 4000, at(2)));
      expect((await store.latestSnapshot())!.takenAt).toBe(at(2));
    },
  );

  it.skipIf(!canMount)('a read-only file system: "attempt to write a readonly database"', async () => {
    const dir = tmpfs('4m');
    const writer = await openStore(`sqlite:${join(dir, 'state.db')}`);
    await writer.saveSnapshot(makeSnapshot(5, 10, at(0)));
    await writer.close();
    // The same folder through a read-only bind mount: a real EROFS for every write.
    const ro = join(tempDir(), 'ro');
    mkdirSync(ro);
    execFileSync('mount', ['--bind', dir, ro]);
    cleanups.push(() => execFileSync('umount', ['-l', ro]));
    execFileSync('mount', ['-o', 'remount,bind,ro', ro]);
    const store = await openStore(`sqlite:${join(ro, 'state.db')}`);
    cleanups.push(() => void store.close());
    await expect(store.saveSnapshot(makeSnapshot(5, 11, at(1)))).rejects.toThrow(
      /^store saveSnapshot: attempt to write a readonly database/,
    );
    expect((await store.latestSnapshot())!.takenAt).toBe(at(0));
  });

  it.skipIf(isRoot)('a read-only file (chmod 0444): "attempt to write a readonly database"', async () => {
    const file = join(tempDir(), 'state.db');
    const writer = await openStore(`sqlite:${file}`);
    await writer.saveSnapshot(makeSnapshot(5, 10, at(0)));
    await writer.close();
    chmodSync(file, 0o444);
    const store = await openStore(`sqlite:${file}`);
    cleanups.push(() => void store.close());
    await expect(store.saveSnapshot(makeSnapshot(5, 11, at(1)))).rejects.toThrow(/readonly database/);
  });

  it('SQLite’s own page limit (max_page_count): SQLITE_FULL in a transaction, reported as such; the next one works', () => {
    const db = new Database(join(tempDir(), 'limit.db'));
    cleanups.push(() => db.close());
    db.exec('CREATE TABLE t (v TEXT)');
    const { page_count: pages } = db.prepare('PRAGMA page_count').get() as { page_count: number };
    db.exec(`PRAGMA max_page_count = ${pages + 4}`);
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    const big = 'x'.repeat(100_000);
    expect(() => transaction(db, () => insert.run(big), 'IMMEDIATE')).toThrow(/database or disk is full/);
    expect(db.inTransaction).toBe(false);
    // The driver's own wrapper, for comparison: the real error is lost.
    expect(() => db.transaction(() => insert.run(big)).immediate()).toThrow(/cannot rollback/);
    expect(transaction(db, () => insert.run('small').changes)).toBe(1);
    expect(transaction(db, () => db.prepare('SELECT count(*) AS n FROM t').get())).toMatchObject({ n: 1 });
  });
});
