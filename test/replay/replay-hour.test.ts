/**
 * One hour of a trace in the trace's CSV format, written by the test (a clean clone has no
 * ../shared), through every engine; the figures are checked against an independent computation,
 * and the report page is loaded in Debian's chromium (playwright-core) to find one series per engine.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderReport } from '../../src/replay/report.js';
import { ENGINES, runReplay, type ReplayResult } from '../../src/replay/run-replay.js';
import { DEFAULT_REPLAY_SETTINGS } from '../../src/replay/replay-settings.js';
import { parseTrace } from '../../src/replay/trace.js';
import { expectOfflineScreenshot, launchChromium, svgLabelProblems } from '../support/svg-labels.js';

const STEP = 57;
const INSTANTS = 64; // 60.8 minutes
const MAX = 80;

/** A deterministic trace: 8 pods, a load that rises to ~4 GPUs and falls, two pods that come and go. */
function writeTrace(file: string): { t: number; values: number[] }[] {
  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const rows = ['value,timestamp_anon,container_ip'];
  const instants: { t: number; values: number[] }[] = [];
  for (let i = 0; i < INSTANTS; i++) {
    const t = 1662858720 + i * STEP;
    const level = 60 * Math.sin((Math.PI * i) / INSTANTS); // per-pod mean, 0 → 60 → 0 %
    const values: number[] = [];
    for (let p = 0; p < 8; p++) {
      if (p >= 6 && (i + p) % 5 === 0) continue; // churn: pods 6 and 7 miss some instants
      const v = Math.round(Math.min(99.7, Math.max(0, level + (rand() - 0.5) * 30)) * 10) / 10;
      values.push(v);
      rows.push(`${v.toFixed(1)},${t.toFixed(1)},pod${p.toString(16).padStart(32, '0')}`);
    }
    instants.push({ t, values });
  }
  writeFileSync(file, rows.join('\n') + '\n');
  return instants;
}

let dir: string;
let expected: { t: number; values: number[] }[];
let result: ReplayResult;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'gpuops-replay-test-'));
  const file = path.join(dir, 'trace.csv');
  expected = writeTrace(file);
  const trace = parseTrace(readFileSync(file, 'utf8'), file);
  result = await runReplay(trace, {
    settings: { ...DEFAULT_REPLAY_SETTINGS, max: MAX, passIntervalSeconds: 60, warmupSeconds: 300 },
    dir: path.join(dir, 'work'),
  });
}, 1_800_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const figures = (engine: string) => result.engines.find((e) => e.figures.engine === engine)!.figures;
const load = (vs: number[]) => vs.reduce((a, b) => a + b, 0);

