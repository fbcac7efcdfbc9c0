/**
 * Issue 25, newcomer item 2: `gpuops replay` without `--trace` is one line naming the flag, what it
 * takes and where the bundled trace is (in `shared/data/traces/` of a folder above the checkout,
 * read in place: `src/cli/bundled-trace.ts`), exit 2, not commander's error and help. The folders
 * are ones the test makes, the "trace" in them a line it writes: nothing is copied.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { BUNDLED_TRACE, bundledTraceCandidates, missingTraceMessage } from '../../src/cli/bundled-trace.js';
import { runMain } from '../support/run-main.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dir = mkdtempSync(path.join(os.tmpdir(), 'gpuops-no-trace-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A checkout at `<dir>/<name>/wt/checkout`, the trace placed in `shared/` of `at` (relative to `<dir>/<name>`). */
function tree(name: string, at: string | null): string {
  const checkout = path.join(dir, name, 'wt', 'checkout');
  mkdirSync(checkout, { recursive: true });
  if (at !== null) {
    const file = path.join(dir, name, at, BUNDLED_TRACE);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, 'value,timestamp_anon,container_ip\n');
  }
  return checkout;
}

describe('where the bundled trace is', () => {
  it('is looked for in every folder above the checkout, nearest first, never inside it', () => {
    const c = bundledTraceCandidates('/a/b/checkout');
    expect(c).toEqual([`/a/b/${BUNDLED_TRACE}`, `/a/${BUNDLED_TRACE}`, `/${BUNDLED_TRACE}`]);
  });

  it.each([
    ['beside the checkout', 'wt', (n: string) => path.join(dir, n, 'wt', BUNDLED_TRACE)],
    ['two folders up (a linked worktree under wt/)', '.', (n: string) => path.join(dir, n, BUNDLED_TRACE)],
  ])('found %s: the message names the file', (name, at, where) => {
    const n = name.replace(/\W+/g, '-');
    const m = missingTraceMessage(tree(n, at));
    expect(m).toContain(`the bundled trace is ${where(n)} (read it in place`);
    expect(m).toMatch(/^replay needs --trace FILE, a trace CSV .* or a Prometheus query_range JSON; /);
    expect(m).not.toContain('\n');
  });

  it('not found (nor in a shared/ inside the checkout): the message says where it looked', () => {
    const checkout = tree('inside', null);
    const inner = path.join(checkout, BUNDLED_TRACE);
    mkdirSync(path.dirname(inner), { recursive: true });
    writeFileSync(inner, 'value,timestamp_anon,container_ip\n');
    const m = missingTraceMessage(checkout);
    expect(m).toContain(`the bundled trace (../${BUNDLED_TRACE}) is in no folder above ${checkout}`);
    expect(m).not.toContain(inner);
  });
});

describe('gpuops replay without --trace', () => {
  it.each([
    ['alone', []],
    ['for a fleet', ['--services', '4']],
  ])('%s: one line, the flag and the bundled trace, exit 2', async (_n, args) => {
    const r = await runMain('replay', ...args);
    expect(r.err).toBe(`gpuops: ${missingTraceMessage(ROOT)}\n`);
    expect(r.err).not.toContain('Usage:');
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
  });
});

describe('gpuops replay --synthetic: the synthetic day, on any clone', () => {
  it('replays it (a slice, the computed engines), naming it where a file would be named', async () => {
    const r = await runMain(
      'replay',
      '--synthetic',
      '3',
      '--hours',
      '1',
      '--engines',
      'static,ideal',
      '--output',
      'jsonl',
    );
    expect(r.code).toBe(0);
    expect(r.err).toContain('gpuops replay: 60 instants of synthetic day (seed 3) through static, ideal');
    const figures = r.out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { engine: string; allocatedGpuHours: number });
    expect(figures.map((f) => f.engine)).toEqual(['static', 'ideal']);
    expect(figures[0]!.allocatedGpuHours).toBeGreaterThan(90);
  });
  it('--trace and --synthetic both: a usage error', async () => {
    const r = await runMain('replay', '--synthetic', '--trace', 'x.csv');
    expect(r.code).toBe(2);
    expect(r.err).toBe('gpuops: --trace and --synthetic both name the history: give one\n');
  });
});
