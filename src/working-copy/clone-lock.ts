/**
 * A file lock on a clone cache folder, so that two gpuops processes on one machine (a
 * `reconcile --once` by hand next to `run`) never run git in the same clone at once. The lock is
 * `<dir>.lock`, holding who took it (`lock-holder.ts`: PID, host, boot id, process start time, a
 * token of the process).
 *
 * Taken in one atomic step: the record is written whole to a temporary file, then hard-linked to
 * the lock's name (`link(2)` fails with EEXIST when it is there), so a kill at any moment leaves
 * either no lock or a whole one — never an empty file. A lock whose holder is gone
 * (`holderGone`: dead, a predecessor with the same PID, another boot) is taken over at once;
 * while held, the file's time is renewed, so a lock of another host goes stale once its holder
 * stops renewing it.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { link, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { sleep as defaultSleep } from '../retry/index.js';
import { GitOpsError } from './git-errors.js';
import {
  describeHolder,
  formatHolder,
  holderGone,
  parseHolder,
  type LockHere,
  type LockHolder,
  type ProcessProbe,
} from './lock-holder.js';

/** Options of {@link withCloneLock}. */
export interface CloneLockOptions {
  /** How long to wait for another holder, milliseconds; default 120,000. */
  timeoutMs?: number;
  /** Poll interval while waiting, milliseconds; default 50. */
  pollMs?: number;
  /**
   * How long a lock nobody renews stays valid (another host's, or an unreadable one),
   * milliseconds; default 60,000. The holder renews it every quarter of this.
   */
  staleMs?: number;
  sleep?: (ms: number) => Promise<void>;
  /** The clock, milliseconds since the epoch; default `Date.now`. */
  now?: () => number;
}

/** Field 22 of `/proc/<pid>/stat` (the start time since boot); null: no such process; undefined: no `/proc`. */
function startOf(pid: number): string | null | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ESRCH') return readable('/proc/self/stat') ? null : undefined;
    return undefined;
  }
  // The command name (field 2) is in parentheses and may hold spaces: count after the last ')'.
  return text.slice(text.lastIndexOf(')') + 2).split(' ')[19];
}

function readable(path: string): boolean {
  try {
    readFileSync(path);
    return true;
  } catch {
    return false;
  }
}

const probe: ProcessProbe = {
  startOf,
  answers(pid) {
    try {
      process.kill(pid, 0);
      return true;
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === 'EPERM';
    }
  },
};

function bootId(): string | null {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || null;
  } catch {
    return null;
  }
}

/** This process, as lock records name it (read once). */
let self: { here: LockHere; holder: LockHolder } | undefined;
function me(): { here: LockHere; holder: LockHolder } {
  if (!self) {
    const here: LockHere = {
      pid: process.pid,
      host: hostname(),
      boot: bootId(),
      token: randomBytes(8).toString('hex'),
    };
    self = { here, holder: { ...here, start: startOf(process.pid) ?? null } };
  }
  return self;
}

/** Creates the lock whole or not at all; false when it exists. */
async function create(path: string, text: string): Promise<boolean> {
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(tmp, text, { flag: 'wx' });
  try {
    await link(tmp, path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    await rm(tmp, { force: true });
  }
}

/**
 * Removes the stale lock whose text was `seen`. Moved aside first (atomic): when what was moved
 * is not what was judged (another process took the lock meanwhile), it is put back.
 */
async function takeOver(path: string, seen: string): Promise<void> {
  const aside = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.stale`;
  try {
    await rename(path, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  if ((await readFile(aside, 'utf8').catch(() => '')) !== seen)
    await link(aside, path).catch(() => undefined);
  await rm(aside, { force: true });
}

/** When this process last swept beside each lock path (milliseconds since the epoch). */
const swept = new Map<string, number>();

/**
 * Removes temporary files a process killed mid-way left beside the lock (older than `staleMs`).
 * At most once per `staleMs` per lock path: a file left now is not stale before then, so an
 * earlier sweep would find nothing to remove, and a pass no longer lists the folder every time.
 */
async function sweep(path: string, staleMs: number, now: () => number): Promise<void> {
  const last = swept.get(path);
  if (last !== undefined && now() - last < staleMs) return;
  swept.set(path, now());
  const prefix = `${basename(path)}.`;
  const names = await readdir(dirname(path)).catch(() => [] as string[]);
  for (const name of names) {
    if (!name.startsWith(prefix) || !/\.(tmp|stale)$/.test(name)) continue;
    const file = join(dirname(path), name);
    const s = await stat(file).catch(() => null);
    if (s && now() - s.mtimeMs > staleMs) await rm(file, { force: true });
  }
}

async function acquire(path: string, o: CloneLockOptions): Promise<void> {
  const { here, holder } = me();
  const staleMs = o.staleMs ?? 60_000;
  const now = o.now ?? Date.now;
  const deadline = now() + (o.timeoutMs ?? 120_000);
  await sweep(path, staleMs, now);
  for (;;) {
    if (await create(path, formatHolder(holder))) return;
    const [text, s] = await Promise.all([
      readFile(path, 'utf8').catch(() => null),
      stat(path).catch(() => null),
    ]);
    if (text === null || s === null) continue; // released meanwhile
    const held = parseHolder(text);
    if (holderGone(held, here, probe, now() - s.mtimeMs, staleMs)) {
      await takeOver(path, text);
      continue;
    }
    if (now() > deadline) {
      throw new GitOpsError('transient', 'lock', `clone cache ${path} is held by ${describeHolder(held)}`);
    }
    await (o.sleep ?? defaultSleep)(o.pollMs ?? 50);
  }
}

/** Lock files this process holds now (a process interrupted by a signal releases them). */
const held = new Set<string>();

/**
 * Removes every clone-cache lock this process holds, at once and synchronously: for a signal
 * handler that exits right after (`finally` blocks do not run then). Only this process's own
 * records go. Returns the lock files removed.
 */
export function releaseCloneLocksNow(): string[] {
  const out: string[] = [];
  for (const path of held) {
    try {
      if (readFileSync(path, 'utf8') === formatHolder(me().holder)) {
        rmSync(path, { force: true });
        out.push(path);
      }
    } catch {
      // already gone
    }
  }
  held.clear();
  return out;
}

/**
 * Runs `fn` holding the lock of clone folder `dir`; releases it however `fn` ends (a kill -9
 * leaves it, and the next process takes it over: see the module comment).
 * @throws GitOpsError (`transient`) when another live process holds it longer than `timeoutMs`
 */
export async function withCloneLock<T>(
  dir: string,
  fn: () => Promise<T>,
  o: CloneLockOptions = {},
): Promise<T> {
  const path = `${dir}.lock`;
  await acquire(path, o);
  held.add(path);
  const renew = setInterval(
    () => {
      const now = new Date();
      void utimes(path, now, now).catch(() => undefined);
    },
    (o.staleMs ?? 60_000) / 4,
  );
  renew.unref();
  try {
    return await fn();
  } finally {
    held.delete(path);
    clearInterval(renew);
    // Only this process's own record goes: a lock another process took over stays its lock.
    if ((await readFile(path, 'utf8').catch(() => null)) === formatHolder(me().holder))
      await rm(path, { force: true });
  }
}
