/**
 * Issue 25, newcomer item 1: the fleet replay (`--services K`, `--nodes N`, `--group-by`) honours
 * `--output` and `--engines` as the one-service replay does. `--output jsonl` prints one JSON line
 * per engine's fleet row and nothing else, `both` the lines then the table; `--engines` runs only
 * the fleet engines it names (static, hpa, gpuops, ideal: the model's), and an engine the fleet
 * cannot run (the simulated gpuops-patch, gpuops-pr) is a usage error, as a fleet engine is for one
 * service. A burst trace the test writes itself; static and ideal checked against the input.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { FleetFigures } from '../../src/replay/fleet-model.js';
import { runMain } from '../support/run-main.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'gpuops-fleet-output-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** 120 one-minute instants: 2 pods at 40 %, 24 pods at 70 % from minute 10 to 30. */
const N = 120;
const level = (j: number) => (j >= 10 && j < 30 ? { pods: 24, v: 70 } : { pods: 2, v: 40 });
const file = path.join(dir, 'burst.csv');
const rows = ['value,timestamp_anon,container_ip'];
for (let j = 0; j < N; j++)
  for (let p = 0; p < level(j).pods; p++) rows.push(`${level(j).v},${1662858720 + 60 * j},10.0.0.${p}`);
writeFileSync(file, rows.join('\n') + '\n');

/** Per service (each shifted copy holds every instant once): static holds the pods, the ideal ceil(load ÷ 80). */
const perService = { static: 0, ideal: 0 };
for (let j = 0; j < N; j++) {
  perService.static += level(j).pods / 60;
  perService.ideal += Math.ceil((level(j).pods * level(j).v) / 80) / 60;
}

const replay = (...args: string[]) => runMain('replay', '--trace', file, ...args);
const jsonRows = (out: string) =>
  out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as FleetFigures);

describe('gpuops replay of a fleet: --output', { timeout: 120_000 }, () => {
  it('jsonl: one JSON line per engine and nothing else; static and ideal as the input gives', async () => {
    const r = await replay('--services', '2', '--output', 'jsonl', '--report', path.join(dir, 'r'));
    expect(r.code).toBe(0);
    const got = jsonRows(r.out);
    expect(got.map((x) => x.engine)).toEqual(['static', 'hpa 55 %', 'gpuops β 1', 'ideal']);
    expect(got[0]!.allocatedGpuHours).toBeCloseTo(2 * perService.static, 1);
    expect(got[3]!.allocatedGpuHours).toBeCloseTo(2 * perService.ideal, 1);
    expect(got[0]!.services).toHaveLength(2);
    // The same rows as the report's figures.jsonl.
    expect(readFileSync(path.join(dir, 'r', 'figures.jsonl'), 'utf8')).toBe(r.out);
  });

  it('both: the JSON lines, then the table with the same figures; table alone: no JSON', async () => {
    const both = await replay('--services', '2', '--output', 'both');
    const [lines, table] = both.out.split(/(?=^fleet of 2 services)/m);
    const got = jsonRows(lines!);
    expect(got).toHaveLength(4);
    for (const x of got)
      expect(table).toMatch(
        new RegExp(
          `^ {2}${x.engine} +util +${x.utilizationPercent.toFixed(1)} %  GPU-h +${x.allocatedGpuHours.toFixed(1)} `,
          'm',
        ),
      );
    const plain = await replay('--services', '2');
    expect(plain.out).toBe(table);
    expect(plain.out).not.toMatch(/^\{/m);
  });

  it('--group-by with jsonl: the list of services goes to stderr, stdout stays JSON', async () => {
    const T0 = 1_700_000_000;
    const series = ['a', 'b'].map((d, i) => ({
      metric: { deployment: d, pod: `${d}-0` },
      values: Array.from({ length: 30 }, (_, j) => [T0 + 60 * j, String(30 + 20 * i)]),
    }));
    const json = path.join(dir, 'history.json');
    writeFileSync(
      json,
      JSON.stringify({ status: 'success', data: { resultType: 'matrix', result: series } }),
    );
    const r = await runMain('replay', '--trace', json, '--group-by', 'deployment', '--output', 'jsonl');
    expect(r.code).toBe(0);
    expect(r.err).toContain(`services of ${json} by deployment: 0 a, 1 b\n`);
    expect(jsonRows(r.out).map((x) => x.services.length)).toEqual([2, 2, 2, 2]);
  });
});

describe('gpuops replay of a fleet: --engines', { timeout: 120_000 }, () => {
  it('runs only the engines named, in the fleet order, each with the figures of the full run', async () => {
    const all = jsonRows((await replay('--services', '2', '--output', 'jsonl')).out);
    const some = jsonRows(
      (await replay('--services', '2', '--output', 'jsonl', '--engines', 'ideal,gpuops')).out,
    );
    expect(some).toEqual([all[2], all[3]]);
    const one = jsonRows((await replay('--services', '2', '--output', 'jsonl', '--engines', 'static')).out);
    expect(one).toEqual([all[0]]);
  });

  it('on nodes without gpuops: no gpuops row and no frontier; the HPA still on its static pools', async () => {
    const r = await replay(
      '--services',
      '2',
      '--nodes',
      '6',
      '--gpus-per-node',
      '4',
      '--engines',
      'static,hpa',
    );
    expect(r.code).toBe(0);
    expect(r.out).toMatch(
      /^fleet of 2 services on nodes \(model; 6 nodes for gpuops, the HPA's static pools \d+ \+ \d+ nodes; kube-scheduler: NodeResourcesFit LeastAllocated over cpu,memory /,
    );
    expect(r.out).toMatch(/^ {2}hpa 55 %, static pools +util .* pool node-h/m);
    expect(r.out).not.toMatch(/gpuops β|gpuops on the same nodes|^ {2}ideal/m);
    expect(r.out).toMatch(/^ {2}static +util .* peak 12\)/m); // ceil(24 pods ÷ 4) = 6 nodes per service
  });

  it.each([
    [
      'a simulated engine for a fleet',
      ['--services', '2', '--engines', 'static,gpuops-patch'],
      /--engines gpuops-patch: a simulated engine, for one service only; a fleet replays through the model: static, hpa, gpuops, ideal/,
    ],
    [
      'gpuops-pr for --group-by',
      ['--group-by', 'deployment', '--engines', 'gpuops-pr'],
      /--engines gpuops-pr: a simulated engine/,
    ],
    [
      'the fleet engine for one service',
      ['--engines', 'gpuops'],
      /--engines gpuops: a fleet's engine .*one service runs static, hpa, gpuops-patch, gpuops-pr, ideal/,
    ],
    [
      'the fleet engine with --services 1 (one service)',
      ['--services', '1', '--engines', 'hpa,gpuops'],
      /--engines gpuops: a fleet's engine/,
    ],
    [
      'a name of neither',
      ['--services', '2', '--engines', 'keda'],
      /unknown engine "keda" \(one service: static,hpa,gpuops-patch,gpuops-pr,ideal; a fleet: static,hpa,gpuops,ideal\)/,
    ],
  ])('refuses %s (exit 2)', async (_n, args, message) => {
    const r = await replay(...args);
    expect(r.err).toMatch(message);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
  });

  it('the names both run: one service through static,ideal prints the one-service table', async () => {
    const r = await replay('--engines', 'static,ideal', '--output', 'jsonl');
    expect(r.code).toBe(0);
    const got = r.out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { engine: string; allocatedGpuHours: number });
    expect(got.map((x) => x.engine)).toEqual(['static', 'ideal']);
    expect(got[0]!.allocatedGpuHours).toBeCloseTo(perService.static, 1);
  });
});
