/**
 * The clone-cache lock against real processes: a holder killed with SIGKILL at any moment of its
 * take / hold / release cycle (24 times in a row, as the fault campaign did), a container restart
 * in which the new process is PID 1 again in a new PID namespace with the same hostname, a frozen
 * holder (SIGSTOP), an empty lock an older gpuops left, and a lock another host renews. Each wait
 * is bounded: a lock that is never judged stale fails the test by its timeout.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { withCloneLock } from '../../src/working-copy/clone-lock.js';
import { formatHolder } from '../../src/working-copy/lock-holder.js';

const CHILD = join(import.meta.dirname, '../support/lock-holder-child.ts');
const dirs: string[] = [];
const children: ChildProcess[] = [];
/** The holders' TMPDIR (tsx keeps its compile cache there), removed after the file. */
let childTmp = '';
beforeAll(() => {
  childTmp = mkdtempSync(join(tmpdir(), 'gpuops-lock-children-'));
});
afterAll(() => rmSync(childTmp, { recursive: true, force: true }));

afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function cacheDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'gpuops-lock-'));
  dirs.push(d);
  return join(d, 'clone');
}

/** Starts a holder (optionally wrapped, e.g. by `unshare`); resolves once it says it holds the lock. */
async function holder(dir: string, mode: 'hold' | 'churn', wrap: string[] = []): Promise<ChildProcess> {
  const argv = [...wrap, process.execPath, '--import', 'tsx', CHILD, dir, mode];
  const child = spawn(argv[0]!, argv.slice(1), {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, TMPDIR: childTmp },
  });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (b: Buffer) => {
      if (b.toString().includes('held')) resolve();
    });
    child.once('exit', (code, signal) => reject(new Error(`holder exited (${code ?? signal})`)));
  });
  return child;
}

async function kill(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  const gone = new Promise((r) => child.once('exit', r));
  child.kill(signal);
  await gone;
}

/** Takes the lock within `timeoutMs` and says so. */
const take = (dir: string, timeoutMs = 3000) => withCloneLock(dir, async () => 'taken', { timeoutMs });

const canUnshare =
  process.platform === 'linux' &&
  spawnSync('unshare', ['--pid', '--fork', '--mount-proc', 'true']).status === 0;

describe('clone-cache lock and killed, restarted or frozen holders', () => {
  it('a holder killed with SIGKILL at any moment never blocks the next taker (24 kills in a row)', async () => {
    const dir = cacheDir();
    for (let k = 0; k < 24; k++) {
      const child = await holder(dir, 'churn');
      await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 20)));
      await kill(child);
      expect(await take(dir), `after kill ${k + 1}`).toBe('taken');
      expect(existsSync(`${dir}.lock`)).toBe(false);
    }
  }, 120_000);

  it.skipIf(!canUnshare)(
    'a container restart (PID 1 again, same host and boot) takes over its predecessor’s lock at once',
    async () => {
      const dir = cacheDir();
      // `unshare --pid --fork --mount-proc`: the holder is PID 1 in its namespace, as `node` is in a container.
      const wrap = ['unshare', '--pid', '--fork', '--mount-proc', '--kill-child=SIGKILL'];
      const first = await holder(dir, 'hold', wrap);
      expect(JSON.parse(readFileSync(`${dir}.lock`, 'utf8'))).toMatchObject({ pid: 1, host: hostname() });
      await kill(first);
      expect(existsSync(`${dir}.lock`)).toBe(true); // what a kill -9 leaves
      // The restarted container: PID 1 again; it must take the lock, not wait for itself.
      const second = await holder(dir, 'hold', wrap);
      expect(JSON.parse(readFileSync(`${dir}.lock`, 'utf8'))).toMatchObject({ pid: 1 });
      await kill(second);
    },
    30_000,
  );

  it('waits for a live holder, and for a frozen one (SIGSTOP), naming it; takes over once it is killed', async () => {
    const dir = cacheDir();
    const child = await holder(dir, 'hold');
    await expect(take(dir, 300)).rejects.toThrow(
      new RegExp(`held by ${child.pid}@${hostname()} \\(process start \\d+\\)`),
    );
    child.kill('SIGSTOP');
    await expect(take(dir, 300)).rejects.toThrow(/held by/);
    child.kill('SIGCONT');
    await kill(child);
    expect(await take(dir)).toBe('taken');
  }, 30_000);

  it('an older gpuops’s record: its own PID is a predecessor’s; a dead PID is gone; an empty file goes once old', async () => {
    const dir = cacheDir();
    writeFileSync(`${dir}.lock`, `${process.pid}@${hostname()}`);
    expect(await take(dir)).toBe('taken');
    // A kill between an older gpuops's create and write left an empty file.
    writeFileSync(`${dir}.lock`, '');
    await expect(withCloneLock(dir, async () => 'taken', { timeoutMs: 200, staleMs: 5000 })).rejects.toThrow(
      /held by an unreadable lock record/,
    );
    const old = new Date(Date.now() - 6000);
    utimesSync(`${dir}.lock`, old, old);
    expect(await withCloneLock(dir, async () => 'taken', { timeoutMs: 200, staleMs: 5000 })).toBe('taken');
  });

  it('another host’s lock stays while it is renewed and goes once it is not', async () => {
    const dir = cacheDir();
    const other = { pid: process.pid, host: 'another-node', boot: 'b', start: '1', token: 't' };
    writeFileSync(`${dir}.lock`, formatHolder(other));
    await expect(withCloneLock(dir, async () => 'taken', { timeoutMs: 200, staleMs: 5000 })).rejects.toThrow(
      /held by \d+@another-node/,
    );
    const old = new Date(Date.now() - 6000);
    utimesSync(`${dir}.lock`, old, old);
    expect(await withCloneLock(dir, async () => 'taken', { timeoutMs: 200, staleMs: 5000 })).toBe('taken');
  });

  it('renews its own lock’s time while held', async () => {
    const dir = cacheDir();
    await withCloneLock(
      dir,
      async () => {
        const old = new Date(Date.now() - 60_000);
        utimesSync(`${dir}.lock`, old, old);
        await new Promise((r) => setTimeout(r, 150));
        expect(Date.now() - statSync(`${dir}.lock`).mtimeMs).toBeLessThan(5000);
      },
      { staleMs: 400 },
    );
  });
});
