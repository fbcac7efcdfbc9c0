/**
 * Ctrl-C of a one-shot pass: a real process holding the clone-cache lock gets SIGINT (and
 * SIGTERM); it says what was interrupted, releases the lock and exits 128 + the signal number.
 * Node's default (no handler) exits silently and leaves the lock file.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const CHILD = join(import.meta.dirname, '../support/interrupt-child.ts');
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('an interrupted one-shot pass', () => {
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)('%s: says what it interrupted, releases the lock, exits %i', async (signal, code) => {
    const tmp = mkdtempSync(join(tmpdir(), 'gpuops-interrupt-'));
    dirs.push(tmp);
    const dir = join(tmp, 'clone');
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dir], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, TMPDIR: tmp },
    });
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    await new Promise<void>((r) => child.stdout.once('data', () => r()));
    expect(existsSync(`${dir}.lock`)).toBe(true);
    const exit = new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
    child.kill(signal);
    expect(await exit).toBe(code);
    expect(stderr).toMatch(
      new RegExp(
        `^gpuops reconcile: interrupted by ${signal} during the reconcile pass \\(clone, read, decide, write\\) after \\d+\\.\\d s; released the clone-cache lock \\(.*clone\\.lock\\); what was already pushed or opened stays, nothing more was written\\n$`,
      ),
    );
    expect(existsSync(`${dir}.lock`)).toBe(false);
  });
});
