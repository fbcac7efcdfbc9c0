/**
 * Issue 25, newcomer item 3: `--from-hours` past the history's end says the history's span and the
 * asked start (usage error, exit 2), instead of "no samples in the Infinity s"; from the last
 * instant a fleet replays that one instant, and one service (which needs two: it chooses its
 * headroom factor on the first half) says so. `sliceTrace` itself says the window and the span.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sliceTrace, type Trace } from '../../src/replay/trace.js';
import { runMain } from '../support/run-main.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'gpuops-from-hours-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** 120 one-minute instants of `pods(j)` pods at 50 %: the last instant 7,140 s (1.983 h) after the first. */
const N = 120;
const pods = (j: number) => 1 + (j % 3);
const file = path.join(dir, 'trace.csv');
const rows = ['value,timestamp_anon,container_ip'];
for (let j = 0; j < N; j++)
  for (let p = 0; p < pods(j); p++) rows.push(`50,${1662858720 + 60 * j},10.0.0.${p}`);
writeFileSync(file, rows.join('\n') + '\n');
const LAST = 60 * (N - 1);

const hours = (seconds: number) => String(seconds / 3600);
const staticGpuHours = (out: string) =>
  (JSON.parse(out.split('\n')[0]!) as { allocatedGpuHours: number }).allocatedGpuHours;
const replay = (...args: string[]) =>
  runMain('replay', '--trace', file, '--engines', 'static', '--output', 'jsonl', ...args);

describe('--from-hours at and past the end of the history', { timeout: 60_000 }, () => {
  it('a fleet, from the last instant: that instant alone', async () => {
    const r = await replay('--services', '2', '--from-hours', hours(LAST));
    expect(r.code).toBe(0);
    expect(staticGpuHours(r.out)).toBeCloseTo((2 * pods(N - 1) * 60) / 3600, 2);
  });

  it('one service, from the last two instants: those two; from the last: 1 instant is too few (exit 2)', async () => {
    const two = await replay('--from-hours', hours(LAST - 60));
    expect(two.code).toBe(0);
    expect(two.err).toContain('gpuops replay: 2 instants of');
    expect(staticGpuHours(two.out)).toBeCloseTo(((pods(N - 2) + pods(N - 1)) * 60) / 3600, 2);
    const one = await replay('--from-hours', hours(LAST));
    expect(one.err).toBe(
      `gpuops: ${file} --from-hours ${hours(LAST)}: 1 instant to replay; one service needs 2 or more (the headroom factor is chosen on the first half)\n`,
    );
    expect(one.code).toBe(2);
  });

  it.each([
    ['one service', []],
    ['a fleet', ['--services', '2']],
  ])('past it (%s): the span and the asked start, exit 2', async (_n, args) => {
    const r = await replay(...args, '--from-hours', '5');
    expect(r.err).toBe(
      `gpuops: --from-hours 5 asks for a start 18000 s into ${file}, past its history: it spans 1.98 h (its last instant is ${LAST} s after its first); give --from-hours 1.98 or less\n`,
    );
    expect(r.code).toBe(2);
  });

  it('one second past the last instant is past it', async () => {
    const r = await replay('--from-hours', hours(LAST + 1));
    expect(r.err).toContain('past its history: it spans 1.98 h');
    expect(r.code).toBe(2);
  });
});

describe('sliceTrace', () => {
  const trace: Trace = {
    source: 't.csv',
    pods: 1,
    instants: [0, 60, 120].map((t) => ({ t: 1000 + t, values: [50] })),
  };
  it.each([
    [0, Infinity, [1000, 1060, 1120]],
    [60, 60, [1060]],
    [120, Infinity, [1120]],
  ])('from %s s for %s s: the instants in the window', (from, seconds, times) => {
    expect(sliceTrace(trace, from, seconds).instants.map((x) => x.t)).toEqual(times);
  });
  it.each([
    [
      121,
      Infinity,
      't.csv: no samples from 121 s to the end (the history spans 120 s from its first instant to its last)',
    ],
    [
      10,
      30,
      't.csv: no samples from 10 s to 40 s (the history spans 120 s from its first instant to its last)',
    ],
  ])('from %s s for %s s: none, and the message says the window and the span', (from, seconds, message) => {
    expect(() => sliceTrace(trace, from, seconds)).toThrow(message);
  });
});
