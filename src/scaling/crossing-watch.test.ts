import { describe, expect, it } from 'vitest';
import type { PodInfo } from '../cluster/types.js';
import type { GpuSeries, UtilizationReading } from '../metrics/types.js';
import { pod, policy } from '../../test/scaling/support.js';
import {
  watchReading,
  type WatchJudge,
  type WatchState,
  type WatchedAlgorithm,
  type Watchlist,
} from './crossing-watch.js';
import type { CrossingSide } from './band-crossing.js';

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
/** The snapshot's pods: a-0, a-1 of `a`, b-0 of `b` on node n1; the exporter pod dcgm-n1 on n1. */
const snapshotPods = (o: Record<string, Partial<PodInfo>> = {}): PodInfo[] => [
  pod('a-0', { algorithm: 'a', nodeName: 'n1', ...o['a-0'] }),
  pod('a-1', { algorithm: 'a', nodeName: 'n1', ...o['a-1'] }),
  pod('b-0', { algorithm: 'b', nodeName: 'n1', ...o['b-0'] }),
  pod('dcgm-n1', { namespace: 'gpu-operator', managed: false, algorithm: null, nodeName: 'n1' }),
];
/** Owned by its algorithm's Deployment when a ReplicaSet owns it (a Job's pod is not). */
const judge = (o: Partial<WatchJudge> = {}): WatchJudge => ({
  pods: snapshotPods(),
  policy: policy({ staleSampleSeconds: 120 }),
  deploymentOf: (p) => (p.owner?.kind === 'ReplicaSet' ? p.algorithm : null),
  sharedNodes: new Map(),
  ...o,
});
const list = (...algorithms: WatchedAlgorithm[]): Watchlist => ({
  metric: 'DCGM_FI_DEV_GPU_UTIL',
  windowSeconds: 60,
  namespaces: ['algorithms'],
  algorithms,
  judge: judge(),
});
const gpu = (pod: string, value: number, o: Partial<GpuSeries> = {}): GpuSeries => ({
  metric: 'DCGM_FI_DEV_GPU_UTIL',
  labels: { namespace: 'algorithms', pod, gpu: '0', UUID: `GPU-${pod}`, node: 'n1' },
  value,
  timestamp: 0,
  ...o,
});
/** `gpu` with `labels` changed (`undefined` removes a label). */
const gpuWith = (
  pod: string,
  value: number,
  labels: Record<string, string | undefined>,
  o: Partial<GpuSeries> = {},
) => {
  const s = gpu(pod, value, o);
  const merged: Record<string, string> = { ...s.labels };
  for (const [k, v] of Object.entries(labels)) {
    if (v === undefined) delete merged[k];
    else merged[k] = v;
  }
  return { ...s, labels: merged };
};
/** A reading of the policy's metric answering `series` (evaluated at `evaluatedAt` when given). */
const answer = (series: GpuSeries[], evaluatedAt?: number): UtilizationReading => ({
  ok: true,
  series,
  errors: [],
  ...(evaluatedAt === undefined ? {} : { evaluatedAt }),
});
/** The state before a reading: `a` outside up, `a:down` / `a:saturated` on that side. */
const sides = (before: string[]): WatchState =>
  new Map(before.map((b) => [b.split(':')[0]!, (b.split(':')[1] ?? 'up') as CrossingSide]));
