/**
 * Issue 26 item 2: a real `gpuops run` process (`node bin/gpuops.js run`) on the simulated
 * cluster over HTTP. Its `/metrics` exposes the watch-driven cluster cache (synced per resource,
 * the last relist, events per second and their totals), and when the cache stops being synced —
 * history compacted, streams cut, and the pods relist held by the test in front of the API — the
 * metrics say 0, the status page at `/` and `gpuops status --controller-url` say
 * `ClusterCacheNotSynced` and why, and all of it recovers once the relist completes.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimCluster, type SimCluster } from '../../src/sim/index.js';
import type { StatusView } from '../../src/status/model.js';
import { fixture } from '../support/cluster-mixed.js';
import { runMain } from '../support/run-main.js';
import { until } from '../support/wait.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = path.join(ROOT, 'bin/gpuops.js');
const RESOURCES = ['nodes', 'pods', 'replicasets', 'horizontalpodautoscalers'];

let sim: SimCluster;
let work: string;
let child: ChildProcess;
let exit: Promise<number | null>;
const lines: string[] = [];
let base = '';
/** Pod lists the test holds in front of the API (the cache's relist), and their releases. */
const gate = { holdPodLists: false, held: [] as (() => void)[] };

beforeAll(async () => {
  const route = async (_req: IncomingMessage, _res: ServerResponse, url: URL): Promise<boolean> => {
    if (url.pathname === '/api/v1/pods' && url.searchParams.get('watch') !== 'true' && gate.holdPodLists)
      await new Promise<void>((release) => gate.held.push(release));
    return false;
  };
  sim = await startSimCluster({ nodes: fixture('nodes.json'), pods: fixture('pods.json'), routes: [route] });
  work = mkdtempSync(path.join(tmpdir(), 'gpuops-run-cache-'));
  const kubeconfig = path.join(work, 'kubeconfig.yaml');
  sim.writeKubeconfig(kubeconfig);
  const seed = path.join(work, 'seed');
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
      stdio: 'ignore',
    });
  git('init', '-q', '-b', 'main', seed);
  git('-C', seed, 'commit', '-q', '--allow-empty', '-m', 'init');
  git('clone', '-q', '--bare', seed, path.join(work, 'origin.git'));
  // The process's own: a real `gpuops run` with its database (the status page reads it).
  child = spawn(
    process.execPath,
    [
      BIN,
      'run',
      ...[
        '--kubeconfig',
        kubeconfig,
        '--cluster',
        'e2e',
        '--repo-url',
        `file://${path.join(work, 'origin.git')}`,
      ],
      ...['--database', `sqlite:${path.join(work, 'gpuops.db')}`, '--interval', '1', '--health-port', '0'],
      ...['--lease-namespace', 'gpuops-system', '--lease-name', 'gpuops-cache', '--identity', 'cache-a'],
      ...['--lease-duration', '3', '--retry-period', '0.5'],
    ],
    {
      cwd: work,
      env: {
        ...process.env,
        POD_NAME: '',
        POD_NAMESPACE: '',
        KUBECONFIG: '',
        GPUOPS_CACHE_DIR: path.join(work, 'cache'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let buffered = '';
  const collect = (chunk: Buffer) => {
    buffered += chunk.toString();
    for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
      lines.push(buffered.slice(0, nl));
      buffered = buffered.slice(nl + 1);
    }
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  exit = new Promise((r) => child.on('exit', (code) => r(code)));
  const listening = await until(
    'the health server',
    () => {
      if (child.exitCode !== null) throw new Error(`gpuops run exited:\n${lines.slice(-20).join('\n')}`);
      const line = lines.find((l) => l.includes('"health server listening"'));
      return line ? (JSON.parse(line) as { port: number }) : undefined;
    },
    60_000,
  );
  base = `http://127.0.0.1:${listening.port}`;
});

afterAll(async () => {
  gate.holdPodLists = false;
  for (const release of gate.held) release();
  if (child && child.exitCode === null) child.kill('SIGKILL');
  await exit;
  await sim?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Every series of one metric on the controller's `/metrics`: `{labels} → value`. */
async function scrape(metric: string): Promise<Map<string, number>> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const out = new Map<string, number>();
  for (const m of text.matchAll(new RegExp(`^${metric}\\{([^}]*)\\} (\\S+)$`, 'gm')))
    out.set(m[1]!, Number(m[2]));
  return out;
}

const byResource = async (metric: string) => {
  const series = await scrape(metric);
  return Object.fromEntries(RESOURCES.map((r) => [r, series.get(`resource="${r}"`)]));
};

async function status(...args: string[]): Promise<string> {
  const r = await runMain('status', '--controller-url', base, ...args);
  expect(r.code, r.err).toBe(0);
  return r.out;
}

describe('gpuops run: the cluster cache on /metrics and on the status', { timeout: 120_000 }, () => {
  it('/metrics: every resource synced, its last relist, events per second counting pod changes', async () => {
    expect(await byResource('gpuops_cluster_cache_synced')).toEqual({
      nodes: 1,
      pods: 1,
      replicasets: 1,
      horizontalpodautoscalers: 1,
    });
    const relist = await byResource('gpuops_cluster_cache_last_relist_timestamp_seconds');
    for (const r of RESOURCES) expect(Date.now() / 1000 - relist[r]!).toBeLessThan(120);
    const pods = sim.store.list('pods');
    expect((await byResource('gpuops_cluster_cache_objects')).pods).toBe(
      pods.filter((p) => !['Succeeded', 'Failed'].includes(p.status?.phase as string)).length,
    );
    const events0 = (await byResource('gpuops_cluster_cache_events_total')).pods!;
    for (let i = 0; i < 6; i++) {
      const next = structuredClone(
        sim.store.get('pods', pods[0]!.metadata.namespace, pods[0]!.metadata.name)!,
      );
      next.metadata.labels = { ...next.metadata.labels, 'test.gpuops.dev/change': String(i) };
      sim.store.update('pods', next);
    }
    await until(
      'six pod events counted',
      async () => (await byResource('gpuops_cluster_cache_events_total')).pods! >= events0 + 6,
    );
    // Over the last 60 s: at least the 6 changes.
    expect((await byResource('gpuops_cluster_cache_events_per_second')).pods).toBeGreaterThanOrEqual(
      6 / 60 - 1e-9,
    );
  });

  it('gpuops status --controller-url: the cache section from the running controller, every resource synced', async () => {
    const text = await status();
    expect(text).toMatch(/^gpuops status · cluster e2e · /);
    const section = text.slice(text.indexOf('CLUSTER CACHE'));
    for (const r of RESOURCES)
      expect(section).toMatch(new RegExp(`^  ${r} +synced +watch connected +last relist 20`, 'm'));
    expect(text).not.toContain('cluster cache not synced');
  });

  it('while the pods relist after 410 is held: 0 on /metrics, and the page and gpuops status say passes are refused and why', async () => {
    gate.holdPodLists = true;
    sim.watchFaults.stall();
    const p = structuredClone(sim.store.list('pods')[0]!);
    p.metadata.labels = { ...p.metadata.labels, 'test.gpuops.dev/after': 'compaction' };
    sim.store.update('pods', p);
    sim.watchFaults.compact();
    sim.watchFaults.drop();
    await until('the relist held', () => gate.held.length > 0);
    await until(
      'pods not synced on /metrics',
      async () => (await byResource('gpuops_cluster_cache_synced')).pods === 0,
    );
    // The other resources relist at once (not held): wait for the view that names pods alone.
    const view = await until('only pods behind', async () => {
      const v = JSON.parse(await status('--output', 'json')) as StatusView;
      return v.cache!.filter((r) => !r.synced).length === 1 ? v : undefined;
    });
    expect(view.health.causes.map((c) => c.reason)).toContain('ClusterCacheNotSynced');
    expect(view.cache!.map((r) => [r.resource, r.synced])).toEqual([
      ['nodes', true],
      ['pods', false],
      ['replicasets', true],
      ['horizontalpodautoscalers', true],
    ]);
    const text = await status();
    expect(text.split('\n')[2]).toMatch(
      /^✖ Unhealthy: cluster cache not synced \(1 resource\), passes refused: pods: relisting after its watch expired \(watch pods: too old resource version/,
    );
    expect(text).toMatch(
      /^ {2}pods +NOT SYNCED +watch (dis)?connected +last relist 20\S+ +\d+ objects +\S+ events\/s +pods: relisting after its watch expired/m,
    );
    const page = await (await fetch(`${base}/`)).text();
    expect(page).toContain('data-level="critical"');
    expect(page).toMatch(/passes refused: pods: relisting after its watch expired/);
    expect(page).toContain('<td>pods</td><td><strong>no</strong></td>');
  });

  it('once the relist completes: synced again everywhere, one expired relist counted', async () => {
    gate.holdPodLists = false;
    for (const release of gate.held.splice(0)) release();
    await until(
      'pods synced again',
      async () => (await byResource('gpuops_cluster_cache_synced')).pods === 1,
    );
    expect((await scrape('gpuops_cluster_cache_relists_total')).get('resource="pods",reason="expired"')).toBe(
      1,
    );
    // A pass refused while pods were behind stays the last pass until the next one runs.
    await until(
      'the next pass: no cause names the cache',
      async () => !(await status()).includes('cluster cache not synced'),
    );
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
    // A controller that is gone: exit 1, naming the URL and why.
    const gone = await runMain('status', '--controller-url', base);
    expect(gone.code).toBe(1);
    expect(gone.err).toContain(`--controller-url ${base}: ECONNREFUSED`);
  });
});
