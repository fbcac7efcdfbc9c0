/**
 * A trace read out of time order is said, never sorted in silence: the first row (sample) whose
 * time is earlier than the one before it, located at file:line (or its JSON path), and how many
 * there are; the replay goes on with the instants sorted. Each row beside its neighbour in order
 * (equal times, times restarting in a new series). Through the CLI: a warning on stderr.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { disorderWarning, parseTrace } from '../../src/replay/trace.js';
import { runMain } from '../support/run-main.js';

const csv = (...rows: string[]) => ['value,timestamp_anon,container_ip', ...rows, ''].join('\n');
const range = (...series: number[][]) =>
  JSON.stringify({
    status: 'success',
    data: {
      resultType: 'matrix',
      result: series.map((ts, i) => ({
        metric: { namespace: 'ml', pod: `p${i}` },
        values: ts.map((t) => [t, '50']),
      })),
    },
  });

/** [what, file text, where the first row out of order is (null: none), its time, the time before, how many]. */
const ROWS: [string, string, string | null, number?, number?, number?][] = [
  ['rows in time order', csv('1,60,a', '1,120,a', '1,180,a'), null],
  [
    'several pods at one time (equal times are in order)',
    csv('1,60,a', '1,60,b', '1,120,a', '1,120,b'),
    null,
  ],
  [
    'one row earlier than the row before',
    csv('1,60,a', '1,180,a', '1,120,a'),
    'x:4: timestamp_anon',
    120,
    180,
    1,
  ],
  [
    'a file grouped by pod (each pod in order, the times restarting)',
    csv('1,60,a', '1,120,a', '1,60,b', '1,120,b'),
    'x:4: timestamp_anon',
    60,
    120,
    1,
  ],
  [
    'two exports joined, the later first',
    csv('1,180,a', '1,240,a', '1,60,a', '1,120,a', '1,0,b'),
    'x:4: timestamp_anon',
    60,
    240,
    2,
  ],
  ['query_range: series in order, each restarting', range([60, 120], [60, 120]), null],
  [
    'query_range: a sample earlier than the one before',
    range([60, 120], [120, 60]),
    'x: data.result[1].values[1][0]',
    60,
    120,
    1,
  ],
];

describe('a trace out of time order is said where, then sorted', () => {
  it.each(ROWS)('%s', (_what, text, at, t, after, rows) => {
    const trace = parseTrace(text, 'x');
    expect(trace.instants.map((i) => i.t)).toEqual(
      [...new Set(trace.instants.map((i) => i.t))].sort((a, b) => a - b),
    );
    expect(trace.disorder).toEqual(at === null ? undefined : { at, t, after, rows });
    const warning = disorderWarning(trace);
    if (at === null) expect(warning).toBeNull();
    else
      expect(warning).toMatch(
        new RegExp(
          `^${at.replace(/[[\]]/g, '\\$&')}: ${t} is earlier than the time before it \\(${after}\\)`,
        ),
      );
  });
});

describe('gpuops replay warns on stderr, the replay goes on', { timeout: 120_000 }, () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gpuops-trace-order-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const rowsAt = (order: number[]) => csv(...order.map((j) => `40,${1662858720 + 60 * j},10.0.0.1`));

  it.each([
    ['out of order', [0, 1, 3, 2, 4, 5], true],
    ['in order', [0, 1, 2, 3, 4, 5], false],
  ] as const)('%s', async (name, order, warned) => {
    const file = path.join(dir, `${name.replace(/\W/g, '-')}.csv`);
    writeFileSync(file, rowsAt([...order]));
    const r = await runMain(
      'replay',
      '--trace',
      file,
      '--services',
      '2',
      '--engines',
      'static',
      '--output',
      'jsonl',
    );
    expect(r.code).toBe(0);
    expect(r.err.includes(`gpuops replay: warning: ${file}:5: timestamp_anon: 1662858840 is earlier`)).toBe(
      warned,
    );
    expect(JSON.parse(r.out.trim().split('\n')[0]!)).toMatchObject({ engine: 'static' });
  });
});
