/**
 * `gpuops replay --group-by deployment --report DIR` (issue 25 section 3): a `query_range` answer
 * the test writes itself — three deployments whose pods run at about 20 %, so static holds several
 * times what the scaling engines hold — through the CLI in process; the fleet report is loaded in
 * Debian's chromium (playwright-core) to find the verdict lines, a warning per engine that breaks a
 * target, both charts with a line per engine, axes that do not flatten the scaling engines, and no
 * text label that overlaps another or is clipped; `figures.jsonl` holds the printed rows.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FleetFigures } from '../../src/replay/fleet-model.js';
import { fleetVerdicts } from '../../src/replay/fleet-text.js';
import { DEFAULT_REPLAY_SETTINGS } from '../../src/replay/replay-settings.js';
import { runMain, type MainRun } from '../support/run-main.js';
import { expectOfflineScreenshot, launchChromium, svgLabelProblems } from '../support/svg-labels.js';

const STEP = 60;
const N = 150; // 2.5 h
const T0 = 1_700_000_000;
const ENGINES = ['static', 'hpa 55 %', 'gpuops β 1', 'ideal'];
/** The charts' plot area (report.ts): top and bottom of the value axis, in SVG units. */
const PLOT = { top: 24, bottom: 220 - 28 };

let dir: string;
let run: MainRun;
let rows: FleetFigures[];
let nodeRun: MainRun;