describe('gpuops replay of one hour', () => {
  it('lists every engine once, in order', () => {
    expect(result.engines.map((e) => e.figures.engine)).toEqual([...ENGINES]);
  });

  it('static: utilisation is the mean of the values over pod-samples; nothing unserved', () => {
    const all = expected.flatMap((x) => x.values);
    expect(figures('static').utilizationPercent).toBeCloseTo(load(all) / all.length, 1);
    expect(figures('static').allocatedGpuHours).toBeCloseTo((all.length * STEP) / 3600, 1);
    expect(figures('static').unservedGpuHours).toBe(0);
  });

  it('ideal: ceil(load / max) GPUs at each instant', () => {
    const gpus = expected.map((x) => Math.ceil(load(x.values) / MAX));
    const gpuHours = (load(gpus) * STEP) / 3600;
    expect(figures('ideal').allocatedGpuHours).toBeCloseTo(gpuHours, 1);
    const offered = load(expected.map((x) => load(x.values))) * STEP;
    expect(figures('ideal').utilizationPercent).toBeCloseTo(offered / (gpuHours * 3600), 0);
    expect(figures('ideal').aboveMaxPercent).toBe(0);
  });

  it('every engine: served + unserved = offered, the same offered load for all', () => {
    const offered = (load(expected.map((x) => load(x.values))) * STEP) / 360000;
    for (const e of result.engines) {
      const f = e.figures;
      expect(f.offeredGpuHours, f.engine).toBeCloseTo(offered, 3);
      expect(f.servedGpuHours + f.unservedGpuHours, f.engine).toBeCloseTo(offered, 3);
      expect(f.unservedPercent, f.engine).toBeCloseTo((100 * f.unservedGpuHours) / offered, 0);
    }
  });

  it('the simulated engines follow the load: they scale up and back down', () => {
    for (const engine of ['hpa', 'gpuops-patch', 'gpuops-pr']) {
      const run = result.engines.find((e) => e.figures.engine === engine)!;
      const peak = Math.max(...run.points.map((p) => p.replicas));
      expect(peak, engine).toBeGreaterThan(run.points[0]!.replicas);
      expect(run.figures.replicaChanges, engine).toBeGreaterThanOrEqual(2);
      expect(run.figures.savedGpuHours, engine).toBeGreaterThan(0);
    }
  });

  it('the report opens in chromium with one series per engine and a screenshot', async () => {
    const page = path.join(dir, 'index.html');
    writeFileSync(page, renderReport(result));
    const browser = await launchChromium();
    try {
      const tab = await browser.newPage();
      const requests: string[] = [];
      tab.on('request', (r) => requests.push(r.url()));
      await tab.goto(`file://${page}`);
      // One panel per engine (five lines in one chart tangle), one series in each, on one scale.
      for (const chart of ['allocated', 'utilization']) {
        const panels = await tab.$$eval(`svg.${chart}`, (ss) => ss.map((s) => s.id));
        expect(panels, chart).toEqual(ENGINES.map((e) => `${chart}-${e}`));
        const engines = await tab.$$eval(`svg.${chart} path.series`, (ps) =>
          ps.map((p) => p.getAttribute('data-engine')),
        );
        expect(engines, chart).toEqual([...ENGINES]);
        for (const d of await tab.$$eval(`svg.${chart} path.series`, (ps) =>
          ps.map((p) => p.getAttribute('d')),
        ))
          expect(d, chart).toMatch(/^M[\d.]+,[\d.]+H/);
      }
      // Round value ticks on every chart: each a multiple of its step (0, 5, 10, …; never 0, 14, 29).
      const yTicks = await tab.$$eval('svg.allocated', (ss) =>
        ss.map((s) =>
          Array.from(
            s.querySelectorAll('text[text-anchor="end"]') as ArrayLike<{ textContent: string | null }>,
          )
            .map((t) => Number(t.textContent))
            // The value axis; a time label near the right edge is text ("1 h").
            .filter((v) => Number.isFinite(v)),
        ),
      );
      for (const ticks of yTicks) {
        const step = ticks[1]! - ticks[0]!;
        expect(ticks[0]).toBe(0);
        expect([1, 2, 2.5, 5]).toContain(Number((step / 10 ** Math.floor(Math.log10(step))).toFixed(6)));
      }
      // The verdict first: the HPA at its best target and both gpuops modes, and the sentence.
      expect(
        await tab.$$eval('#verdict tbody tr', (rs) => rs.map((r) => r.getAttribute('data-engine'))),
      ).toEqual(['hpa', 'gpuops-patch', 'gpuops-pr']);
      expect(await tab.$eval('#verdict p.sentence', (p) => p.textContent)).toMatch(
        /^gpuops patch mode (wins|loses): /,
      );
      expect(await tab.$$eval('svg#offered path.series', (ps) => ps.length)).toBe(1);
      expect(
        await tab.$$eval('table tbody tr', (rs) => rs.filter((r) => r.closest('#verdict') === null).length),
      ).toBe(ENGINES.length);
      // Issue 25: both frontier plots, one line per family, one point per target / factor.
      const s = result.settings;
      for (const id of ['frontier-unserved', 'frontier-above']) {
        expect(
          await tab.$$eval(`svg#${id} path.frontier-line`, (ps) =>
            ps.map((p) => p.getAttribute('data-engine')),
          ),
          id,
        ).toEqual(['hpa', 'gpuops']);
        expect(await tab.$$eval(`svg#${id} circle.frontier-point`, (cs) => cs.length), id).toBe(
          s.hpaTargets.length + s.headroomFactors.length,
        );
      }
      // A verdict line per judged figure, each naming its target; a warning per engine that misses one.
      const lines = await tab.$$eval('#verdicts li.verdict', (ls) => ls.map((l) => l.textContent ?? ''));
      expect(lines).toHaveLength(result.verdicts.length);
      for (const l of lines) expect(l).toMatch(/\(target [≥≤=] /);
      const missed = [...new Set(result.verdicts.filter((v) => !v.ok).map((v) => v.engine))];
      expect(await tab.$$eval('p.warning', (ps) => ps.map((p) => p.getAttribute('data-engine')))).toEqual(
        missed,
      );
      expect(await tab.$$eval('svg#unserved path.series', (ps) => ps.length)).toBe(ENGINES.length - 1);
      // No label of any chart is clipped (every text inside its svg's view box) or overlaps another.
      expect(await svgLabelProblems(tab)).toEqual({ clipped: [], overlapping: [] });
      await expectOfflineScreenshot(tab, requests, path.join(dir, 'report.png'));
    } finally {
      await browser.close();
    }
  }, 120_000);
});
