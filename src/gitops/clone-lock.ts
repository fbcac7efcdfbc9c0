/**
 * A file lock on a clone cache folder, so that two gpuops processes on one machine (a
 * `reconcile --once` by hand next to `run`) never run git in the same clone at once. The lock is
 * `<dir>.lock`, created with `O_EXCL` and holding `pid@host`; a lock whose process is gone (same
 * host, `kill(pid, 0)` fails with ESRCH) is stale and taken over.
 */
import { hostname } from 'node:os';
import { open, readFile, rm } from 'node:fs/promises';
import { sleep as defaultSleep } from '../util/retry.js';
import { GitOpsError } from './git-errors.js';

/** Options of {@link withCloneLock}. */
export interface CloneLockOptions {
  /** How long to wait for another holder, milliseconds; default 120,000. */
  timeoutMs?: number;
  /** Poll interval while waiting, milliseconds; default 50. */
  pollMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function acquire(path: string, o: CloneLockOptions): Promise<void> {
  const me = `${process.pid}@${hostname()}`;
  const deadline = Date.now() + (o.timeoutMs ?? 120_000);
  for (;;) {
    try {
      const fh = await open(path, 'wx');
      await fh.writeFile(me);
      await fh.close();
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = await readFile(path, 'utf8').catch(() => '');
    const [pid, host] = holder.split('@');
    if (holder !== '' && host === hostname() && !alive(Number(pid))) {
      await rm(path, { force: true }); // stale: its process is gone
      continue;
    }
    if (Date.now() > deadline) {
      throw new GitOpsError(
        'transient',
        'lock',
        `clone cache ${path} is held by ${holder || 'another process'}`,
      );
    }
    await (o.sleep ?? defaultSleep)(o.pollMs ?? 50);
  }
}

/**
 * Runs `fn` holding the lock of clone folder `dir`; releases it however `fn` ends.
 * @throws GitOpsError (`transient`) when another live process holds it longer than `timeoutMs`
 */
export async function withCloneLock<T>(
  dir: string,
  fn: () => Promise<T>,
  o: CloneLockOptions = {},
): Promise<T> {
  const path = `${dir}.lock`;
  await acquire(path, o);
  try {
    return await fn();
  } finally {
    await rm(path, { force: true });
  }
}
