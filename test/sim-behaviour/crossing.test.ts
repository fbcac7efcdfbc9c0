/**
 * The event-driven reaction of `gpuops run`, end to end on the simulated cluster over HTTP: the
 * running controller as `gpuops run` composes it (`startRunningController`: the watch-driven
 * cache, leader election on the Lease, the crossing trigger reading the node's dcgm-exporter page
 * every second, the periodic pass as backstop) with a periodic interval of 600 s. bert (1 replica,
 * band 30–80 %) is placed and Running; its load steps from 50 to 300 GPU-percent on the metrics
 * side:
 * - patch mode: within seconds of the step, far before the periodic pass, a second pass patches
 *   the Deployment's scale 1 → 2 and commits `replicas: 2` to `main`; while bert stays above its
 *   band (both replicas at 100 % on the page) the trigger keeps reading and nothing more is written
 *   (the scale-up cooldown holds the decision);
 * - pull-request mode: the same step pushes the branch `gpuops/prod/scale/bert` with `replicas: 2`;
 *   the Deployment stays at 1 until the merge;
 * - the trigger off (`gpuops run --no-watch`): the same step, and in the same time nothing is read
 *   between passes and nothing is written.
 */
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningController } from '../../src/controller/run-controller.js';
import { git } from '../gitops/helpers.js';
import { passesDone as passesIn, startCrossingRun } from '../support/crossing-run.js';
import { algorithmFile, gpuNode, startHarness, type Harness } from '../support/reconcile-harness.js';
import { sleep, until } from '../support/wait.js';

/** The periodic pass's interval (s): no periodic pass runs after the first within a test. */
const INTERVAL = 600;
/** The crossing trigger's interval (s). */
const WATCH = 1;
/** How long a row watches for a write after the step (s): far less than INTERVAL. */
const WINDOW = 30;

const policy = (mode: 'patch' | 'pull-request') =>
  [
    'apiVersion: gpuops.dev/v1alpha1',
    'kind: Policy',
    'metadata: {name: test}',
    'spec:',
    '  scaling:',
    `    mode: ${mode}`,
    '    utilization: {min: 30, max: 80}',
    // The default cooldown: once scaled up, the decision holds for 120 s.
    '    scaleUp: {cooldownSeconds: 120, stabilizationWindowSeconds: 0}',
    '',
  ].join('\n');

/** The dcgm-exporter pod of gpu-s1, as the GPU Operator's DaemonSet runs it. */
const EXPORTER = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'nvidia-dcgm-exporter-s1',
    namespace: 'gpu-operator',
    labels: { app: 'nvidia-dcgm-exporter' },
  },
  spec: {
    nodeName: 'gpu-s1',
    containers: [{ name: 'exporter', image: 'nvcr.io/nvidia/k8s/dcgm-exporter:4.2.3' }],
  },
  status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
};

const CROSSING = 'utilisation left its band: starting a pass';
const SCALE_BRANCH = 'gpuops/prod/scale/bert';
const DEPLOYMENT = 'clusters/prod/algorithms/bert/deployment.yaml';

let h: Harness;
let dir: string;
let page: Server;
/** Readings of the dcgm-exporter page (by the passes and the trigger). */
let readings = 0;
let logs: Record<string, unknown>[] = [];

const deployment = () => h.sim.store.get('deployments', 'algorithms', 'bert');
const replicas = () => (deployment()?.spec as { replicas: number }).replicas;
const mainHead = () => h.ref('main');
const passesDone = () => passesIn(logs);
/** bert's utilisation per pod on the node's page, as the trigger reads it. */
async function pageValues(): Promise<number[]> {
  const text = await (await fetch(`${h.sim.url}/dcgm/gpu-s1/metrics`)).text();
  return [...text.matchAll(/^DCGM_FI_DEV_GPU_UTIL\{[^}]*pod="bert-[^"]*"[^}]*\} (\S+)/gm)].map((m) =>
    Number(m[1]),
  );
}

/** `gpuops run` with `watchSeconds` (null: `--no-watch`), its first pass done. */
async function run(id: string, watchSeconds: number | null): Promise<RunningController> {
  const r = await startCrossingRun({
    id,
    settings: {
      repoUrl: h.repo.url,
      cluster: 'prod',
      kubeconfig: path.join(dir, 'kubeconfig.yaml'),
      database: `sqlite:${path.join(dir, `${id}.db`)}`,
      dcgmUrl: [`http://127.0.0.1:${(page.address() as AddressInfo).port}/metrics`],
    },
    intervalSeconds: INTERVAL,
    watchSeconds,
    firstPassMs: 60_000,
  });
  logs = r.logs;
  return r.controller;
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'gpuops-crossing-'));
  process.env.GPUOPS_CACHE_DIR = path.join(dir, 'cache');
  h = await startHarness({
    nodes: [gpuNode('gpu-s1', 8, 'short-task')],
    // The node's dcgm-exporter (its page's Hostname names it, so the pass knows the page's node).
    pods: [EXPORTER],
    files: {
      'README.md': '# gitops\n',
      'algorithms/bert.yaml': algorithmFile('bert', { pool: 'short-task' }),
      'policies/test.yaml': policy('patch'),
    },
    behaviour: { startupSeconds: 1 },
  });
  h.sim.writeKubeconfig(path.join(dir, 'kubeconfig.yaml'));
  // The node's dcgm-exporter page, each reading counted.
  page = createServer((_req, res) => {
    readings++;
    void fetch(`${h.sim.url}/dcgm/gpu-s1/metrics`)
      .then((r) => r.text())
      .then((t) => res.writeHead(200, { 'content-type': 'text/plain' }).end(t));
  });
  await new Promise<void>((r) => page.listen(0, '127.0.0.1', r));
  await h.pass();
  h.merge('gpuops/prod/pools');
  h.merge('gpuops/prod/placement/bert');
  await h.sync();
  await until('bert Ready', async () => (await pageValues()).length === 1, 20_000, 100);
}, 120_000);

