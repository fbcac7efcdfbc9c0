import { describe, expect, it } from 'vitest';
import type { GpuSeries } from '../metrics/types.js';
import { watchReading, type WatchedAlgorithm, type Watchlist } from './crossing-watch.js';

const alg = (o: Partial<WatchedAlgorithm> = {}): WatchedAlgorithm => ({
  name: 'a',
  namespace: 'algorithms',
  view: {
    sizing: 'step',
    min: 30,
    max: 80,
    replicas: 2,
    minReplicas: 1,
    maxReplicas: 10,
    gpus: 1,
    headroomFactor: 1,
    headroomDownMargin: 0.25,
  },
  pods: ['a-0', 'a-1'],
  heldUntilMs: Infinity,
  ...o,
});
const list = (...algorithms: WatchedAlgorithm[]): Watchlist => ({
  metric: 'DCGM_FI_DEV_GPU_UTIL',
  windowSeconds: 60,
  namespaces: ['algorithms'],
  algorithms,
});
const gpu = (pod: string, value: number, o: Partial<GpuSeries> = {}): GpuSeries => ({
  metric: 'DCGM_FI_DEV_GPU_UTIL',
  labels: { namespace: 'algorithms', pod, gpu: '0', UUID: `GPU-${pod}` },
  value,
  timestamp: 0,
  ...o,
});
const run = (w: Watchlist, series: GpuSeries[], before: string[] = [], nowMs = 1000) => {
  const out = watchReading(w, series, new Set(before), nowMs);
  return `${out.crossed.join(',') || '-'} | ${[...out.state].join(',') || '-'}`;
};

describe('watchReading: fires on the crossing, and again once the hold can change', () => {
  it.each<[string, Watchlist, GpuSeries[], string[], number, string]>([
    // Mean of 80 and 80 is 80: in band (max itself is in); 80 and 82: 81 > 80.
    ['ExactlyMaxIsIn', list(alg()), [gpu('a-0', 80), gpu('a-1', 80)], [], 1000, '- | -'],
    ['JustAboveMaxCrosses', list(alg()), [gpu('a-0', 80), gpu('a-1', 82)], [], 1000, 'a | a'],
    ['StillOutsideDoesNotFireAgain', list(alg()), [gpu('a-0', 90), gpu('a-1', 90)], ['a'], 1000, '- | a'],
    [
      'OutsideFiresAgainWhenTheHoldEnds',
      list(alg({ heldUntilMs: 1000 })),
      [gpu('a-0', 90), gpu('a-1', 90)],
      ['a'],
      1000,
      'a | a',
    ],
    [
      'OneMsBeforeTheHoldEndsItDoesNot',
      list(alg({ heldUntilMs: 1001 })),
      [gpu('a-0', 90), gpu('a-1', 90)],
      ['a'],
      1000,
      '- | a',
    ],
    ['BelowMinCrosses', list(alg()), [gpu('a-0', 10), gpu('a-1', 20)], [], 1000, 'a | a'],
    ['BackInsideClears', list(alg()), [gpu('a-0', 50), gpu('a-1', 50)], ['a'], 1000, '- | -'],
    // A reading without its pods says nothing: the state is kept.
    ['NoSeriesKeepsTheState', list(alg()), [], ['a'], 1000, '- | a'],
    ['AnotherPodIsNotCounted', list(alg()), [gpu('b-0', 99)], [], 1000, '- | -'],
    ['AnotherNamespaceIsNotCounted', list(alg({ namespace: 'team' })), [gpu('a-0', 99)], [], 1000, '- | -'],
    [
      'AnotherMetricIsNotCounted',
      list(alg()),
      [gpu('a-0', 99, { metric: 'DCGM_FI_PROF_GR_ENGINE_ACTIVE' })],
      [],
      1000,
      '- | -',
    ],
    ['NaNIsNotCounted', list(alg()), [gpu('a-0', NaN), gpu('a-1', 50)], [], 1000, '- | -'],
    // Prometheus renamed the labels: the workload pod is exported_pod.
    [
      'ExportedPodCounts',
      list(alg()),
      [gpu('x', 95, { labels: { exported_namespace: 'algorithms', exported_pod: 'a-0', pod: 'dcgm' } })],
      [],
      1000,
      'a | a',
    ],
    // Two GPUs of one pod average first: (100 + 70) / 2 = 85 for a-0, 75 for a-1 → 80: in.
    [
      'APodsGpusAverageFirst',
      list(alg()),
      [
        gpu('a-0', 100),
        gpu('a-0', 70, { labels: { namespace: 'algorithms', pod: 'a-0', gpu: '1' } }),
        gpu('a-1', 75),
      ],
      [],
      1000,
      '- | -',
    ],
  ])('%s', (_name, w, series, before, nowMs, want) => {
    expect(run(w, series, before, nowMs)).toBe(want);
  });

  it('a ratio metric counts ×100', () => {
    const w: Watchlist = { ...list(alg()), metric: 'DCGM_FI_PROF_GR_ENGINE_ACTIVE' };
    const ratio = (pod: string, v: number) => gpu(pod, v, { metric: 'DCGM_FI_PROF_GR_ENGINE_ACTIVE' });
    expect(run(w, [ratio('a-0', 0.85), ratio('a-1', 0.85)])).toBe('a | a');
    expect(run(w, [ratio('a-0', 0.5), ratio('a-1', 0.5)])).toBe('- | -');
  });

  it('only the algorithm that crossed fires', () => {
    const b = alg({ name: 'b', pods: ['b-0'] });
    expect(run(list(alg(), b), [gpu('a-0', 50), gpu('a-1', 50), gpu('b-0', 95)])).toBe('b | b');
  });
});
