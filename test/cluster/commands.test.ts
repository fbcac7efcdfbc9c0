/** `gpuops plan` and `gpuops snapshot` end to end: dumps, the simulated cluster over HTTP, a SQLite file. */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { startSimCluster, type SimCluster } from '../../src/sim/index.js';
import { openStore } from '../../src/store/index.js';

const fixtureDir = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../fixtures/cluster-mixed');
const nodesFile = path.join(fixtureDir, 'nodes.json');
const podsFile = path.join(fixtureDir, 'pods.json');
const dir = mkdtempSync(path.join(tmpdir(), 'gpuops-cmd-'));

let sim: SimCluster;
let kubeconfig: string;
beforeAll(async () => {
  sim = await startSimCluster({
    nodes: JSON.parse(readFileSync(nodesFile, 'utf8')),
    pods: JSON.parse(readFileSync(podsFile, 'utf8')),
  });
  kubeconfig = path.join(dir, 'kubeconfig');
  sim.writeKubeconfig(kubeconfig);
});
afterAll(async () => {
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});
afterEach(() => {
  process.exitCode = undefined;
  vi.restoreAllMocks();
});

async function run(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((s) => ((out += String(s)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((s) => ((err += String(s)), true));
  const code = await main(['node', 'gpuops', ...args]);
  vi.restoreAllMocks();
  process.exitCode = undefined;
  return { code, out, err };
}

function repoWith(files: Record<string, string>): string {
  const repo = mkdtempSync(path.join(dir, 'repo-'));
  for (const [p, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(repo, p)), { recursive: true });
    writeFileSync(path.join(repo, p), content);
  }
  return repo;
}

describe('gpuops plan', () => {
  it('--nodes/--pods --output json: pools for every node, files, spec errors listed, exit 0', async () => {
    const repo = repoWith({
      'algorithms/bad.yaml':
        'apiVersion: gpuops.dev/v1alpha1\nkind: Algorithm\nmetadata: {name: bad}\nspec: {}\n',
    });
    const r = await run(
      'plan',
      '--repo',
      repo,
      '--cluster',
      'prod',
      '--nodes',
      nodesFile,
      '--pods',
      podsFile,
      '--output',
      'json',
    );
    expect(r.code).toBe(0);
    const plan = JSON.parse(r.out);
    expect(plan.cluster).toBe('prod');
    expect(plan.pools).toHaveLength(13);
    expect(plan.pools.find((p: { node: string }) => p.node === 'gpu-t4-05')).toMatchObject({
      from: null,
      to: null,
      reason: 'NoAllocatableGPU',
    });
    expect(plan.files).toContainEqual({ path: 'clusters/prod/nodes/gpu-a100-01.yaml', change: 'create' });
    expect(plan.errors.length).toBeGreaterThan(0);
    expect(plan.errors[0].file).toBe('algorithms/bad.yaml');
  });

  it('without dumps it reads the live cluster (the simulator) and shows the table', async () => {
    const repo = repoWith({});
    const r = await run('plan', '--repo', repo, '--kubeconfig', kubeconfig);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/gpu-h100-02\s+NVIDIA-H100-80GB-HBM3\s+0\/8\s+-\s+Cordoned: /);
    expect(r.out).toContain('create clusters/default/nodes/gpu-a100-01.yaml');
  });

  it('usage errors exit 2: --nodes without --pods, missing --repo', async () => {
    expect((await run('plan', '--repo', dir, '--nodes', nodesFile)).code).toBe(2);
    expect((await run('plan', '--nodes', nodesFile, '--pods', podsFile)).code).toBe(2);
  });

  it('a dump that is neither a NodeList nor one Node fails with the file named', async () => {
    const bad = path.join(dir, 'bad.json');
    writeFileSync(bad, '{"kind": "Pod"}');
    const r = await run('plan', '--repo', repoWith({}), '--nodes', bad, '--pods', podsFile);
    expect(r.code).toBe(1);
    expect(r.err).toContain(
      `${bad}: expected a NodeList (kubectl get nodes -o json) with items, or one Node; got a Pod`,
    );
  });

  it('one Node without a name fails with the file and the field named', async () => {
    const bad = path.join(dir, 'nameless.json');
    writeFileSync(bad, '{"kind": "Node"}');
    const r = await run('plan', '--repo', repoWith({}), '--nodes', bad, '--pods', podsFile);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`${bad}: metadata.name: a Node has a name; none here`);
    expect(r.err).not.toContain('items[0]');
  });
});

describe('gpuops snapshot', () => {
  it('reads the simulated cluster and stores the snapshot in SQLite', async () => {
    const db = `sqlite:${path.join(dir, 'state.db')}`;
    const r = await run('snapshot', '--kubeconfig', kubeconfig, '--database', db, '--output', 'json');
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const summary = JSON.parse(r.out);
    expect(summary).toMatchObject({
      nodes: 13,
      pods: 10,
      gpusAllocatable: 8 * 5 + 4 * 2 + 1 * 2,
      gpusForeign: 5,
    });
    const store = await openStore(db);
    try {
      const saved = await store.latestSnapshot();
      expect(saved?.nodes).toHaveLength(13);
      expect(saved?.nodes.find((n) => n.name === 'gpu-a100-03')).toMatchObject({ foreignGpuRequested: 4 });
    } finally {
      await store.close();
    }
  });
});