afterAll(async () => {
  await new Promise((r) => page?.close(r));
  await h?.close();
  delete process.env.GPUOPS_CACHE_DIR;
  rmSync(dir, { recursive: true, force: true });
});

describe('gpuops run reacts on the crossing, not on the tick (periodic pass every 600 s, trigger every 1 s)', () => {
  it('the trigger off (--no-watch): after the step nothing is read between passes and nothing is written', async () => {
    h.load.setLoad('bert', 50);
    const c = await run('no-watch', null);
    try {
      const [head, before] = [mainHead(), readings];
      h.load.setLoad('bert', 300);
      await sleep((WINDOW * 1000) / 3);
      expect(await pageValues()).toEqual([100]);
      expect(passesDone()).toBe(1);
      expect(readings).toBe(before);
      expect(replicas()).toBe(1);
      expect(mainHead()).toBe(head);
      expect(h.branches()).not.toContain(SCALE_BRANCH);
    } finally {
      await c.stop();
    }
  }, 120_000);

  it('pull-request mode: the step pushes the scale branch within seconds; the Deployment waits for the merge', async () => {
    h.push({ 'policies/test.yaml': policy('pull-request') }, 'scaling by pull request');
    h.load.setLoad('bert', 50);
    const c = await run('watch-pr', WATCH);
    try {
      const head = mainHead();
      const t0 = Date.now();
      h.load.setLoad('bert', 300);
      const branch = await until(
        'the scale branch',
        () => h.ref(SCALE_BRANCH) ?? undefined,
        WINDOW * 1000,
        50,
      );
      const seconds = (Date.now() - t0) / 1000;
      expect(seconds).toBeLessThan(WINDOW);
      await until('the pass done', () => passesDone() === 2, 10_000, 50);
      expect(h.file(SCALE_BRANCH, DEPLOYMENT)).toMatch(/replicas: 2/);
      expect(h.file('main', DEPLOYMENT)).toMatch(/replicas: 1/);
      // Still out of band (the pull request waits): the trigger reads on, nothing more is written.
      const after = readings;
      await sleep(5000);
      expect(await pageValues()).toEqual([100]);
      expect(readings - after).toBeGreaterThanOrEqual(3);
      expect(passesDone()).toBe(2);
      expect(h.ref(SCALE_BRANCH)).toBe(branch);
      expect(mainHead()).toBe(head);
      expect(replicas()).toBe(1);
      console.log(`pull-request mode: load step → scale branch pushed in ${seconds} s`);
    } finally {
      await c.stop();
    }
    // Not merged: the next row starts without it.
    git(h.repo.remote, 'branch', '-D', SCALE_BRANCH);
  }, 120_000);

  it('patch mode: the step is patched and committed within seconds; no second write while bert stays above its band', async () => {
    h.push({ 'policies/test.yaml': policy('patch') }, 'scaling by patch');
    h.load.setLoad('bert', 50);
    const c = await run('watch-patch', WATCH);
    try {
      const head = mainHead();
      const t0 = Date.now();
      h.load.setLoad('bert', 300);
      await until('the scale patch', () => replicas() === 2, WINDOW * 1000, 50);
      const seconds = (Date.now() - t0) / 1000;
      await until('the commit', () => mainHead() !== head, 10_000, 50);
      expect(seconds).toBeLessThan(WINDOW);
      await until('the pass done', () => passesDone() === 2, 10_000, 50);
      expect(h.file('main', DEPLOYMENT)).toMatch(/replicas: 2/);
      expect(git(h.repo.remote, 'rev-list', '--count', `${head}..main`)).toBe('1');
      // Out of band still (two replicas at 100 %): the trigger reads on, nothing more is written.
      await until('the second replica Ready', async () => (await pageValues()).length === 2, 20_000, 100);
      const [after, commit] = [readings, mainHead()];
      await sleep(5000);
      expect(await pageValues()).toEqual([100, 100]);
      expect(readings - after).toBeGreaterThanOrEqual(3);
      expect(passesDone()).toBe(2);
      expect(replicas()).toBe(2);
      expect(mainHead()).toBe(commit);
      console.log(`patch mode: load step → scale patch in ${seconds} s`);
    } finally {
      await c.stop();
    }
  }, 120_000);

  it('a stop while the triggered pass is in flight: the pass finishes, the Lease is released, the stop returns in seconds', async () => {
    // Two replicas at 50 % each: in band, then a step that takes them out.
    h.load.setLoad('bert', 100);
    const c = await run('watch-stop', WATCH);
    const from = replicas();
    h.load.setLoad('bert', 300);
    await until('the crossing', () => logs.some((l) => l.msg === CROSSING), WINDOW * 1000, 20);
    const t0 = Date.now();
    expect(await c.stop()).toBe(2);
    // The wait after the pass ends with the stop (not after the 600 s interval).
    expect((Date.now() - t0) / 1000).toBeLessThan(WINDOW);
    expect(replicas()).toBe(from + 1);
    const lease = h.sim.store.get('leases', 'gpuops-system', 'gpuops-prod');
    expect((lease?.spec as { holderIdentity?: string }).holderIdentity ?? '').toBe('');
  }, 120_000);
});
