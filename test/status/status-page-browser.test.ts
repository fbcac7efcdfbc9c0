/**
 * The status page in a real browser: `gpuops run` (a real process) against the simulated cluster
 * with the mixed fixture, a GitOps origin holding the example algorithms, and a database that
 * already holds an hour of bert-train's utilisation and one scale-up. Debian's chromium, driven by
 * playwright-core, opens `/` of the health port with JavaScript disabled; the pools, the left-out
 * nodes with their reasons and a utilisation chart must be there, and a screenshot is saved.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimCluster, type SimCluster } from '../../src/sim/index.js';
import { openStore } from '../../src/store/index.js';
import { until } from '../support/wait.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = path.join(ROOT, 'bin/gpuops.js');
const FIXTURE = path.join(ROOT, 'test/fixtures/cluster-mixed');
const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

let sim: SimCluster;
let work: string;
let child: ChildProcess | undefined;
let exit: Promise<number | null> | undefined;
let browser: Browser | undefined;
const lines: string[] = [];

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    // CI installs chromium (.ci/install-services.sh); a missing browser is a failure there.
    throw new Error(`${CHROMIUM} is missing: apt-get install chromium`);
  }
  work = mkdtempSync(path.join(tmpdir(), 'gpuops-status-page-'));
  sim = await startSimCluster({
    nodes: JSON.parse(readFileSync(path.join(FIXTURE, 'nodes.json'), 'utf8')),
    pods: JSON.parse(readFileSync(path.join(FIXTURE, 'pods.json'), 'utf8')),
  });
  sim.writeKubeconfig(path.join(work, 'kubeconfig.yaml'));

  const seed = path.join(work, 'seed');
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
      stdio: 'ignore',
    });
  git('init', '-q', '-b', 'main', seed);
  cpSync(path.join(ROOT, 'examples/gitops-repo/algorithms'), path.join(seed, 'algorithms'), {
    recursive: true,
  });
  git('-C', seed, 'add', '-A');
  git('-C', seed, 'commit', '-q', '-m', 'algorithms');
  git('clone', '-q', '--bare', seed, path.join(work, 'origin.git'));

  // An hour of utilisation and one scale-up, as earlier passes would have stored them.
  const store = await openStore(`sqlite:${path.join(work, 'state.db')}`);
  const now = Date.now();
  await store.saveSamples(
    Array.from({ length: 60 }, (_, i) => ({
      algorithm: 'bert-train',
      namespace: 'algorithms',
      pod: `bert-train-${i % 2}`,
      utilization: 50 + (i % 2) * 30 + (i % 7),
      at: new Date(now - (60 - i) * 60_000).toISOString(),
    })),
  );
  await store.recordDecision({
    kind: 'scaling',
    subject: 'bert-train',
    action: 'scale-up',
    reason: 'AboveMax',
    message: 'utilisation 91 % above 80 %: 1 → 2',
    replicasFrom: 1,
    replicasTo: 2,
    utilization: 91,
    at: new Date(now - 30 * 60_000).toISOString(),
  });
  await store.close();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  await exit;
  await sim?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('status page', () => {
  it('gpuops run serves pools and a utilisation chart that chromium renders', async () => {
    child = spawn(
      process.execPath,
      [
        BIN,
        'run',
        '--kubeconfig',
        path.join(work, 'kubeconfig.yaml'),
        '--cluster',
        'e2e',
        '--repo-url',
        `file://${path.join(work, 'origin.git')}`,
        '--database',
        `sqlite:${path.join(work, 'state.db')}`,
        '--interval',
        '30',
        '--health-port',
        '0',
        '--lease-namespace',
        'gpuops-system',
        '--identity',
        'status-page-test',
      ],
      {
        cwd: work,
        env: {
          ...process.env,
          KUBECONFIG: '',
          POD_NAME: '',
          POD_NAMESPACE: '',
          GPUOPS_CACHE_DIR: path.join(work, 'cache'),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    exit = new Promise((r) => child!.on('exit', (code) => r(code)));
    const collect = (b: Buffer) => lines.push(...b.toString().split('\n').filter(Boolean));
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
    const port = await until(
      'the health server',
      () => {
        const l = lines.find((x) => x.includes('"health server listening"'));
        return l ? (JSON.parse(l) as { port: number }).port : child!.exitCode !== null ? -1 : undefined;
      },
      30_000,
    );
    expect(port, lines.slice(-20).join('\n')).toBeGreaterThan(0);
    const url = `http://127.0.0.1:${port}/`;
    // The first pass stores a snapshot and the fleet status; until then the page says so.
    await until(
      'a pass to store the pools',
      async () => {
        const html = await (await fetch(url)).text();
        return html.includes('gpu-a100-01') &&
          html.includes('id="alg-bert-train"') &&
          html.includes('gpuops/e2e/pools')
          ? true
          : undefined;
      },
      90_000,
      250,
    )
      .catch((err: Error) => {
        throw new Error(`${err.message}; gpuops run logged:\n${lines.slice(-15).join('\n')}`);
      })
      .catch(async (err: Error) => {
        throw new Error(`${err.message}\npage:\n${await (await fetch(url)).text()}`);
      });

    // The fleet gauges the dashboard and alerts use, read from the same database.
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(metrics).toMatch(/^gpuops_pool_nodes\{pool="test"\} 1$/m);
    expect(metrics).toMatch(/^gpuops_pool_nodes\{pool="none"\} 6$/m);
    expect(metrics).toMatch(/^gpuops_pull_requests_open\{kind="pools"\} 1$/m);
    expect(metrics).toMatch(
      /^gpuops_algorithm_utilization_band_percent\{algorithm="bert-train",bound="max"\} 80$/m,
    );

    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    const page = await browser.newPage({ javaScriptEnabled: false, viewport: { width: 1200, height: 900 } });
    const res = await page.goto(url);
    expect(res?.status()).toBe(200);
    expect(await page.title()).toBe('gpuops · e2e');

    const pools = await page.locator('#pools').innerText();
    for (const pool of ['test', 'unused', 'long-task', 'short-task']) expect(pools).toContain(pool);
    // Left-out GPU nodes with the reason from the fixture's traps.
    expect(pools).toMatch(/gpu-a100-04\s+\S+\s+MIGOnly/);
    expect(pools).toMatch(/gpu-h100-02\s+\S+\s+Cordoned/);
    expect(pools).toContain('2 nodes without GPUs');

    const chart = page.locator('#alg-bert-train svg.chart');
    await expect.poll(() => chart.count()).toBe(1);
    const box = await chart.boundingBox();
    expect(box!.width).toBeGreaterThan(300);
    expect(await chart.locator('polyline.mean').count()).toBeGreaterThan(0);
    expect(await chart.locator('polygon.envelope').count()).toBeGreaterThan(0);
    expect(await chart.locator('line.marker').count()).toBe(1);
    expect(await chart.locator('rect.band').count()).toBe(1);

    // GPUOPS_SCREENSHOT_DIR keeps the screenshot (e.g. as a CI artifact); else it goes with the temp dir.
    const shot = path.join(process.env.GPUOPS_SCREENSHOT_DIR ?? work, 'status-page.png');
    await page.screenshot({ path: shot, fullPage: true });
    expect(statSync(shot).size).toBeGreaterThan(10_000);
    expect(readFileSync(shot).subarray(1, 4).toString()).toBe('PNG');
  }, 180_000);
});