const run = (w: Watchlist, series: GpuSeries[], before: string[] = [], nowMs = 1000) => {
  const out = watchReading(w, answer(series), sides(before), nowMs);
  return `${out.crossed.join(',') || '-'} | ${[...out.state.keys()].join(',') || '-'}`;
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
      [
        gpu('x', 95, {
          labels: { exported_namespace: 'algorithms', exported_pod: 'a-0', pod: 'dcgm-n1', node: 'n1' },
        }),
      ],
      [],
      1000,
      'a | a',
    ],
    // Two GPUs of one pod (it requests two) average first: (100 + 70) / 2 = 85 for a-0, 75 for a-1 → 80: in.
    [
      'APodsGpusAverageFirst',
      { ...list(alg()), judge: judge({ pods: snapshotPods({ 'a-0': { gpuRequest: 2 } }) }) },
      [gpu('a-0', 100), gpuWith('a-0', 70, { gpu: '1', UUID: 'GPU-a-0-1' }), gpu('a-1', 75)],
      [],
      1000,
      '- | -',
    ],
  ])('%s', (_name, w, series, before, nowMs, want) => {
    expect(run(w, series, before, nowMs)).toBe(want);
  });

  it('a ratio metric counts ×100', () => {
    const engine = policy({ staleSampleSeconds: 120, metric: 'DCGM_FI_PROF_GR_ENGINE_ACTIVE' });
    const w: Watchlist = {
      ...list(alg({ signal: { kind: 'gpuEngineActive', unit: '%' } })),
      metric: 'DCGM_FI_PROF_GR_ENGINE_ACTIVE',
      judge: judge({ policy: engine }),
    };
    const ratio = (pod: string, v: number) => gpu(pod, v, { metric: 'DCGM_FI_PROF_GR_ENGINE_ACTIVE' });
    expect(run(w, [ratio('a-0', 0.85), ratio('a-1', 0.85)])).toBe('a | a');
    expect(run(w, [ratio('a-0', 0.5), ratio('a-1', 0.5)])).toBe('- | -');
  });

  it('only the algorithm that crossed fires', () => {
    const b = alg({ name: 'b', pods: ['b-0'] });
    expect(run(list(alg(), b), [gpu('a-0', 50), gpu('a-1', 50), gpu('b-0', 95)])).toBe('b | b');
  });
});

describe('watchReading: fires again when the side changes, saturation included (the flap hold lets a saturated scale-up through)', () => {
  const side = (series: GpuSeries[], before: string[], heldUntilMs = Infinity) => {
    const out = watchReading(list(alg({ heldUntilMs })), answer(series), sides(before), 1000);
    return `${out.crossed.join(',') || '-'} | ${[...out.state].map(([k, v]) => `${k}:${v}`).join(',') || '-'}`;
  };
  it.each<[string, GpuSeries[], string[], string]>([
    // Held above max (a flap hold until far off): the pods saturating fire a pass at once.
    ['UpToSaturatedFires', [gpu('a-0', 99), gpu('a-1', 99)], ['a:up'], 'a | a:saturated'],
    ['JustBelowSaturatedDoesNot', [gpu('a-0', 98.9), gpu('a-1', 98.9)], ['a:up'], '- | a:up'],
    [
      'StillSaturatedDoesNotFireAgain',
      [gpu('a-0', 100), gpu('a-1', 100)],
      ['a:saturated'],
      '- | a:saturated',
    ],
    ['SaturatedFromInsideFiresOnce', [gpu('a-0', 100), gpu('a-1', 100)], [], 'a | a:saturated'],
    // Held below min by the scale-down window, then the load turns: the other side fires.
    ['DownToUpFires', [gpu('a-0', 90), gpu('a-1', 90)], ['a:down'], 'a | a:up'],
    ['UpToDownFires', [gpu('a-0', 10), gpu('a-1', 10)], ['a:up'], 'a | a:down'],
    ['SaturatedToUpFires', [gpu('a-0', 90), gpu('a-1', 90)], ['a:saturated'], 'a | a:up'],
  ])('%s', (_name, series, before, want) => {
    expect(side(series, before)).toBe(want);
  });
});

