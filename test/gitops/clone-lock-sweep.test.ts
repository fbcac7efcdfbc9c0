/**
 * The clone-cache lock's sweep of leftovers (a `.tmp` or `.stale` file a process killed mid-way
 * left beside the lock), on a fake clock: the folder is swept on the first take, then at most
 * once per `staleMs`, and a leftover is removed only once it is older than `staleMs`.
 */
import { existsSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { withCloneLock } from '../../src/working-copy/clone-lock.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A leftover beside `<dir>.lock`, its file time `mtimeMs`. */
function leftover(dir: string, name: string, mtimeMs: number): string {
  const file = `${dir}.lock.${name}`;
  writeFileSync(file, 'left by a killed process');
  utimesSync(file, mtimeMs / 1000, mtimeMs / 1000);
  return file;
}

describe('clone-lock sweep', () => {
  it('sweeps on the first take, then once per staleMs', async () => {
    const root = mkdtempSync(join(tmpdir(), 'gpuops-lock-sweep-'));
    dirs.push(root);
    const dir = join(root, 'clone');
    const staleMs = 60_000;
    let clock = 1_000_000_000_000;
    const o = { staleMs, now: () => clock };
    const take = () => withCloneLock(dir, async () => 'held', o);

    const first = leftover(dir, '11.aa.tmp', clock - staleMs - 1);
    const fresh = leftover(dir, '12.bb.stale', clock - staleMs + 1);
    expect(await take()).toBe('held');
    expect(existsSync(first)).toBe(false); // older than staleMs: removed
    expect(existsSync(fresh)).toBe(true); // not yet stale: kept

    // Within staleMs of the last sweep: the folder is not listed again, even for a stale file.
    clock += staleMs - 1;
    const later = leftover(dir, '13.cc.tmp', clock - staleMs - 1);
    expect(await take()).toBe('held');
    expect(existsSync(later)).toBe(true);
    expect(existsSync(fresh)).toBe(true);

    // staleMs after the last sweep: both stale leftovers go.
    clock += 1;
    expect(await take()).toBe('held');
    expect(existsSync(later)).toBe(false);
    expect(existsSync(fresh)).toBe(false);
    expect(existsSync(`${dir}.lock`)).toBe(false);
  });
});
