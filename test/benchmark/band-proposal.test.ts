/**
 * The band proposed from a benchmark (`benchmark/band-proposal.ts`), what a benchmark recorded
 * (`signal-at-load.ts`) and one pod's value in a reading (`signal-sample.ts`), at their boundaries:
 * no value, a value of 0 and of 100 %, explicit bounds that win, a band that would not be a band.
 */
import { describe, expect, it } from 'vitest';
import { proposeBand, type ExplicitBand } from '../../src/benchmark/band-proposal.js';
import { signalAtLoad, type SignalAtLoadResult } from '../../src/benchmark/signal-at-load.js';
import { podValue } from '../../src/benchmark/signal-sample.js';
import type { BenchmarkSignalSample } from '../../src/store/benchmark-signals.js';
import type { UtilizationReading } from '../../src/metrics/types.js';

const RULE = { headroom: 0.15, bandRatio: 0.5 };
const recorded = (value: number, unit = '%'): SignalAtLoadResult => ({
  ok: true,
  value,
  signal: unit === '%' ? 'gpuUtil' : 'serviceMetric:rps',
  unit,
  samples: 3,
  jobs: ['a-bench-1'],
  at: '2026-12-06T10:00:00.000Z',
});
const propose = (r: SignalAtLoadResult, explicit: ExplicitBand = {}, percent = true) =>
  proposeBand({ recorded: r, explicit, resolved: { min: 30, max: 80 }, rule: RULE, percent });

describe('proposeBand', () => {
  it.each([
    ['82 % saturation', recorded(82), {}, { max: 69.7, min: 34.9 }],
    ['100 %: max = 85 %', recorded(100), {}, { max: 85, min: 42.5 }],
    [
      'above 100 % (a bad page) is capped at 100 before the headroom',
      recorded(140),
      {},
      { max: 100, min: 50 },
    ],
    ['a tiny saturation still a band', recorded(0.2), {}, { max: 0.2, min: 0.1 }],
    ['explicit max wins, min from it', recorded(82), { max: 60 }, { max: 60, min: 30 }],
    ['explicit min wins, max from the run', recorded(82), { min: 20 }, { max: 69.7, min: 20 }],
    ['service metric: three significant digits', recorded(12.34, 'requests'), {}, { max: 10.5, min: 5.25 }],
  ])('%s', (_, r, explicit, want) => {
    const p = propose(r, explicit, r.ok && r.unit === '%');
    expect('max' in p ? { max: p.max.value, min: p.min.value } : p).toEqual(want);
  });

  it('says where each bound came from', () => {
    const p = propose(recorded(82), { min: 20 });
    expect(p).toMatchObject({
      max: { from: 'benchmark' },
      min: { from: 'spec' },
      headroom: 0.15,
      bandRatio: 0.5,
    });
  });

  it.each([
    [
      'no value recorded',
      { ok: false, reason: 'no benchmark run has Succeeded' } as const,
      {},
      /no value recorded by the benchmark: no benchmark run has Succeeded/,
    ],
    ['a saturation of 0', recorded(0), {}, /recorded 0 %: no band below 0/],
    [
      'both bounds explicit (even with a value)',
      recorded(82),
      { min: 10, max: 90 },
      /spec sets both min and max/,
    ],
    [
      'explicit min above the proposed max',
      recorded(50),
      { min: 45 },
      /would not have min below max.*stays 30\.\.80/,
    ],
  ])('proposes nothing: %s', (_, r, explicit, why) => {
    const p = propose(r, explicit);
    expect('reason' in p && p.reason).toMatch(why);
  });
});

const sample = (
  run: number,
  value: number | null,
  o: Partial<BenchmarkSignalSample> = {},
): BenchmarkSignalSample => ({
  algorithm: 'a',
  specHash: 'h',
  run,
  jobName: `a-bench-h-${run}`,
  pod: `a-bench-h-${run}-x`,
  signal: 'gpuUtil',
  unit: '%',
  at: `2026-12-06T10:0${run}:00.000Z`,
  value,
  reason: value === null ? 'Empty: no series' : null,
  ...o,
});