describe('watchReading counts only the series the pass would (attribute)', () => {
  const both = (o: Partial<GpuSeries> = {}, labels: Record<string, string | undefined> = {}) => [
    gpuWith('a-0', 95, labels, o),
    gpuWith('a-1', 95, labels, o),
  ];
  const withPods = (o: Record<string, Partial<PodInfo>>, w = list(alg())): Watchlist => ({
    ...w,
    judge: judge({ pods: snapshotPods(o) }),
  });
  const b = alg({ name: 'b', pods: ['b-0'] });
  it.each<[string, Watchlist, GpuSeries[], string]>([
    // WrongNode: a series whose node is not the pod's (a tenant's page naming another team's pods).
    ['FromAnotherNodeIsNotCounted', list(alg()), both({}, { node: 'n2' }), '- | -'],
    ['FromThePodsNodeCounts', list(alg()), both({}, { node: 'n1' }), 'a | a'],
    // A forged idle series from another node cannot pull a real crossing back into the band.
    [
      'AForgedSeriesCannotHideACrossing',
      withPods({ 'a-1': { gpuRequest: 2 } }),
      [...both(), gpuWith('a-1', 0, { node: 'n2', UUID: 'GPU-forged' })],
      'a | a',
    ],
    // UnknownNode: neither node nor Hostname, or a Hostname that names no node or pod gpuops knows.
    ['NoNodeNoHostnameIsNotCounted', list(alg()), both({}, { node: undefined }), '- | -'],
    [
      'AnUnknownHostnameIsNotCounted',
      list(alg()),
      both({}, { node: undefined, Hostname: 'dcgm-n9' }),
      '- | -',
    ],
    ['HostnameOfThePodsNodeCounts', list(alg()), both({}, { node: undefined, Hostname: 'n1' }), 'a | a'],
    [
      'HostnameOfTheNodesExporterPodCounts',
      list(alg()),
      both({}, { node: undefined, Hostname: 'dcgm-n1' }),
      'a | a',
    ],
    // Stale at the reading's time (1000 ms): 120 s old is kept, 1 ms older is not.
    ['OneMsOlderThanTheLimitIsStale', list(alg()), both({ timestamp: 1000 - 120_000 - 1 }), '- | -'],
    ['ExactlyTheLimitOldCounts', list(alg()), both({ timestamp: 1000 - 120_000 }), 'a | a'],
    // NotOwned: the pods carry the labels but a Job owns them (a benchmark run, a copy).
    [
      'PodsNotOwnedByTheDeploymentAreNotCounted',
      withPods({
        'a-0': { owner: { kind: 'Job', name: 'bench' } },
        'a-1': { owner: { kind: 'Job', name: 'bench' } },
      }),
      both(),
      '- | -',
    ],
    // TooManyGpus: two GPUs name a pod that requests one; with a request of two both count.
    [
      'MoreGpusThanRequestedAreNotCounted',
      list(alg()),
      [gpu('a-0', 95), gpuWith('a-0', 95, { gpu: '1', UUID: 'GPU-2' })],
      '- | -',
    ],
    [
      'AsManyGpusAsRequestedCount',
      withPods({ 'a-0': { gpuRequest: 2 } }),
      [gpu('a-0', 95), gpuWith('a-0', 95, { gpu: '1', UUID: 'GPU-2' })],
      'a | a',
    ],
    // A node that time-slices its GPUs reports the whole device under each pod: none is the pod's.
    [
      'OnATimeSlicedNodeNotCounted',
      { ...list(alg()), judge: judge({ sharedNodes: new Map([['n1', 'time-slicing, 4 replicas']]) }) },
      both(),
      '- | -',
    ],
    [
      'OnAnotherNodeTimeSlicingCounts',
      { ...list(alg()), judge: judge({ sharedNodes: new Map([['n2', 'time-slicing, 4 replicas']]) }) },
      both(),
      'a | a',
    ],
    // One GPU under two pods counts once, for the first by namespace/name (a-0), not again for b-0.
    [
      'ATimeSlicedGpuCountsOnce',
      list(alg(), b),
      [gpu('a-0', 95), gpuWith('b-0', 95, { UUID: 'GPU-a-0' })],
      'a | a',
    ],
    ['TwoGpusCountForBoth', list(alg(), b), [gpu('a-0', 95), gpu('b-0', 95)], 'a,b | a,b'],
  ])('%s', (_name, w, series, want) => {
    expect(run(w, series)).toBe(want);
  });

  it('a dropped series fakes no crossing, so a later real crossing still fires', () => {
    const w = list(alg());
    const forged = watchReading(w, answer(both({}, { node: 'n2' })), new Map(), 1000);
    expect([forged.crossed, [...forged.state.keys()]]).toEqual([[], []]);
    const real = watchReading(w, answer(both({ timestamp: 1500 })), forged.state, 2000);
    expect(real.crossed).toEqual(['a']);
  });

  it("judges a sample's age at the answer's evaluation time, not the trigger's clock", () => {
    const out = watchReading(list(alg()), answer(both({ timestamp: 0 }), 1000), new Map(), 10_000_000);
    expect(out.crossed).toEqual(['a']);
    expect(watchReading(list(alg()), answer(both({ timestamp: 0 })), new Map(), 10_000_000).crossed).toEqual(
      [],
    );
  });
});

