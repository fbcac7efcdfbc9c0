/**
 * The replay on the service's own load (issue 44 item 4), on traces the test writes: a batching
 * service whose GPUs stay busy while its requests fall is scaled down on requests per second per
 * replica (the HPA and gpuops alike) and up on the duty cycle; an instant without a reading holds
 * the replicas (never a scale-down on missing data) while a reading of 0 is one; the service band
 * is sized on the first half alone; the comparison prints both signals side by side.
 */
import { describe, expect, it } from 'vitest';
import { loadDefaultPolicy } from '../../src/definitions/load.js';
import { mergePolicy } from '../../src/definitions/rules/policy.js';
import { runModel, type ModelEngine } from '../../src/replay/model-engine.js';
import { patchPolicy } from '../../src/replay/replay-policy.js';
import { compareSignals, formatSignals, servicePerGpuPercent } from '../../src/replay/signal-compare.js';
import { DEFAULT_REPLAY_SETTINGS } from '../../src/replay/replay-settings.js';
import type { Trace } from '../../src/replay/trace.js';
import { modelSettings } from './model-settings.js';

const SERIES = { name: 'requests per second', unit: 'requests/s', source: 'qps.csv' };
const base = await loadDefaultPolicy();
const policy = patchPolicy(base, DEFAULT_REPLAY_SETTINGS, 1);
const loadPolicy = mergePolicy(policy, { spec: { scaling: { sizing: 'load', targetUtilization: 0 } } });

/** `minutes` of 60-s instants: 10 pods at `pct(i)` % each, the service at `rps(i)` (undefined: no reading). */
const trace = (
  minutes: number,
  pct: (i: number) => number,
  rps: (i: number) => number | undefined,
): Trace => ({
  source: 'synthetic',
  instants: Array.from({ length: minutes }, (_, i) => {
    const r = rps(i);
    return { t: 5_000 + i * 60, values: Array(10).fill(pct(i)), ...(r === undefined ? {} : { service: r }) };
  }),
  pods: 10,
  service: SERIES,
});
const onRps = modelSettings({
  signal: { name: 'requests per second', unit: 'requests/s', min: 0.5, max: 1.5 },
});
const replicasAt = (pts: { t: number; replicas: number }[], t: number) =>
  pts.filter((p) => p.t <= t).pop()!.replicas;
const last = (pts: { replicas: number }[]) => pts[pts.length - 1]!.replicas;

describe('the model on a service signal', () => {
  // GPUs at 90 % whatever the load (a batching server); 10 requests/s for 20 min, then 2.
  const batching = trace(
    60,
    () => 90,
    (i) => (i < 20 ? 10 : 2),
  );
  it.each<[string, ModelEngine, number, number]>([
    // 1 request/s per replica: 10 replicas at 10 requests/s (from the first 13), 2 at 2.
    ['the HPA at 1 request/s per replica', { kind: 'hpa', target: 1 }, 10, 2],
    // The first 13 replicas at 0.77 requests/s each are in the band; 2 requests/s on 13 is below it.
    ['gpuops, band 0.5–1.5 requests/s per replica', { kind: 'gpuops', policy: loadPolicy }, 13, 2],
  ])('%s scales down as the requests fall while the GPUs stay busy', (_n, engine, busy, end) => {
    const pts = runModel(batching, engine, onRps);
    expect(pts[0]!.replicas).toBe(13); // ceil(900 / 80) + 1
    expect(replicasAt(pts, 19 * 60)).toBe(busy);
    expect(last(pts)).toBe(end);
  });

  it('on the duty cycle the same service only goes up (90 % against a 55 % target)', () => {
    const pts = runModel(batching, { kind: 'hpa', target: 55 }, modelSettings());
    expect(last(pts)).toBe(17); // ceil(900 / 55)
    expect(pts.every((p, i) => i === 0 || p.replicas >= pts[i - 1]!.replicas)).toBe(true);
  });

  // 10 requests/s for 10 min, then 30 min without a reading or with a reading of 0.
  it.each<[string, ModelEngine]>([
    ['the HPA', { kind: 'hpa', target: 1 }],
    ['gpuops', { kind: 'gpuops', policy: loadPolicy }],
  ])('%s holds on missing readings and scales down on a reading of 0', (_n, engine) => {
    const missing = runModel(
      trace(
        40,
        () => 20,
        (i) => (i < 10 ? 10 : undefined),
      ),
      engine,
      onRps,
    );
    expect(replicasAt(missing, 10 * 60)).toBe(10);
    expect(last(missing)).toBe(10);
    const zero = runModel(
      trace(
        40,
        () => 20,
        (i) => (i < 10 ? 10 : 0),
      ),
      engine,
      onRps,
    );
    expect(last(zero)).toBe(1);
  });
});

