/**
 * The global teardown that fails a test run leaving temp folders behind (issue 16 item 9): run
 * here on its own, against a private folder, with one leftover and with none.
 */
import { mkdirSync, existsSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import setup from './temp-check.js';

afterEach(() => {
  process.exitCode = undefined;
  vi.restoreAllMocks();
});

describe('temp-check global setup', () => {
  it('points TMPDIR at a private folder, fails the run listing a leftover, restores TMPDIR', () => {
    const before = process.env.TMPDIR;
    const teardown = setup();
    const dir = process.env.TMPDIR!;
    expect(dir).toMatch(/gpuops-vitest\.\w+$/);
    mkdirSync(`${dir}/gpuops-leak-1`);
    let err = '';
    vi.spyOn(process.stderr, 'write').mockImplementation((s) => ((err += String(s)), true));
    teardown();
    expect(err).toContain('the tests left 1 temp entry behind');
    expect(err).toContain('  gpuops-leak-1/');
    expect(process.exitCode).toBe(1);
    expect(existsSync(dir)).toBe(false);
    expect(process.env.TMPDIR).toBe(before);
  });

  it('an empty folder passes and is removed', () => {
    const teardown = setup();
    const dir = process.env.TMPDIR!;
    teardown();
    expect(process.exitCode).toBeUndefined();
    expect(existsSync(dir)).toBe(false);
  });

  it('a second setup in the same process (one per vitest project) nests no folder and removes nothing', () => {
    const before = process.env.TMPDIR;
    const teardown = setup();
    const dir = process.env.TMPDIR!;
    const again = setup();
    expect(process.env.TMPDIR).toBe(dir);
    again();
    expect(existsSync(dir)).toBe(true);
    expect(process.env.TMPDIR).toBe(dir);
    teardown();
    expect(existsSync(dir)).toBe(false);
    expect(process.env.TMPDIR).toBe(before);
    expect(process.exitCode).toBeUndefined();
  });
});
