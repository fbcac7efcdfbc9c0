/**
 * Who holds a clone-cache lock, and whether that holder can still be alive. Pure: the facts about
 * this process and the machine come in as arguments (`clone-lock.ts` reads them).
 *
 * A PID alone cannot tell: after a container restart in the same Pod the new `node` is PID 1 again
 * (same hostname, the cache an `emptyDir` that survived), and any PID is reused sooner or later.
 * So a holder is named by its PID *and* what survives PID reuse: its start time since boot
 * (`/proc/<pid>/stat` field 22, in clock ticks; proc(5)), the kernel's boot id
 * (`/proc/sys/kernel/random/boot_id`), and a random token of the process, so a process can tell
 * its own lock from one a predecessor with the same PID left.
 */

/** The record a lock file holds, written whole in one step. */
export interface LockHolder {
  pid: number;
  host: string;
  /** The kernel's boot id; null where there is none (not Linux), or in a lock of an older gpuops. */
  boot: string | null;
  /** The process start time since boot (clock ticks, `/proc/<pid>/stat` field 22); null where unknown. */
  start: string | null;
  /** A random id of the holding process; null in a lock of an older gpuops (`pid@host`). */
  token: string | null;
}

/** What this process knows about itself and the machine. */
export interface LockHere {
  pid: number;
  host: string;
  boot: string | null;
  token: string;
}

/** How to look at another process on this machine. */
export interface ProcessProbe {
  /** Its start time (as {@link LockHolder.start}); null when no such process; undefined when unknown (no `/proc`). */
  startOf(pid: number): string | null | undefined;
  /** Whether a signal 0 reaches it (`kill(pid, 0)` succeeds or fails with EPERM). */
  answers(pid: number): boolean;
}

/** The lock file's text: one JSON line. */
export function formatHolder(h: LockHolder): string {
  return `${JSON.stringify(h)}\n`;
}

/**
 * Reads a lock file's text: the JSON record, or `pid@host` as gpuops wrote it before; null for
 * anything else (an empty file, text cut short).
 */
export function parseHolder(text: string): LockHolder | null {
  const legacy = /^(\d+)@(\S+)$/.exec(text.trim());
  if (legacy) return { pid: Number(legacy[1]), host: legacy[2]!, boot: null, start: null, token: null };
  try {
    const o = JSON.parse(text) as Partial<LockHolder>;
    if (!Number.isInteger(o.pid) || typeof o.host !== 'string') return null;
    const str = (v: unknown) => (typeof v === 'string' ? v : null);
    return { pid: o.pid!, host: o.host, boot: str(o.boot), start: str(o.start), token: str(o.token) };
  } catch {
    return null;
  }
}

/**
 * Whether the holder of a lock is gone, so that the lock may be taken over:
 * - an unreadable record (an empty file left by a kill between an older gpuops's create and
 *   write) is stale once `ageMs` passes `staleMs`;
 * - another boot of this host: stale (a reboot ended every process);
 * - this process's own PID: alive only with this process's token (another working copy of this
 *   process holds it); else a predecessor with the same PID left it;
 * - another PID on this host: alive while a process of that PID has the recorded start time (by
 *   `kill(pid, 0)` alone where the start time is unknown);
 * - another host: no process there can be looked at; stale once its holder stopped renewing the
 *   file's time (`ageMs`, kept fresh while held) for longer than `staleMs`.
 * @param ageMs time since the lock file last changed (its mtime), milliseconds
 */
export function holderGone(
  holder: LockHolder | null,
  here: LockHere,
  probe: ProcessProbe,
  ageMs: number,
  staleMs: number,
): boolean {
  if (holder === null || holder.host !== here.host) return ageMs > staleMs;
  if (holder.boot !== null && here.boot !== null && holder.boot !== here.boot) return true;
  if (holder.pid === here.pid) return holder.token !== here.token;
  if (holder.start !== null) {
    const start = probe.startOf(holder.pid);
    if (start !== undefined) return start !== holder.start;
  }
  return !probe.answers(holder.pid);
}

/** `pid@host` and, when known, the start time: how an error names a holder. */
export function describeHolder(h: LockHolder | null): string {
  if (h === null) return 'an unreadable lock record';
  return `${h.pid}@${h.host}${h.start !== null ? ` (process start ${h.start})` : ''}`;
}
