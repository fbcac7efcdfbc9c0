/**
 * `npm ci --omit=dev` runs `prepare` without the build's tools: bin/prepare.js skips the build with
 * a note and exit 0 (it used to fail the install at `tsx: not found`).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const PREPARE = fileURLToPath(new URL('../../bin/prepare.js', import.meta.url));
let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the prepare script in `cwd` (a package root without typescript and tsx installed). */
function prepare(cwd: string) {
  const r = spawnSync(process.execPath, [PREPARE], {
    cwd,
    encoding: 'utf8',
    env: { PATH: process.env.PATH },
  });
  return { code: r.status, err: r.stderr, out: r.stdout };
}

describe('bin/prepare.js without dev dependencies', () => {
  it('skips the build, says why, exits 0, and writes no dist/', () => {
    dir = mkdtempSync(path.join(tmpdir(), 'gpuops-prepare-'));
    writeFileSync(path.join(dir, 'package.json'), '{"name":"x","type":"module"}\n');
    const r = prepare(dir);
    expect(r).toMatchObject({ code: 0, out: '' });
    expect(r.err).toBe(
      'gpuops prepare: build skipped, the dev dependencies typescript and tsx are not installed; there is no dist/: build it with the dev dependencies (npm ci, then npm prune --omit=dev)\n',
    );
    expect(existsSync(path.join(dir, 'dist'))).toBe(false);
  });

  it('names only the tool that is missing, and keeps a dist/ that is there', () => {
    dir = mkdtempSync(path.join(tmpdir(), 'gpuops-prepare-'));
    writeFileSync(path.join(dir, 'package.json'), '{"name":"x","type":"module"}\n');
    mkdirSync(path.join(dir, 'node_modules', 'typescript'), { recursive: true });
    writeFileSync(path.join(dir, 'node_modules', 'typescript', 'package.json'), '{"name":"typescript"}\n');
    mkdirSync(path.join(dir, 'dist', 'cli'), { recursive: true });
    writeFileSync(path.join(dir, 'dist', 'cli', 'main.js'), '');
    const r = prepare(dir);
    expect(r.code).toBe(0);
    expect(r.err).toBe(
      'gpuops prepare: build skipped, the dev dependency tsx is not installed; the dist/ present is used as it is\n',
    );
  });
});
