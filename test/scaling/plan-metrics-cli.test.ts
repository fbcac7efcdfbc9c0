/**
 * `gpuops plan --metrics` end to end (the command, files on disk): a Prometheus `query_range`
 * dump (matrix) of three idle pods shows a scale-down offline; the same values as one instant
 * hold naming the window; `--now` a week later says why there is no data, by reason.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { loadWorkloadTemplates } from '../../src/benchmark/load-templates.js';
import { main } from '../../src/cli/main.js';
import { renderWorkloadFiles } from '../../src/manifests/workloads.js';
import type { Policy } from '../../src/definitions/types.js';
import { algorithm, policy } from './support.js';

const fixtureDir = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../fixtures/cluster-mixed');
const dir = mkdtempSync(path.join(tmpdir(), 'gpuops-plan-metrics-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => {
  process.exitCode = undefined;
  vi.restoreAllMocks();
});

const END = Date.parse('2026-11-23T12:00:00Z') / 1000;
const PODS = ['resnet50-infer-7d9f-0', 'resnet50-infer-7d9f-1', 'resnet50-infer-7d9f-2'];

async function run(...args: string[]): Promise<{ code: number; out: string }> {
  let out = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((s) => ((out += String(s)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  const code = await main(['node', 'gpuops', ...args]);
  vi.restoreAllMocks();
  process.exitCode = undefined;
  return { code, out };
}

function write(rel: string, content: string): string {
  const file = path.join(dir, rel);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
  return file;
}

/** A GitOps repo whose main runs resnet50-infer at 3 replicas on long-task; pods dump with its 3 Ready pods. */
function setUp(): { repo: string; pods: string; nodes: string } {
  const repo = path.join(dir, 'repo');
  write(
    'repo/algorithms/resnet50.yaml',
    [
      'apiVersion: gpuops.dev/v1alpha1',
      'kind: Algorithm',
      'metadata: {name: resnet50-infer, namespace: algorithms}',
      'spec:',
      '  image: registry.example.com/ml/resnet50:1.4.2',
      '  resources: {gpus: 1}',
      '  placement: {pool: long-task}',
      '',
    ].join('\n'),
  );
  const p: Policy = policy();
  for (const f of renderWorkloadFiles({
    algorithm: algorithm(),
    pool: 'long-task',
    policy: p.spec,
    cluster: 'default',
    templates: loadWorkloadTemplates(),
    replicas: 3,
  }))
    write(`repo/${f.path}`, f.content!);
  const pods = JSON.parse(readFileSync(path.join(fixtureDir, 'pods.json'), 'utf8')) as { items: unknown[] };
  for (const name of PODS) {
    pods.items.push({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name,
        namespace: 'algorithms',
        uid: `uid-${name}`,
        creationTimestamp: '2026-11-23T10:00:00Z',
        labels: { 'app.kubernetes.io/managed-by': 'gpuops', 'gpuops.dev/algorithm': 'resnet50-infer' },
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'resnet50-infer-7d9f', uid: 'rs' },
        ],
      },
      spec: {
        nodeName: 'gpu-h100-01',
        containers: [
          {
            name: 'main',
            resources: { requests: { 'nvidia.com/gpu': '1' }, limits: { 'nvidia.com/gpu': '1' } },
          },
        ],
      },
      status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
    });
  }
  return { repo, pods: write('pods.json', JSON.stringify(pods)), nodes: path.join(fixtureDir, 'nodes.json') };
}

const labels = (i: number) => ({
  __name__: 'DCGM_FI_DEV_GPU_UTIL',
  gpu: String(i),
  UUID: `GPU-${i}`,
  Hostname: 'gpu-h100-01',
  namespace: 'algorithms',
  pod: PODS[i]!,
});

const matrix = {
  status: 'success',
  data: {
    resultType: 'matrix',
    result: PODS.map((_, i) => ({
      metric: labels(i),
      values: Array.from({ length: 13 }, (_, k) => [END - 360 + k * 30, String(10 + ((k + i) % 5))]),
    })),
  },
};
const vector = {
  status: 'success',
  data: {
    resultType: 'vector',
    result: PODS.map((_, i) => ({ metric: labels(i), value: [END, String(11 + i)] })),
  },
};

// The first call loads every command; on a shared, busy machine that alone can take most of 30 s.
describe('gpuops plan --metrics', { timeout: 120_000 }, () => {
  const { repo, pods, nodes } = setUp();
  const base = [
    'plan',
    '--repo',
    repo,
    '--nodes',
    nodes,
    '--pods',
    pods,
    '--database',
    `sqlite:${dir}/none.db`,
  ];

  it('a query_range dump of three pods at 10–14 % for six minutes: scale-down 3 → 2', async () => {
    const file = write('range.json', JSON.stringify(matrix));
    const r = await run(...base, '--metrics', file, '--output', 'json');
    expect(r.code).toBe(0);
    const plan = JSON.parse(r.out);
    expect(plan.scaling).toEqual([
      expect.objectContaining({ action: 'scale-down', reason: 'BelowMin', replicas: { from: 3, to: 2 } }),
    ]);
    expect(plan.metrics.evaluatedAt).toBe('2026-11-23T12:00:00.000Z');
    expect(plan.files).toContainEqual({
      path: 'clusters/default/algorithms/resnet50-infer/deployment.yaml',
      change: 'update',
    });
  });

  it('the same values as one instant: hold, naming the window', async () => {
    const file = write('instant.json', JSON.stringify(vector));
    const r = await run(...base, '--metrics', file);
    expect(r.out).toMatch(
      /resnet50-infer\s+3\s+12\.0 %\s+hold\s+StabilizationWindow: .*300s scale-down stabilisation window/,
    );
  });

  it('--now a week later: NoData, and the text says why (Stale: 3, oldest 604800 s)', async () => {
    const file = write('instant2.json', JSON.stringify(vector));
    const now = new Date((END + 7 * 24 * 3600) * 1000).toISOString();
    const r = await run(...base, '--metrics', file, '--now', now);
    expect(r.out).toMatch(/resnet50-infer\s+3\s+-\s+hold\s+NoData: .*Stale: 3 \(oldest 604800 s\)/);
    expect(r.out).toContain('dropped series: Stale: 3 (oldest 604800 s); stale limit 120 s');
    const json = JSON.parse((await run(...base, '--metrics', file, '--now', now, '--output', 'json')).out);
    expect(json.metrics.dropped).toEqual([{ reason: 'Stale', count: 3, oldestSeconds: 604800 }]);
    expect(json.metrics.droppedSeries).toHaveLength(3);
  });

  it('--now that is not a time is a usage error', async () => {
    const file = write('instant3.json', JSON.stringify(vector));
    expect((await run(...base, '--metrics', file, '--now', 'yesterday')).code).toBe(2);
  });
});
