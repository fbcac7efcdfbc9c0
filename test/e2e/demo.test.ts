/**
 * End to end: the demo scenario without a terminal (the simulated cluster over HTTP, real git, a
 * SQLite file, the real reconcile pass), then the final state checked where it lives — the
 * simulated cluster's objects (read before it stops), the GitOps repo's `main` through git, and
 * the database through the Store. Then `node bin/gpuops.js demo` once, as a newcomer runs it.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import Database from 'libsql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { runDemo, type DemoResult } from '../../src/demo/scenario.js';
import { openStore } from '../../src/store/index.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(path.join(os.tmpdir(), 'gpuops-e2e-demo-'));
  dirs.push(d);
  return d;
};

/** A file at `main` of the bare origin, parsed. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function atMain(origin: string, file: string): Record<string, any> {
  return parse(execFileSync('git', ['-C', origin, 'show', `main:${file}`], { encoding: 'utf8' }));
}

let result: DemoResult;

beforeAll(async () => {
  result = await runDemo({ dir: tempDir() });
}, 180_000);

afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('gpuops demo scenario, final state', () => {
  it('labels one healthy idle node as the test node and keeps every trap out of the pools', () => {
    const pool = new Map(result.nodes.map((n) => [n.name, n.pool]));
    expect(result.testNode).toBe('gpu-a100-02');
    expect(pool.get('gpu-a100-02')).toBe('test');
    // Traps of test/fixtures/cluster-mixed: no GPU, foreign workload, MIG, cordoned, NotReady, no allocatable GPU.
    for (const trap of [
      'ip-10-0-1-11.ec2.internal',
      'gpu-a100-01',
      'gpu-a100-03',
      'gpu-a100-04',
      'gpu-h100-02',
      'gpu-t4-02',
      'gpu-t4-04',
      'gpu-t4-05',
    ]) {
      expect(pool.get(trap), trap).toBeNull();
    }
  });

  it('moved unused nodes of each product into the pools (the first replicas of each, then the full short-task pool) and returned the emptied one', () => {
    const pool = new Map(result.nodes.map((n) => [n.name, n.pool]));
    // Issue 24: bert-train names A100 or H100, resnet50-infer T4; issue 23 item 8: the smallest
    // node of the product that fits first (the 1-GPU gpu-t4-03, which was resnet50-infer's T4
    // test node until its benchmark ended), the 4-GPU gpu-t4-01 when that one is full.
    expect(result.movedNodes).toEqual([
      { node: 'gpu-h100-01', pool: 'long-task', algorithm: 'bert-train' },
      { node: 'gpu-t4-03', pool: 'short-task', algorithm: 'resnet50-infer' },
      { node: 'gpu-t4-01', pool: 'short-task', algorithm: 'resnet50-infer' },
    ]);
    expect(pool.get('gpu-h100-01')).toBe('long-task');
    expect(pool.get('gpu-t4-03')).toBe('short-task');
    // Issue 11 item 6: after the scale-down gpu-t4-01 holds no pod; returnAfterSeconds later it is back.
    expect(result.returnedNodes).toEqual(['gpu-t4-01']);
    expect(pool.get('gpu-t4-01')).toBe('unused');
    expect(result.nodes.filter((n) => n.pool === 'unused').map((n) => n.name)).toEqual(['gpu-t4-01']);
  });

  it('runs the Deployments in the simulated cluster: scaled up to 5, then down to 1', () => {
    const byName = new Map(result.deployments.map((d) => [d.name, d]));
    expect([...byName.keys()].sort()).toEqual(['bert-train', 'resnet50-infer']);
    expect(byName.get('resnet50-infer')).toMatchObject({
      namespace: 'algorithms',
      replicas: 1,
      pool: 'short-task',
    });
    expect(byName.get('bert-train')).toMatchObject({ replicas: 1, pool: 'long-task' });
    const resnet = result.algorithms.find((a) => a.name === 'resnet50-infer')!;
    expect(resnet).toMatchObject({
      pool: 'short-task',
      benchmarkSeconds: 45,
      replicasInGit: 1,
      readyPods: 1,
    });
    expect(resnet.utilization).toBe(50); // 50 GPU-percent offered over 1 GPU (in band at the end)
    expect(result.lastPassWrites).toEqual([]); // a pass after the last change writes nothing
    const bert = result.algorithms.find((a) => a.name === 'bert-train')!;
    expect(bert).toMatchObject({ pool: 'long-task', benchmarkSeconds: 1500, readyPods: 1, utilization: 65 });
    expect(bert.podNodes).toEqual(['gpu-h100-01']);
    // Argo CD-like sync applied the Service; its one endpoint is the one Ready replica.
    expect(result.services).toEqual([
      {
        namespace: 'algorithms',
        name: 'resnet50-infer',
        ports: ['http 8000→http', 'grpc 8001→grpc', 'metrics 8002→metrics'],
        readyPods: 1,
      },
    ]);
  });

  it('holds the desired state at main of the GitOps repo', () => {
    const root = 'clusters/demo';
    const deployment = atMain(result.origin, `${root}/algorithms/resnet50-infer/deployment.yaml`);
    expect(deployment.spec.replicas).toBe(1);
    expect(deployment.spec.template.spec.nodeSelector).toEqual({ 'gpuops.dev/pool': 'short-task' });
    expect(deployment.spec.template.spec.affinity.nodeAffinity).toEqual({
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [
          { matchExpressions: [{ key: 'nvidia.com/gpu.product', operator: 'In', values: ['Tesla-T4'] }] },
        ],
      },
    });
    const returned = atMain(result.origin, `${root}/nodes/gpu-t4-01.yaml`).metadata;
    expect(returned.labels['gpuops.dev/pool']).toBe('unused');
    expect(returned.annotations['gpuops.dev/moved-by']).toBeUndefined();
    const moved = atMain(result.origin, `${root}/nodes/gpu-t4-03.yaml`).metadata;
    expect(moved.labels['gpuops.dev/pool']).toBe('short-task');
    expect(moved.annotations['gpuops.dev/moved-by']).toBe('gpuops');
    expect(atMain(result.origin, `${root}/nodes/gpu-a100-02.yaml`).metadata.labels['gpuops.dev/pool']).toBe(
      'test',
    );
    // No kustomization anywhere (Argo CD reads the folder with recurse); the namespace comes from Git.
    expect(
      result.mainFiles.filter((f) => f.startsWith(`${root}/`) && f.endsWith('kustomization.yaml')),
    ).toEqual([]);
    const nsFile = execFileSync(
      'git',
      ['-C', result.origin, 'show', `main:${root}/namespaces/algorithms.yaml`],
      {
        encoding: 'utf8',
      },
    );
    expect(parseAllDocuments(nsFile).map((d) => d.toJS().kind)).toEqual(['Namespace', 'RoleBinding']);
    expect(result.mainFiles.some((f) => f.includes('whisper-asr'))).toBe(false);
    // Issue 24: the Triton-style service declares ports, so its folder holds a Service selecting
    // exactly its pods; the batch task declares none and gets none.
    const service = atMain(result.origin, `${root}/algorithms/resnet50-infer/service.yaml`);
    expect(service.spec.selector).toEqual(deployment.spec.selector.matchLabels);
    expect(service.spec.ports.map((p: { name: string; port: number }) => `${p.name}:${p.port}`)).toEqual([
      'http:8000',
      'grpc:8001',
      'metrics:8002',
    ]);
    expect(result.mainFiles.filter((f) => f.endsWith('/service.yaml'))).toEqual([
      `${root}/algorithms/resnet50-infer/service.yaml`,
    ]);
    expect(deployment.spec.template.spec.containers[0].readinessProbe.httpGet).toEqual({
      path: '/v2/health/ready',
      port: 'http',
    });
    // A person's merge commit on main for each merged branch.
    const merges = execFileSync('git', ['-C', result.origin, 'log', '--merges', '--format=%an %s', 'main'], {
      encoding: 'utf8',
    });
    expect(merges).toContain("Demo Reviewer Merge branch 'gpuops/demo/pools'");
  });

  it('records every pull request (branch) in the database as merged', async () => {
    const store = await openStore(result.database);
    try {
      const prs = await store.pullRequests('demo');
      expect(prs.map((p) => [p.branch, p.state]).sort()).toEqual([
        ['gpuops/demo/placement/bert-train', 'merged'],
        ['gpuops/demo/placement/resnet50-infer', 'merged'],
        ['gpuops/demo/pools', 'merged'],
        ['gpuops/demo/scale/bert-train', 'merged'],
        ['gpuops/demo/scale/resnet50-infer', 'merged'],
      ]);
      expect(prs.find((p) => p.branch === 'gpuops/demo/scale/resnet50-infer')!.title).toContain(
        'from 2 to 1',
      );
    } finally {
      await store.close();
    }
  });

  it('reports the invalid spec with its location and never benchmarks or places it', () => {
    // libsql takes read-only from SQLite's URI parameter (its `readonly` option is ignored).
    const db = new Database(`${pathToFileURL(result.database.slice('sqlite:'.length)).href}?mode=ro`);
    try {
      const runs = db.prepare('SELECT algorithm, COUNT(*) AS n FROM benchmark_runs GROUP BY algorithm').all();
      expect(runs).toEqual([
        { algorithm: 'bert-train', n: 1 },
        { algorithm: 'resnet50-infer', n: 3 },
      ]);
    } finally {
      db.close();
    }
    expect(result.specErrors).toContainEqual(
      expect.objectContaining({
        file: 'algorithms/whisper-asr.yaml',
        line: 14,
        field: 'spec.resources.gpu',
      }),
    );
    expect(result.algorithms.map((a) => a.name)).not.toContain('whisper-asr');
    expect(result.deployments.map((d) => d.name)).not.toContain('whisper-asr');
  });
});

describe('node bin/gpuops.js demo', () => {
  it('exits 0 and prints the summary (its wall time is a benchmark figure, not asserted here)', async () => {
    const dir = path.join(tempDir(), 'demo');
    const { code, stdout, stderr } = await new Promise<{
      code: number | null;
      stdout: string;
      stderr: string;
    }>((resolve) => {
      const child = spawn(process.execPath, ['bin/gpuops.js', 'demo', '--dir', dir], {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (b: Buffer) => (out += b.toString()));
      child.stderr.on('data', (b: Buffer) => (err += b.toString()));
      const timer = setTimeout(() => child.kill('SIGKILL'), 170_000);
      child.on('close', (c) => {
        clearTimeout(timer);
        resolve({ code: c, stdout: out, stderr: err });
      });
    });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain('Step 4 of 4');
    // Simulated time against real time, no speed-up claimed (issue 16 item 8).
    expect(stdout).toMatch(
      /^Done: the four steps in \d+ reconcile passes: [\d,]+ simulated seconds in \d+\.\d s\.$/m,
    );
    expect(stdout).toMatch(/^resnet50-infer\s+short-task\s+45 s\s+1\s+1\s+50 %/m);
    expect(stdout).toMatch(/^unused\s+1\s+4\s+gpu-t4-01 \(returned after it stayed empty\)/m);
    expect(stdout).toMatch(/^merged\s+pools\s+gpuops\/demo\/pools/m);
    expect(stdout).toContain(`git -C ${dir}/origin.git log --all`);
    expect(stdout).toContain(`--database sqlite:${dir}/gpuops.db`);
  }, 180_000);
});