const readRows = (report: string) =>
  readFileSync(path.join(dir, report, 'figures.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as FleetFigures);

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'gpuops-fleet-report-'));
  let seed = 11;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const result: { metric: Record<string, string>; values: [number, string][] }[] = [];
  ['bert', 'resnet', 'whisper'].forEach((deployment, d) => {
    for (let p = 0; p < 12; p++) {
      const values: [number, string][] = [];
      for (let i = 0; i < N; i++) {
        const level = 20 + 15 * Math.sin((2 * Math.PI * (i + 40 * d)) / N); // 5–35 %, phases apart
        values.push([T0 + i * STEP, Math.max(0, level + (rand() - 0.5) * 20).toFixed(1)]);
      }
      result.push({ metric: { namespace: 'ml', deployment, pod: `${deployment}-${p}` }, values });
    }
  });
  const file = path.join(dir, 'history.json');
  writeFileSync(file, JSON.stringify({ status: 'success', data: { resultType: 'matrix', result } }));
  run = await runMain(
    'replay',
    '--trace',
    file,
    '--group-by',
    'deployment',
    '--report',
    path.join(dir, 'report'),
  );
  rows = readRows('report');
  nodeRun = await runMain(
    'replay',
    '--trace',
    file,
    '--group-by',
    'deployment',
    '--nodes',
    'auto',
    '--gpus-per-node',
    '4',
    '--report',
    path.join(dir, 'report-nodes'),
  );
}, 120_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the fleet report', () => {
  it('is written beside figures.jsonl, one row per engine as printed', () => {
    expect(run.code, run.err).toBe(0);
    expect(run.err).toContain(`report: ${path.join(dir, 'report', 'index.html')}`);
    expect(rows.map((r) => r.engine)).toEqual(ENGINES);
    for (const r of rows) {
      expect(r.services).toHaveLength(3);
      expect(run.out).toContain(`util ${r.utilizationPercent.toFixed(1).padStart(5)} %`);
    }
  });

  it('opens in chromium: verdicts, warnings, both charts, axes that fit, no label clipped or overlapping', async () => {
    const browser = await launchChromium();
    try {
      const tab = await browser.newPage();
      const requests: string[] = [];
      tab.on('request', (r) => requests.push(r.url()));
      await tab.goto(`file://${path.join(dir, 'report', 'index.html')}`);
      // A verdict line per judged figure, each with its target; the untargeted engines named as references.
      const verdicts = fleetVerdicts(rows);
      const lines = await tab.$$eval('#verdicts li.verdict', (ls) => ls.map((l) => l.textContent ?? ''));
      expect(lines).toHaveLength(verdicts.length);
      verdicts.forEach((v, i) => {
        expect(lines[i]).toContain(`${v.engine} ${v.measure} ${v.figure} (target ${v.target})`);
        expect(lines[i]!.startsWith(v.ok ? '✓' : '✗ MISSED:')).toBe(true);
      });
      expect(
        await tab.$$eval('#references li', (ls) => ls.map((l) => l.getAttribute('data-engine'))),
      ).toEqual(['static', 'ideal']);
      const missed = [...new Set(verdicts.filter((v) => !v.ok).map((v) => v.engine))];
      expect(await tab.$$eval('svg#frontier-nodes', (ss) => ss.length)).toBe(0); // no nodes, no node frontier
      expect(await tab.$$eval('p.warning', (ps) => ps.map((p) => p.getAttribute('data-engine')))).toEqual(
        missed,
      );
      // One line per engine; unserved without static (it holds every pod).
      const engines = (chart: string) =>
        tab.$$eval(`svg#${chart} path.series`, (ps) => ps.map((p) => p.getAttribute('data-engine')));
      expect(await engines('allocated')).toEqual(ENGINES);
      expect(await engines('unserved')).toEqual(ENGINES.slice(1));
      // Static holds ~12 × 3 pods, far above the others: its line is cut, and the others reach
      // the upper half of the plot (not flattened at the bottom).
      const top = (engine: string) =>
        tab.$eval(`svg#allocated path.series[data-engine="${engine}"]`, (p) =>
          Math.min(
            ...[...(p.getAttribute('d') ?? '').matchAll(/(?:M-?[\d.]+,|V)(-?[\d.]+)/g)].map((m) =>
              Number(m[1]),
            ),
          ),
        );
      for (const e of ['hpa 55 %', 'gpuops β 1'])
        expect(await top(e), e).toBeLessThan((PLOT.top + PLOT.bottom) / 2);
      expect(await top('static')).toBeLessThan(PLOT.top);
      expect(await tab.textContent('body')).toMatch(/static holds up to 36 GPUs, off the top of this scale/);
      expect(await svgLabelProblems(tab)).toEqual({ clipped: [], overlapping: [] });
      expect(
        await tab.$$eval('#services tbody tr', (rs) => rs.map((r) => r.firstElementChild?.textContent)),
      ).toEqual(['bert', 'resnet', 'whisper']);
      await expectOfflineScreenshot(tab, requests, path.join(dir, 'report.png'));
    } finally {
      await browser.close();
    }
  }, 120_000);

  it('with --nodes: the node-level figures in the table, the node model’s engines in both charts', async () => {
    expect(nodeRun.code, nodeRun.err).toBe(0);
    const nodeRows = readRows('report-nodes');
    expect(nodeRows.every((r) => r.nodes !== undefined)).toBe(true);
    const browser = await launchChromium();
    try {
      const tab = await browser.newPage();
      await tab.goto(`file://${path.join(dir, 'report-nodes', 'index.html')}`);
      const heads = await tab.$$eval('#fleet th', (hs) => hs.map((h) => h.textContent));
      expect(heads).toEqual(
        expect.arrayContaining(['pool node-hours', 'peak pool nodes', 'node moves', 'nodes returned']),
      );
      const cells = await tab.$$eval('#fleet tbody tr', (rs) =>
        rs.map((r) => [...r.querySelectorAll('td')].map((c) => c.textContent)),
      );
      const col = heads.indexOf('pool node-hours');
      expect(cells.map((c) => Number(c[col]))).toEqual(
        nodeRows.map((r) => Number(r.nodes!.poolNodeHours.toFixed(1))),
      );
      const engines = (chart: string) =>
        tab.$$eval(`svg#${chart} path.series`, (ps) => ps.map((p) => p.getAttribute('data-engine')));
      expect(await engines('allocated')).toEqual(nodeRows.map((r) => r.engine));
      expect(await engines('unserved')).toEqual(nodeRows.slice(1).map((r) => r.engine));
      // The node frontier: gpuops at every default headroom factor and the HPA's static pools.
      const factors = DEFAULT_REPLAY_SETTINGS.headroomFactors;
      expect(
        await tab.$$eval('svg#frontier-nodes path.frontier-line', (ps) =>
          ps.map((p) => p.getAttribute('data-engine')),
        ),
      ).toEqual(['hpa', 'gpuops']);
      expect(await tab.$$eval('svg#frontier-nodes circle.frontier-point', (cs) => cs.length)).toBe(
        factors.length + 1,
      );
      expect(await svgLabelProblems(tab)).toEqual({ clipped: [], overlapping: [] });
    } finally {
      await browser.close();
    }
  }, 120_000);
});