describe('compareSignals', () => {
  // First half: 500 GPU-percent and 1 request/s (0.002 per GPU-percent); second half: 4 requests/s.
  const t = trace(
    60,
    (i) => (i < 30 ? 50 : 20),
    (i) => (i < 30 ? 1 : 4),
  );
  const c = compareSignals(t, { settings: modelSettings(), policy, hpaTarget: 55, staticGpuHours: 10 });

  it('sizes the service band on the first half only: the duty-cycle band × its ratio', () => {
    expect(c.perGpuPercent).toBeCloseTo(0.002, 12);
    expect(c.band.min).toBeCloseTo(0.06, 12);
    expect(c.band.max).toBeCloseTo(0.16, 12);
    expect(c.band.hpaTarget).toBeCloseTo(0.11, 12);
    expect(c.noReading).toBe(0);
  });

  it('runs the HPA and gpuops on each signal, measured against the same GPU need', () => {
    expect(c.runs.map((r) => r.figures.engine)).toEqual([
      'hpa on duty cycle',
      'hpa on requests per second',
      'gpuops on duty cycle',
      'gpuops on requests per second',
    ]);
    const offered = c.runs.map((r) => r.figures.offeredGpuHours);
    expect(new Set(offered).size).toBe(1);
    // Second half: 200 GPU-percent, 4 requests/s. On the duty cycle the HPA goes to ceil(200 / 55)
    // = 4 replicas; on requests to ceil(4 / 0.11) = 37: the requests rose 4× while the GPU load
    // fell. gpuops, from its 8 first replicas, goes to ceil(8 × 0.5 / 0.11) = 37 on requests.
    const [hd, hr, gd, gr] = c.runs.map((r) => r.points);
    expect([last(hd!), last(hr!), last(gd!)]).toEqual([4, 37, 4]);
    expect(gr!.find((p) => p.replicas > 8)?.replicas).toBe(37);
    expect(c.runs[1]!.figures.allocatedGpuHours).toBeGreaterThan(c.runs[0]!.figures.allocatedGpuHours);
  });

  it('prints each figure as duty cycle / requests per second, and the band with where it came from', () => {
    const text = formatSignals(c, { min: 30, max: 80, hpaTarget: 55 });
    const [h, , g] = c.runs.map((r) => r.figures);
    expect(text).toContain(
      'band 0.0600–0.160 requests/s per replica, HPA target 0.110: the duty-cycle band 30–80 % and target 55 % × 0.00200 requests/s per GPU-percent (first half)',
    );
    const hpaLine = text.split('\n').find((l) => l.trimStart().startsWith('hpa '))!;
    expect(hpaLine).toContain(
      `${h!.utilizationPercent.toFixed(1)} / ${c.runs[1]!.figures.utilizationPercent.toFixed(1)}`,
    );
    const gpuopsLine = text.split('\n').find((l) => l.trimStart().startsWith('gpuops '))!;
    expect(gpuopsLine).toContain(`${g!.allocatedGpuHours.toFixed(1)} / `);
  });

  it('a first half without a service reading is an error naming the series', () => {
    expect(() =>
      servicePerGpuPercent(
        trace(
          10,
          () => 50,
          (i) => (i < 6 ? undefined : 1),
        ),
      ),
    ).toThrow('qps.csv: no service load in the first half of the trace');
  });
});
