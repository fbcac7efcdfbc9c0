/** `makeDirs`: mkdir -p that ends, also where Node 20's recursive mkdir loops forever (/proc). */
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeDirs } from '../../src/disk/make-dirs.js';

const work = mkdtempSync(path.join(tmpdir(), 'gpuops-make-dirs-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('makeDirs', () => {
  it('creates a folder and its missing parents; an existing folder is left alone', () => {
    const deep = path.join(work, 'a', 'b', 'c');
    makeDirs(deep);
    expect(statSync(deep).isDirectory()).toBe(true);
    makeDirs(deep);
    makeDirs(path.join(work, 'a'));
    expect(statSync(deep).isDirectory()).toBe(true);
  });

  it('throws ENOTDIR when a parent is a file', () => {
    const file = path.join(work, 'plain');
    writeFileSync(file, 'x');
    expect(() => makeDirs(path.join(file, 'sub', 'dir'))).toThrow(
      expect.objectContaining({ code: 'ENOTDIR' }),
    );
  });

  it.skipIf(!existsSync('/proc/self'))('throws ENOENT under /proc instead of looping', () => {
    expect(() => makeDirs('/proc/gpuops-no-such/state')).toThrow(expect.objectContaining({ code: 'ENOENT' }));
  });
});