describe('watchReading tests each algorithm on its own signal, as the pass reads it', () => {
  const vllm = { name: 'vllm-waiting', unit: 'requests', query: 'sum by (namespace, pod) (x)' };
  const serviceAlg = alg({
    signal: { kind: 'serviceMetric', unit: 'requests', serviceMetric: vllm },
    view: { ...alg().view, min: 2, max: 10 },
  });
  const memoryAlg = alg({ name: 'b', pods: ['b-0'], signal: { kind: 'gpuMemory', unit: '%' } });
  const queue = (pod: string, value: number): GpuSeries => ({
    metric: 'vllm-waiting',
    labels: { namespace: 'algorithms', pod },
    value,
    timestamp: 0,
  });
  const memory = (pod: string, value: number) => gpu(pod, value, { metric: 'gpuops:fb_used_percent' });
  /** The policy's metric answering `main`, and the other signals by key. */
  const reading = (main: GpuSeries[], signals: Record<string, GpuSeries[]>): UtilizationReading => ({
    ...answer(main),
    signals: Object.fromEntries(Object.entries(signals).map(([k, v]) => [k, answer(v)])),
  });
  const SERVICE = 'serviceMetric:vllm-waiting:algorithms';
  const outcome = (w: Watchlist, r: UtilizationReading) => {
    const out = watchReading(w, r, new Map(), 1000);
    return `${out.crossed.join(',') || '-'} | ${[...out.state.keys()].join(',') || '-'}`;
  };

  it.each<[string, Watchlist, UtilizationReading, string]>([
    // 12 waiting requests per pod > max 10: up, whatever the GPU reads.
    [
      'ServiceMetricAbove',
      list(serviceAlg),
      reading([gpu('a-0', 50), gpu('a-1', 50)], { [SERVICE]: [queue('a-0', 12), queue('a-1', 12)] }),
      'a | a',
    ],
    // Inside 2..10 requests: no crossing, though the GPU reads 95 % (above a GPU band).
    [
      'ServiceMetricInside',
      list(serviceAlg),
      reading([gpu('a-0', 95), gpu('a-1', 95)], { [SERVICE]: [queue('a-0', 5), queue('a-1', 5)] }),
      '- | -',
    ],
    [
      'ServiceMetricBelow',
      list(serviceAlg),
      reading([], { [SERVICE]: [queue('a-0', 1), queue('a-1', 1)] }),
      'a | a',
    ],
    // The service metric not read (or no data): nothing said of it; the GPU reading is not its signal.
    ['ServiceMetricUnread', list(serviceAlg), reading([gpu('a-0', 95), gpu('a-1', 95)], {}), '- | -'],
    // gpuMemory 90 % > 80 %: up; gpuUtil of the same pod at 50 % is not b's signal.
    [
      'GpuMemoryAbove',
      list(memoryAlg),
      reading([gpu('b-0', 50)], { gpuMemory: [memory('b-0', 90)] }),
      'b | b',
    ],
    [
      'GpuMemoryInside',
      list(memoryAlg),
      reading([gpu('b-0', 95)], { gpuMemory: [memory('b-0', 50)] }),
      '- | -',
    ],
    // Both in one reading: each on its own signal.
    [
      'Both',
      list(serviceAlg, memoryAlg),
      reading([gpu('a-0', 5), gpu('a-1', 5), gpu('b-0', 5)], {
        [SERVICE]: [queue('a-0', 12), queue('a-1', 12)],
        gpuMemory: [memory('b-0', 90)],
      }),
      'a,b | a,b',
    ],
  ])('%s', (_name, w, r, want) => {
    expect(outcome(w, r)).toBe(want);
  });
});
