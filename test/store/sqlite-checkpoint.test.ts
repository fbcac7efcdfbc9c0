/**
 * SQLite's write-ahead log and its checkpoint (issue 42): a pass's commits never copy the log into
 * the file (the 2,000-node fleet status is ~100 pages a save; SQLite's default checkpoint at
 * 1,000 pages made every ~11th save pay two fsyncs), the loop's checkpoint between passes keeps
 * the log to one pass's pages, and a log nobody checkpoints stays bounded
 * (`WAL_AUTOCHECKPOINT_PAGES`, `WAL_SIZE_LIMIT_BYTES`). On a real file; PostgreSQL has no
 * `checkpoint` (its server checkpoints).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'libsql';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openStore, statusStoreOf } from '../../src/store/index.js';
import {
  SqliteSession,
  WAL_AUTOCHECKPOINT_PAGES,
  WAL_SIZE_LIMIT_BYTES,
} from '../../src/store/sqlite-session.js';
import type { FleetStatusRecord, StatusPoolEntry, StatusStore, Store } from '../../src/store/types.js';

const PAGE = 4096;
const T0 = Date.UTC(2026, 11, 7, 12, 0, 0);

function pools(n: number, pass: number): StatusPoolEntry[] {
  return Array.from({ length: n }, (_, i) => ({
    node: `gpu-node-${String(i).padStart(5, '0')}`,
    from: 'general',
    to: `pool-${(i + pass) % 8}`,
    reason: 'Kept',
    message: `node gpu-node-${i} stays in pool-${(i + pass) % 8}: its GPU model and memory match`,
  }));
}

/** A steady pass's record at 2,000 nodes / 1,000 algorithms: every utilisation moved. */
function status(pass: number, entries: StatusPoolEntry[]): FleetStatusRecord {
  return {
    cluster: 'prod',
    at: new Date(T0 + pass * 30_000).toISOString(),
    longTaskThresholdSeconds: 600,
    podStartupSeconds: 120,
    pools: entries,
    algorithms: Array.from({ length: 1000 }, (_, a) => ({
      name: `algorithm-${String(a).padStart(4, '0')}`,
      pool: `pool-${a % 8}`,
      runTimeSeconds: 12.5 + (a % 7),
      placementReason: 'FastestPool',
      placementMessage: `pool-${a % 8} ran its benchmark fastest (median 12.5 s over 5 runs)`,
      replicas: 2 + (a % 3),
      minReplicas: 1,
      maxReplicas: 8,
      utilizationMin: 40,
      utilizationMax: 80,
      utilization: 55 + ((a * 7 + pass * 0.3) % 20),
      scalingReason: 'WithinBand',
      scalingMessage: `utilisation ${(55 + ((a * 7 + pass * 0.3) % 20)).toFixed(1)} % is within 40–80 %`,
    })),
  };
}

