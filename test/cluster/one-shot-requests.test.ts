/**
 * Issue 26 item 1 (regression guard): a one-shot pass — `gpuops plan` on the live cluster and
 * `gpuops reconcile --once` (dry run and real) — asks the API server for its lists and nothing
 * else: Nodes, live Pods and ReplicaSets, each page by page; no discovery (`/api`, `/apis`,
 * `/openapi`), no per-object GET, no watch. The simulated cluster over HTTP counts every request
 * by verb and path; 1,100 pods make three pod pages (500 a page), so a request per object or per
 * read would show.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startSimCluster, type KubeObject, type SimCluster } from '../../src/sim/index.js';
import { algorithmFile, gpuNode } from '../support/reconcile-harness.js';
import { runMain } from '../support/run-main.js';

const PODS = 1100;
let sim: SimCluster;
let work: string;
let seed: string;
let origin: string;
let kubeconfig: string;

const git = (...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
    encoding: 'utf8',
  });

function pod(i: number): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `web-${i}`, namespace: 'default', uid: `uid-${i}` },
    spec: { nodeName: `gpu-${i % 3}`, containers: [{ name: 'c', image: 'nginx' }] },
    status: { phase: 'Running' },
  };
}

beforeAll(async () => {
  sim = await startSimCluster({
    nodes: [gpuNode('gpu-0', 2), gpuNode('gpu-1', 4, 'short-task'), gpuNode('gpu-2', 2)],
    pods: Array.from({ length: PODS }, (_, i) => pod(i)),
  });
  work = mkdtempSync(path.join(tmpdir(), 'gpuops-one-shot-'));
  kubeconfig = path.join(work, 'kubeconfig');
  sim.writeKubeconfig(kubeconfig);
  seed = path.join(work, 'seed');
  mkdirSync(path.join(seed, 'algorithms'), { recursive: true });
  writeFileSync(path.join(seed, 'README.md'), '# gitops\n');
  writeFileSync(path.join(seed, 'algorithms/yolo.yaml'), algorithmFile('yolo', { pool: 'short-task' }));
  git('init', '-q', '-b', 'main', seed);
  git('-C', seed, 'add', '-A');
  git('-C', seed, 'commit', '-q', '-m', 'seed');
  origin = path.join(work, 'origin.git');
  git('clone', '-q', '--bare', seed, origin);
  vi.stubEnv('GPUOPS_CACHE_DIR', path.join(work, 'cache'));
});

afterAll(async () => {
  vi.unstubAllEnvs();
  await sim?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** The requests the simulated cluster served while `f` ran, by `VERB path`. */
async function requestsOf(f: () => Promise<{ code: number; err: string }>): Promise<Record<string, number>> {
  const before = sim.requests().byPath;
  const r = await f();
  expect(r.code, r.err).toBe(0);
  const out: Record<string, number> = {};
  for (const [k, n] of Object.entries(sim.requests().byPath)) {
    const d = n - (before[k] ?? 0);
    if (d > 0) out[k] = d;
  }
  return out;
}

/** One list each; Pods in ⌈1,100 / 500⌉ = 3 pages (live pods: Succeeded/Failed filtered by the server). */
const LISTS = {
  'LIST /api/v1/nodes': 1,
  'LIST /api/v1/pods': 3,
  'LIST /apis/apps/v1/replicasets': 1,
  // Every HPA: another autoscaler on an algorithm's Deployment holds gpuops's scaling of it.
  'LIST /apis/autoscaling/v2/horizontalpodautoscalers': 1,
};

describe('a one-shot pass asks the API server for its lists only', { timeout: 90_000 }, () => {
  const connection = () => [
    '--repo-url',
    `file://${origin}`,
    '--kubeconfig',
    kubeconfig,
    '--database',
    `sqlite:${path.join(work, 'gpuops.db')}`,
  ];

  it('gpuops plan on the live cluster: the lists, nothing else', async () => {
    expect(await requestsOf(() => runMain('plan', '--repo', seed, '--kubeconfig', kubeconfig))).toEqual(
      LISTS,
    );
  });

  it('gpuops reconcile --once --dry-run: the same lists', async () => {
    expect(await requestsOf(() => runMain('reconcile', '--once', '--dry-run', ...connection()))).toEqual(
      LISTS,
    );
  });

  it('gpuops reconcile --once, twice (the second with nothing changed): the same lists each time', async () => {
    expect(await requestsOf(() => runMain('reconcile', '--once', ...connection()))).toEqual(LISTS);
    expect(await requestsOf(() => runMain('reconcile', '--once', ...connection()))).toEqual(LISTS);
  });
});
