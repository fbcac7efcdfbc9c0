/**
 * The status page in a real browser: `gpuops run` (a real process) against the simulated cluster
 * with the mixed fixture, a GitOps origin holding the example algorithms, and a database that
 * already holds an hour of bert-train's utilisation and one scale-up. Debian's chromium, driven by
 * playwright-core with a fresh profile, opens `/` of the health port with JavaScript disabled, at
 * a desktop width and a phone width: the summary line at the top, the pools, the left-out nodes
 * with their reasons, a utilisation chart whose time axis fits the hour (not a 24 h axis) with its
 * legend, the chart as wide as the page with labels that read (none overlapping another or leaving
 * its chart, `svgLabelProblems`), node names on one line, counts in the right number. The screenshots are kept as test
 * artefacts in `.tmp/artifacts/status/` (or $GPUOPS_SCREENSHOT_DIR).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimCluster, type SimCluster } from '../../src/sim/index.js';
import { openStore } from '../../src/store/index.js';
import { until } from '../support/wait.js';
import { svgLabelProblems } from '../support/svg-labels.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = path.join(ROOT, 'bin/gpuops.js');
const FIXTURE = path.join(ROOT, 'test/fixtures/cluster-mixed');
const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
/** Where the screenshots stay after the run (gitignored). */
const ARTIFACTS = process.env.GPUOPS_SCREENSHOT_DIR ?? path.join(ROOT, '.tmp/artifacts/status');

let sim: SimCluster;
let work: string;
let child: ChildProcess | undefined;
let exit: Promise<number | null> | undefined;
let browser: BrowserContext | undefined;
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
    // The test node, and a Tesla-T4 that resnet50-infer's named product (spec.gpu.product) needs
    // while its benchmark is due (issue 24).
    expect(metrics).toMatch(/^gpuops_pool_nodes\{pool="test"\} 2$/m);
    expect(metrics).toMatch(/^gpuops_pool_nodes\{pool="none"\} 6$/m);
    expect(metrics).toMatch(/^gpuops_pull_requests_open\{kind="pools"\} 1$/m);
    expect(metrics).toMatch(
      /^gpuops_algorithm_utilization_band_percent\{algorithm="bert-train",bound="max"\} 80$/m,
    );

    // A fresh profile of its own (playwright-core's persistent context is --user-data-dir).
    browser = await chromium.launchPersistentContext(path.join(work, 'chromium-profile'), {
      executablePath: CHROMIUM,
      args: CHROMIUM_ARGS,
      javaScriptEnabled: false,
      viewport: { width: 1200, height: 900 },
    });
    const page = browser.pages()[0] ?? (await browser.newPage());
    const res = await page.goto(url);
    expect(res?.status()).toBe(200);
    expect(await page.title()).toBe('gpuops · e2e');

    // The summary line comes first, says healthy or not in words and a symbol, and why.
    const health = page.locator('#health');
    expect(await page.locator('body > *').nth(1).getAttribute('id')).toBe('health');
    const line = await health.innerText();
    expect(line).toMatch(/^[✔⚠✖]\s*(Healthy|Degraded|Unhealthy): /);
    expect(line).toMatch(/last pass \d+ s ago/);
    // The pools pull request the first pass opened is not yet "waiting too long"; no cause is
    // critical right after a pass, so the page is not red.
    expect(await health.getAttribute('data-level')).not.toBe('critical');

    const pools = await page.locator('#pools').innerText();
    for (const pool of ['test', 'unused', 'long-task', 'short-task']) expect(pools).toContain(pool);
    // Counts in the right number: the test pool holds two nodes.
    expect(pools).toMatch(/test\s+2 nodes, \d+\/\d+ GPUs? free/);
    expect(pools).not.toMatch(/\b2 node\b/);
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
    // The hour of samples fills the chart: a 1 h or 2 h axis with clock ticks, and the mean line
    // spans most of the plot (it sat in the last 14 px of a 24 h axis).
    const ticks = await chart.locator('text.tick').allTextContents();
    expect(ticks.length).toBeGreaterThanOrEqual(4);
    for (const t of ticks) expect(t).toMatch(/^\d\d:\d\d$/);
    const xs = (await chart.locator('polyline.mean').first().getAttribute('points'))!
      .split(' ')
      .map((p) => Number(p.split(',')[0]));
    expect(Math.max(...xs) - Math.min(...xs)).toBeGreaterThan(150);
    const legend = await page.locator('#alg-bert-train .legend').innerText();
    for (const key of ['scaling band 30–80 %', 'min–max over pods', 'mean', 'scale-up', 'scale-down'])
      expect(legend).toContain(key);

    mkdirSync(ARTIFACTS, { recursive: true });
    for (const [name, width] of [
      ['status-page-1200px.png', 1200],
      ['status-page-420px.png', 420],
    ] as const) {
      await page.setViewportSize({ width, height: 900 });
      // The chart takes the page's width (at most the width it is drawn at), its labels read at
      // 11 px or more on screen, and no label of any chart overlaps another or leaves its chart.
      const cb = (await chart.boundingBox())!;
      const content = await page.evaluate('document.body.clientWidth');
      expect(cb.width).toBeGreaterThan(Math.min(900, (content as number) - 60));
      const px = await chart
        .locator('text.tick')
        .first()
        .evaluate((t) => {
          const el = t as unknown as { getBoundingClientRect(): { height: number } };
          return el.getBoundingClientRect().height;
        });
      if (width >= 1000) expect(px).toBeGreaterThanOrEqual(11);
      expect(await svgLabelProblems(page)).toEqual({ clipped: [], overlapping: [] });
      // Node names never break inside the name: each sits on one line at both widths.
      for (const cell of await page.locator('#pools .name').all()) {
        const b = (await cell.boundingBox())!;
        expect(b.height, await cell.innerText()).toBeLessThan(24);
      }
      expect(await page.locator('#health').isVisible()).toBe(true);
      const shot = path.join(ARTIFACTS, name);
      await page.screenshot({ path: shot, fullPage: true });
      expect(statSync(shot).size).toBeGreaterThan(10_000);
      expect(readFileSync(shot).subarray(1, 4).toString()).toBe('PNG');
    }
  }, 180_000);
});