describe('the SQLite write-ahead log', () => {
  const dirs: string[] = [];
  const open: Store[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  async function fileStore(): Promise<{ store: Store & StatusStore; wal: () => number }> {
    const dir = mkdtempSync(path.join(tmpdir(), 'gpuops-wal-'));
    dirs.push(dir);
    const file = path.join(dir, 'state.db');
    const s = await openStore(`sqlite:${file}`);
    open.push(s);
    return {
      store: statusStoreOf(s)!,
      wal: () => (existsSync(`${file}-wal`) ? statSync(`${file}-wal`).size : 0),
    };
  }

  it('is not copied into the file by a save: after 15 saves of 2,000 nodes the log holds them all', async () => {
    const { store } = await fileStore();
    const entries = pools(2000, 0);
    for (let pass = 0; pass < 15; pass++) await store.saveFleetStatus(status(pass, entries));
    const ck = await store.checkpoint!();
    // ~100 pages a save: SQLite's default (1,000 pages) would have copied and restarted it in a save.
    expect(ck!.logPages).toBeGreaterThan(1000);
    expect(ck).toEqual({ busy: false, logPages: ck!.logPages, copiedPages: ck!.logPages });
  });

  it("stays one pass's pages long with the loop's checkpoint after each save", async () => {
    const { store, wal } = await fileStore();
    const entries = pools(2000, 0);
    const found: number[] = [];
    let largest = 0;
    for (let pass = 0; pass < 30; pass++) {
      await store.saveFleetStatus(status(pass, entries));
      largest = Math.max(largest, wal());
      const ck = (await store.checkpoint!())!;
      expect(ck.copiedPages).toBe(ck.logPages);
      found.push(ck.logPages);
    }
    // Each checkpoint finds the one save's pages (the first wrote the pool entries too): the log
    // started over after the last one.
    expect(Math.max(...found.slice(1))).toBeLessThan(200);
    expect(Math.min(...found.slice(1))).toBeGreaterThan(50);
    expect(largest).toBeLessThan(2 * found[0]! * PAGE + 32 * PAGE);
  });

  it('is bounded without a checkpoint call, and its file is cut back when the log starts over', async () => {
    const { store, wal } = await fileStore();
    let largest = 0;
    // Every save moves each of 10,000 pool entries: ~1.8 MB of entries and body a save.
    let pass = 0;
    for (; pass < 28; pass++) {
      await store.saveFleetStatus(status(pass, pools(10_000, pass)));
      largest = Math.max(largest, wal());
    }
    const oneSave = 1000 * PAGE;
    // Past WAL_AUTOCHECKPOINT_PAGES SQLite checkpoints at the commit that passed it; the log grew
    // beyond WAL_SIZE_LIMIT_BYTES first (the limit cuts the file back, it does not stop a log).
    expect(largest).toBeGreaterThan(WAL_SIZE_LIMIT_BYTES);
    expect(largest).toBeLessThan(WAL_AUTOCHECKPOINT_PAGES * PAGE + oneSave);
    await store.checkpoint!();
    await store.saveFleetStatus(status(pass, pools(10_000, pass)));
    expect(wal()).toBeLessThanOrEqual(WAL_SIZE_LIMIT_BYTES + oneSave);
  });

  /**
   * The log's checkpoint sequence (bytes 12–15 of its header, big-endian; sqlite.org/fileformat.html
   * §4.1): it moves each time the log starts over.
   */
  function logSequence(file: string): number {
    return readFileSync(`${file}-wal`).readUInt32BE(12);
  }

  it("starts the log over in the checkpoint, not in the next pass's first commit (its fsync)", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gpuops-wal-'));
    dirs.push(dir);
    const file = path.join(dir, 'state.db');
    const raw = new Database(file);
    raw.pragma('journal_mode = WAL');
    raw.pragma('user_version = 42');
    raw.close();
    const store = statusStoreOf(await openStore(`sqlite:${file}`))!;
    open.push(store);
    const entries = pools(50, 0);
    await store.saveFleetStatus(status(0, entries));
    const before = logSequence(file);
    const ck = (await store.checkpoint!())!;
    expect(ck.copiedPages).toBe(ck.logPages);
    // The checkpoint's own commit started the log: the pass's first commit appends to it.
    const started = logSequence(file);
    expect(started).toBe(before + 1);
    await store.saveFleetStatus(status(1, entries));
    expect(logSequence(file)).toBe(started);
    // Nothing stored moved: the header's user_version as it was, the record as saved.
    const reader = new Database(file);
    expect((reader.prepare('PRAGMA user_version').get() as { user_version: number }).user_version).toBe(42);
    reader.close();
    expect(await store.fleetStatus('prod')).toEqual(status(1, entries));
  });

  it('leaves the start to the next commit while another connection writes: it does not wait', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gpuops-wal-'));
    dirs.push(dir);
    const file = path.join(dir, 'state.db');
    const store = statusStoreOf(await openStore(`sqlite:${file}`))!;
    open.push(store);
    await store.saveFleetStatus(status(0, pools(50, 0)));
    const other = new Database(file);
    other.exec('BEGIN IMMEDIATE');
    const before = logSequence(file);
    try {
      // Waiting for the lock (busy_timeout, 10 s) would outlast the test's own timeout (5 s).
      const ck = (await store.checkpoint!())!;
      expect(ck.copiedPages).toBe(ck.logPages);
      expect(logSequence(file)).toBe(before);
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    await store.saveFleetStatus(status(1, pools(50, 0)));
    expect((await store.fleetStatus('prod'))!.at).toBe(status(1, pools(50, 0)).at);
  });

  it('has no log to copy read-only (the status page, `gpuops status`): it writes nothing', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gpuops-wal-'));
    dirs.push(dir);
    const file = path.join(dir, 'state.db');
    const writer = await openStore(`sqlite:${file}`);
    await statusStoreOf(writer)!.saveFleetStatus(status(0, pools(10, 0)));
    await writer.close();
    const reader = await openStore(`sqlite:${file}`, { readOnly: true });
    open.push(reader);
    expect(await reader.checkpoint!()).toBeNull();
  });

  /** A session on a fresh file with one table written: its log holds a few pages. */
  function session(): { s: SqliteSession; file: string } {
    const dir = mkdtempSync(path.join(tmpdir(), 'gpuops-wal-'));
    dirs.push(dir);
    const file = path.join(dir, 'state.db');
    const s = new SqliteSession(file, { keepSnapshots: 1 });
    open.push({ close: () => Promise.resolve(s.db.close()) } as unknown as Store);
    s.db.exec('CREATE TABLE t (x TEXT)');
    s.db.prepare('INSERT INTO t VALUES (?)').run('x'.repeat(3 * PAGE));
    return { s, file };
  }
  const busyTimeout = (s: SqliteSession) =>
    (s.db.pragma('busy_timeout') as { timeout: number }[])[0]!.timeout;

  it('waits for locks again (busy_timeout 10 s) after its start, started or left to the next commit', async () => {
    const { s, file } = session();
    await s.checkpoint();
    expect(busyTimeout(s)).toBe(10_000);
    s.db.prepare('INSERT INTO t VALUES (?)').run('y'.repeat(3 * PAGE));
    const other = new Database(file);
    other.exec('BEGIN IMMEDIATE');
    try {
      const before = logSequence(file);
      await s.checkpoint();
      expect(logSequence(file)).toBe(before);
      expect(busyTimeout(s)).toBe(10_000);
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
  });

  it.each([
    ['SQLITE_BUSY', true],
    ['SQLITE_BUSY_RECOVERY', true],
    ['SQLITE_BUSY_SNAPSHOT', true],
    ['SQLITE_IOERR', false],
    ['SQLITE_FULL', false],
  ])('a start that fails with %s: left to the next commit (%s), else thrown', async (code, left) => {
    const { s, file } = session();
    const exec = s.db.exec.bind(s.db);
    vi.spyOn(s.db, 'exec').mockImplementation((sql: string) => {
      if (sql.startsWith('PRAGMA user_version =')) throw Object.assign(new Error(code), { code });
      return exec(sql);
    });
    const before = logSequence(file);
    if (left) {
      expect((await s.checkpoint())!.busy).toBe(false);
    } else {
      await expect(s.checkpoint()).rejects.toThrow(code);
    }
    expect(logSequence(file)).toBe(before);
    expect(s.db.inTransaction).toBe(false);
    expect(busyTimeout(s)).toBe(10_000);
  });

  it('does not start again a log that holds only the last start (a pass that wrote nothing)', async () => {
    const { s, file } = session();
    const first = (await s.checkpoint())!;
    expect(first.logPages).toBeGreaterThan(1);
    const started = logSequence(file);
    // The start's own commit: one page, copied; no commit and fsync for it.
    expect(await s.checkpoint()).toEqual({ busy: false, logPages: 1, copiedPages: 1 });
    expect(logSequence(file)).toBe(started);
    // The next pass's first commit starts it (as before the checkpoint started logs), and the
    // checkpoint after a pass that wrote starts it again.
    s.db.prepare('INSERT INTO t VALUES (?)').run('z'.repeat(3 * PAGE));
    expect(logSequence(file)).toBe(started + 1);
    await s.checkpoint();
    expect(logSequence(file)).toBe(started + 2);
  });

  it('has no log to copy in memory', async () => {
    const s = await openStore('sqlite::memory:');
    open.push(s);
    await statusStoreOf(s)!.saveFleetStatus(status(0, pools(10, 0)));
    expect(await s.checkpoint!()).toBeNull();
  });
});
