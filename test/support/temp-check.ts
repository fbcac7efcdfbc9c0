/**
 * Vitest global setup: the test run leaves no temp folder behind (issue 16 item 9).
 *
 * Before the workers start, `TMPDIR` points at a private folder (`gpuops-vitest.XXXXXX` under the
 * machine's temp folder), so every `os.tmpdir()` of a test, and of every process a test starts,
 * lands there, and other runs on the same machine cannot disturb the check. After the run the
 * folder must be empty: otherwise the run fails (exit code 1) with the list of what was left
 * (remove it in an `afterAll`/`afterEach`), and the folder is removed either way.
 *
 * `GPUOPS_KEEP_TEMP=1` keeps the folder and its content, for looking at what a test wrote.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** What is left in `dir`, one entry per line (`name/` for a folder). */
export function leftovers(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .map((e) => (e.isDirectory() ? `${e.name}/` : e.name))
    .sort();
}

/**
 * Set while a private folder is in place in this process. Vitest runs the root's global setup
 * once more for each project that `extends` the root (it concatenates `globalSetup`), so without
 * it the folders nest three deep, and Chromium's singleton socket path passes the 108 bytes a
 * Unix socket path may have ("Socket path too long").
 */
const ACTIVE = Symbol.for('gpuops.temp-check.active');
type Marked = typeof globalThis & { [ACTIVE]?: string };

export default function setup(): () => void {
  const g = globalThis as Marked;
  if (g[ACTIVE] !== undefined && process.env.TMPDIR === g[ACTIVE]) return () => undefined;
  const outer = process.env.TMPDIR;
  const dir = mkdtempSync(path.join(tmpdir(), 'gpuops-vitest.'));
  process.env.TMPDIR = dir;
  g[ACTIVE] = dir;
  return () => {
    delete g[ACTIVE];
    if (outer === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = outer;
    const left = leftovers(dir);
    if (process.env.GPUOPS_KEEP_TEMP === '1') return;
    rmSync(dir, { recursive: true, force: true });
    if (left.length > 0) {
      // Vitest only logs an error thrown here ("error during close"); the exit code must say it.
      process.stderr.write(
        `\nFAIL the tests left ${left.length} temp ${left.length === 1 ? 'entry' : 'entries'} behind (removed now; remove each in the test's afterAll/afterEach):\n  ${left.join('\n  ')}\n`,
      );
      process.exitCode = 1;
    }
  };
}
