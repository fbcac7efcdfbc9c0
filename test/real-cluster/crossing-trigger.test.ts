/**
 * The event-driven reaction of `gpuops run` on the real control plane: the running controller as
 * `gpuops run` composes it (`startRunningController`: the watch-driven cache, leader election on
 * the real Lease, the crossing trigger reading the cluster's Prometheus every second with the
 * pass's scoped query, the periodic pass as backstop every 600 s), as its ServiceAccount with the
 * shipped RBAC and the patch-mode component. `serve` (1 replica on a KWOK node, band 30–80 %) runs
 * at 50 %; its load steps to 100 % on the dcgm-exporter pages Prometheus scrapes:
 * - the trigger off (`--no-watch`): in the same time nothing is written, the Deployment stays at 1;
 * - the trigger on: within seconds of the step a second pass patches the Deployment's scale 1 → 2
 *   (the real API server's `spec.replicas`, kube-controller-manager's ReplicaSet runs 2) and
 *   commits `replicas: 2` to `main`; Flux's next apply of `main` keeps 2.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningController } from '../../src/controller/run-controller.js';
import { PrometheusSource } from '../../src/metrics/prometheus.js';
import { git } from '../gitops/helpers.js';
import { passesDone as passesIn, startCrossingRun } from '../support/crossing-run.js';
import { algorithmFile } from '../support/reconcile-harness.js';
import { describeReal, INSTALL, installRbac, startRealHarness, until, type RealHarness } from './harness.js';

/** The periodic pass's interval (s): no periodic pass runs after the first within a test. */
const INTERVAL = 600;
/** How long a row watches for a write after the step (s): far less than INTERVAL. */
const WINDOW = 60;
const DEPLOYMENT = 'clusters/prod/algorithms/serve/deployment.yaml';

const policy = [
  'apiVersion: gpuops.dev/v1alpha1',
  'kind: Policy',
  'metadata: {name: test}',
  'spec:',
  '  scaling:',
  '    mode: patch',
  '    engine: gpuops',
  '    windowSeconds: 5',
  '    staleSampleSeconds: 120',
  '    utilization: {min: 30, max: 80}',
  '    scaleUp: {cooldownSeconds: 120, stabilizationWindowSeconds: 0}',
  '',
].join('\n');

type Deployment = { spec: { replicas: number }; status?: { readyReplicas?: number } };

let h: RealHarness;
let dir: string;
let logs: Record<string, unknown>[] = [];
const deployment = () => h.get<Deployment>('/apis/apps/v1/namespaces/algorithms/deployments/serve');
const mainHead = () => git(h.repo.remote, 'rev-parse', 'main').trim();
const passesDone = () => passesIn(logs);

/** serve's utilisation per pod as the trigger reads it (Prometheus, the pass's 5 s window). */
async function reading(): Promise<number[]> {
  const source = new PrometheusSource({ url: h.local.prometheusUrl! });
  const r = await source.read({
    metric: 'DCGM_FI_DEV_GPU_UTIL',
    windowSeconds: 5,
    namespaces: ['algorithms'],
  });
  if (!r.ok) return [];
  return r.series.filter((s) => s.labels.pod?.startsWith('serve-')).map((s) => Math.round(s.value));
}

/** `gpuops run` as the ServiceAccount with `watchSeconds` (null: `--no-watch`), its first pass done. */
async function run(id: string, watchSeconds: number | null): Promise<RunningController> {
  const r = await startCrossingRun({
    id,
    settings: {
      repoUrl: h.repo.url,
      cluster: 'prod',
      kubeconfig: path.join(dir, 'kubeconfig.yaml'),
      database: `sqlite:${path.join(dir, `${id}.db`)}`,
      prometheusUrl: h.local.prometheusUrl!,
    },
    intervalSeconds: INTERVAL,
    watchSeconds,
    firstPassMs: 120_000,
  });
  logs = r.logs;
  return r.controller;
}

describeReal('gpuops run reacts on the crossing on the real control plane', () => {
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'gpuops-crossing-real-'));
    process.env.GPUOPS_CACHE_DIR = path.join(dir, 'cache');
    h = await startRealHarness({
      files: {
        'README.md': '# gitops\n',
        'algorithms/serve.yaml': algorithmFile('serve', { pool: 'short-task', maxReplicas: 3 }),
        'policies/test.yaml': policy,
      },
    });
    await installRbac(h.kc, path.join(INSTALL, 'components/patch-mode'));
    writeFileSync(path.join(dir, 'kubeconfig.yaml'), h.gpuopsKubeconfig);
    await h.addNodes([{ name: 'gpu-s', gpus: 3, labels: { 'gpuops.dev/pool': 'short-task' } }]);
    h.local.load.setLoad('serve', 50);
    await h.pass();
    h.merge('gpuops/prod/pools');
    await h.sync();
    await until('serve is placed', async () => (await h.pass()).plan.placements.some((p) => p.pool !== null));
    h.merge('gpuops/prod/placement/serve');
    await h.sync();
    await until('one replica Ready', async () => (await deployment()).status?.readyReplicas === 1);
    await until('Prometheus reads serve at 50 %', async () => (await reading()).join() === '50', 60_000);
  });
  afterAll(async () => {
    await h?.close();
    delete process.env.GPUOPS_CACHE_DIR;
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the trigger off (--no-watch): after the step nothing is written before the periodic pass', async () => {
    const c = await run('no-watch', null);
    try {
      const head = mainHead();
      h.local.load.setLoad('serve', 100);
      await until('Prometheus reads serve at 100 %', async () => (await reading()).join() === '100', 30_000);
      // As long again as the trigger-on row needs at most, and more.
      await new Promise((r) => setTimeout(r, 15_000));
      expect(passesDone()).toBe(1);
      expect((await deployment()).spec.replicas).toBe(1);
      expect(mainHead()).toBe(head);
    } finally {
      await c.stop();
    }
    h.local.load.setLoad('serve', 50);
    await until(
      'Prometheus reads serve at 50 % again',
      async () => (await reading()).join() === '50',
      60_000,
    );
  });

  it('the trigger on: the step is patched into the API server and committed within seconds; Flux keeps it', async () => {
    const c = await run('watch', 1);
    try {
      const head = mainHead();
      const t0 = Date.now();
      h.local.load.setLoad('serve', 100);
      await until('the scale patch', async () => (await deployment()).spec.replicas === 2, WINDOW * 1000);
      const seconds = (Date.now() - t0) / 1000;
      expect(seconds).toBeLessThan(WINDOW);
      await until('the pass done', async () => passesDone() === 2, 30_000);
      expect(h.file('main', DEPLOYMENT)).toMatch(/replicas: 2/);
      expect(git(h.repo.remote, 'rev-list', '--count', `${head}..main`).trim()).toBe('1');
      expect(logs.filter((l) => l.msg === 'utilisation left its band: starting a pass')).toHaveLength(1);
      await until('the ReplicaSet runs two', async () => (await deployment()).status?.readyReplicas === 2);
      // Flux applies main, which holds the same replicas.
      await h.sync();
      expect((await deployment()).spec.replicas).toBe(2);
      console.log(`real control plane: load step → scale patch in ${seconds} s`);
    } finally {
      await c.stop();
    }
  });
});