describe('signalAtLoad', () => {
  const ok = [
    { run: 1, status: 'Succeeded' as const },
    { run: 2, status: 'Succeeded' as const },
  ];
  it('the median of the valued samples of Succeeded runs of the signal, naming their Jobs', () => {
    const r = signalAtLoad(
      [
        sample(1, 80),
        sample(1, null),
        sample(2, 90),
        sample(2, 99),
        sample(3, 10),
        sample(2, 5, { signal: 'gpuMemory' }),
      ],
      [...ok, { run: 3, status: 'Disrupted' }],
      'gpuUtil',
    );
    expect(r).toEqual({
      ok: true,
      value: 90,
      signal: 'gpuUtil',
      unit: '%',
      samples: 3,
      jobs: ['a-bench-h-1', 'a-bench-h-2'],
      at: '2026-12-06T10:02:00.000Z',
    });
  });
  it('no Succeeded run: no value', () => {
    expect(signalAtLoad([sample(1, 80)], [{ run: 1, status: 'Failed' }], 'gpuUtil')).toEqual({
      ok: false,
      reason: 'no benchmark run has Succeeded',
    });
  });
  it('only samples without a value: the newest one says why', () => {
    const r = signalAtLoad(
      [sample(1, null), sample(2, null, { reason: 'Unreachable: refused' })],
      ok,
      'gpuUtil',
    );
    expect(r).toEqual({
      ok: false,
      reason: expect.stringContaining('a-bench-h-2 at 2026-12-06T10:02:00.000Z: Unreachable: refused'),
    });
  });
  it('no sample at all (the run ended between two passes)', () => {
    expect(signalAtLoad([], ok, 'gpuUtil')).toMatchObject({
      ok: false,
      reason: expect.stringContaining('no sample of gpuUtil'),
    });
  });
});

describe('podValue', () => {
  const series = (metric: string, pod: string, value: number, extra: Record<string, string> = {}) => ({
    metric,
    labels: { namespace: 'algorithms', pod, gpu: extra.gpu ?? '0', ...extra },
    value,
    timestamp: 0,
  });
  const reading = (...s: ReturnType<typeof series>[]): UtilizationReading => ({
    ok: true,
    series: s,
    errors: [],
  });
  const gpu = { metric: 'DCGM_FI_DEV_GPU_UTIL', service: false, ratio: false };
  it("the mean of the pod's GPUs, only its own series of the metric", () => {
    const r = reading(
      series('DCGM_FI_DEV_GPU_UTIL', 'bench', 90, { gpu: '0' }),
      series('DCGM_FI_DEV_GPU_UTIL', 'bench', 70, { gpu: '1' }),
      series('DCGM_FI_DEV_GPU_UTIL', 'other', 10),
      series('DCGM_FI_DEV_FB_USED', 'bench', 5000),
    );
    expect(podValue(r, 'algorithms', 'bench', gpu)).toEqual({ value: 80, reason: null });
  });
  it('a ratio field is read as percent', () => {
    const r = reading(series('DCGM_FI_PROF_GR_ENGINE_ACTIVE', 'bench', 0.42));
    expect(
      podValue(r, 'algorithms', 'bench', {
        metric: 'DCGM_FI_PROF_GR_ENGINE_ACTIVE',
        service: false,
        ratio: true,
      }).value,
    ).toBeCloseTo(42);
  });
  it.each([
    [
      'no data',
      { ok: false, reason: 'Unreachable', message: 'refused' } as UtilizationReading,
      gpu,
      'Unreachable: refused',
    ],
    [
      'no series for the pod',
      reading(series('DCGM_FI_DEV_GPU_UTIL', 'other', 50)),
      gpu,
      'no series for pod algorithms/bench',
    ],
    [
      'several series of a service metric',
      reading(series('rps', 'bench', 1, { gpu: 'a' }), series('rps', 'bench', 2, { gpu: 'b' })),
      { metric: 'rps', service: true, ratio: false },
      'SeveralSeries: 2 series for pod algorithms/bench',
    ],
    [
      'a NaN value',
      reading(series('DCGM_FI_DEV_GPU_UTIL', 'bench', Number.NaN)),
      gpu,
      'value NaN for pod algorithms/bench is not a number ≥ 0',
    ],
  ])('no value: %s', (_, r, o, reason) => {
    expect(podValue(r, 'algorithms', 'bench', o)).toEqual({ value: null, reason });
  });
});
