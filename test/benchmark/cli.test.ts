/** `gpuops benchmark NAME` against the simulated cluster over HTTP, with a SQLite file database. */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatElapsed } from '../../src/cli/commands/benchmark.js';
import { defaultControllers } from '../../src/sim/controllers/index.js';
import { startSimCluster, type SimCluster } from '../../src/sim/index.js';
import { runMain } from '../support/run-main.js';
import { algorithmYaml } from './fixtures.js';

let sim: SimCluster;
let dir: string;

beforeAll(async () => {
  // 100 simulated seconds per real second: the CLI polls on the wall clock.
  sim = await startSimCluster({
    speed: 100,
    controllers: defaultControllers(),
    nodes: [
      {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: 'gpu-test-01', labels: { 'gpuops.dev/pool': 'test' } },
        spec: { taints: [{ key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' }] },
        status: {
          allocatable: { 'nvidia.com/gpu': '1' },
          capacity: { 'nvidia.com/gpu': '1' },
          conditions: [{ type: 'Ready', status: 'True' }],
        },
      },
    ],
  });
  dir = mkdtempSync(path.join(tmpdir(), 'gpuops-bench-cli-'));
  mkdirSync(path.join(dir, 'repo/algorithms'), { recursive: true });
  writeFileSync(
    path.join(dir, 'repo/algorithms/quick.yaml'),
    algorithmYaml({ name: 'quick', runs: 1, args: ['--sim-duration=30', '--sim-termination-message'] }),
  );
  sim.writeKubeconfig(path.join(dir, 'kubeconfig'));
});

afterAll(async () => {
  await sim?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const run = (args: string[]) => runMain(...args);

describe('gpuops benchmark', () => {
  const conn = () => [
    '--repo',
    path.join(dir, 'repo'),
    '--kubeconfig',
    path.join(dir, 'kubeconfig'),
    '--database',
    `sqlite:${path.join(dir, 'state.db')}`,
  ];

  it('runs the benchmark, prints progress on stderr and the result with its placement', async () => {
    const r = await run(['benchmark', 'quick', ...conn(), '--output', 'json']);
    expect(r.err).toMatch(/quick run 1\/1 (scheduling|running) \d+s: /);
    expect(r.code).toBe(0);
    const json = JSON.parse(r.out) as {
      benchmark: { status: string; medianSeconds: number; cached: boolean };
      placement: { pool: string; reason: string };
    };
    expect(json.benchmark).toMatchObject({ status: 'Succeeded', medianSeconds: 30, cached: false });
    expect(json.placement).toMatchObject({ pool: 'short-task', reason: 'BelowThreshold' });
  });

  it('a second call uses the stored result', async () => {
    const r = await run(['benchmark', 'quick', ...conn()]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/quick spec [0-9a-f]{12}: Succeeded \(stored\), median 30 s/);
    expect(r.out).toMatch(/placement: short-task \(BelowThreshold\)/);
  });

  it('--dry-run prints the Job and creates nothing', async () => {
    const before = sim.store.list('jobs').length;
    const r = await run(['benchmark', 'quick', ...conn(), '--dry-run']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^apiVersion: batch\/v1\nkind: Job\n/);
    expect(sim.store.list('jobs').length).toBe(before);
  });

  it('an unknown algorithm is an error naming the known ones', async () => {
    const r = await run(['benchmark', 'nope', ...conn()]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/no valid algorithm named "nope".*known: quick/);
  });
});

describe('formatElapsed', () => {
  it.each([
    [42, '42s'],
    [125, '2m05s'],
    [3725, '1h02m05s'],
  ])('%d s → %s', (s, want) => expect(formatElapsed(s)).toBe(want));
});
