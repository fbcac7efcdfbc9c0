/**
 * Scaling on the signal that limits the service: each signal's reading and its no-data cases, as
 * `decideScaling` judges them (the pass's main reading plus `reading.signals`), and the decision in
 * the signal's terms. One algorithm of 3 replicas on gpu-a per row; its band is 30..80 % for the
 * GPU signals and 2..10 requests for the service metric.
 */
import { describe, expect, it } from 'vitest';
import { GPU_MEMORY_METRIC, gpuMemorySeries, serviceMetricQuery } from '../../src/metrics/service-metric.js';
import type { GpuSeries, UtilizationReading } from '../../src/metrics/types.js';
import type { NodeInfo } from '../../src/cluster/types.js';
import { decideScaling } from '../../src/scaling/decide-scaling.js';
import { roundReading } from '../../src/scaling/signal-reading.js';
import type { ResolvedAlgorithm, ResolvedSignal } from '../../src/definitions/types.js';
import { algorithm, pod, policyNoWindows } from './support.js';
import { nodeInfo } from '../support/node-info.js';

const NOW = new Date('2025-06-01T12:00:00Z');
const T = NOW.getTime();
const PODS = [0, 1, 2].map((i) => pod(`resnet50-infer-7d9f-${i}`, { nodeName: 'gpu-a' }));
const QUEUE: ResolvedSignal = {
  kind: 'serviceMetric',
  unit: 'requests',
  serviceMetric: { name: 'vllm-waiting', unit: 'requests', query: 'q{namespace="$namespace"}' },
};

const gpu = (metric: string, values: number[], extra: Record<string, string> = {}): GpuSeries[] =>
  values.map((value, i) => ({
    metric,
    labels: {
      UUID: `GPU-${i}`,
      gpu: String(i),
      node: 'gpu-a',
      namespace: 'algorithms',
      pod: PODS[i]!.name,
      ...extra,
    },
    value,
    timestamp: T - 5_000,
  }));
const perPod = (values: number[], o: { pod?: (i: number) => string } = {}): GpuSeries[] =>
  values.map((value, i) => ({
    metric: 'vllm-waiting',
    labels: { namespace: 'algorithms', pod: o.pod?.(i) ?? PODS[i]!.name },
    value,
    timestamp: T - 5_000,
  }));
const ok = (series: GpuSeries[], signals?: Record<string, UtilizationReading>): UtilizationReading => ({
  ok: true,
  series,
  errors: [],
  evaluatedAt: T,
  ...(signals ? { signals } : {}),
});
const none = (message = 'no answer'): UtilizationReading => ({ ok: false, reason: 'Unreachable', message });

function decide(
  signal: ResolvedSignal | undefined,
  reading: UtilizationReading,
  nodes: NodeInfo[] = [],
  policy = policyNoWindows(),
) {
  const base = algorithm();
  const alg: ResolvedAlgorithm = {
    ...base,
    ...(signal ? { signal } : {}),
    scaling:
      signal?.kind === 'serviceMetric' ? { ...base.scaling, utilization: { min: 2, max: 10 } } : base.scaling,
  };
  return decideScaling({
    algorithms: [{ algorithm: alg, pool: 'long-task', replicas: 3 }],
    snapshot: { takenAt: '', nodes, pods: PODS },
    reading,
    recent: [],
    policy,
    now: NOW,
  }).decisions[0]!;
}
const brief = (d: ReturnType<typeof decide>) => `${d.action} ${d.reason} ${d.replicas.to} ${d.utilization}`;

describe('each signal reads its own field', () => {
  const util = gpu('DCGM_FI_DEV_GPU_UTIL', [99, 98, 100]);
  it.each<[string, ResolvedSignal | undefined, UtilizationReading, string]>([
    ['GpuUtilReadsTheMainReading', undefined, ok(util), 'hold NoCapacity 3 99'],
    [
      'GpuEngineActiveReadsItsRatioAsPercent',
      { kind: 'gpuEngineActive', unit: '%' },
      ok(util, { gpuEngineActive: ok(gpu('DCGM_FI_PROF_GR_ENGINE_ACTIVE', [0.1, 0.2, 0.15])) }),
      'scale-down BelowMin 2 15',
    ],
    [
      'GpuMemoryReadsUsedOverUsedPlusFree',
      { kind: 'gpuMemory', unit: '%' },
      ok(util, {
        gpuMemory: ok(
          gpuMemorySeries(
            gpu('DCGM_FI_DEV_FB_USED', [40_000, 40_000, 40_000]),
            gpu('DCGM_FI_DEV_FB_FREE', [40_000, 40_000, 40_000]),
          ),
        ),
      }),
      'hold WithinRange 3 50',
    ],
    [
      'ServiceMetricReadsItsOwnUnit',
      QUEUE,
      ok(util, { 'serviceMetric:vllm-waiting:algorithms': ok(perPod([1, 0.5, 1.5])) }),
      'scale-down BelowMin 2 1',
    ],
  ])('%s', (_name, signal, reading, want) => expect(brief(decide(signal, reading))).toBe(want));
});

describe('no data on a signal is a hold with its reason, never a scale-down', () => {
  const util = gpu('DCGM_FI_DEV_GPU_UTIL', [10, 10, 10]);
  it.each<[string, ResolvedSignal, UtilizationReading, string, string]>([
    [
      'SignalNotReadThisPass',
      QUEUE,
      ok(util),
      'hold NoData 3 null',
      'signal serviceMetric:vllm-waiting:algorithms was not read',
    ],
    [
      'SourceFailedForTheSignal',
      QUEUE,
      ok(util, { 'serviceMetric:vllm-waiting:algorithms': none('connection refused') }),
      'hold NoData 3 null',
      'no service metric vllm-waiting metrics (Unreachable): connection refused',
    ],
    [
      'SeveralSeriesForOnePodIsNoSampleForIt',
      QUEUE,
      ok(util, {
        'serviceMetric:vllm-waiting:algorithms': ok([
          ...perPod([1, 1, 1]),
          ...perPod([9], { pod: () => PODS[0]!.name }),
        ]),
      }),
      'hold InsufficientSamples 3 1',
      'SeveralSeries: 2',
    ],
    [
      'ANegativeValueIsOutOfRange',
      QUEUE,
      ok(util, { 'serviceMetric:vllm-waiting:algorithms': ok(perPod([-1, 1, 1])) }),
      'hold InsufficientSamples 3 1',
      'OutOfRange: 1',
    ],
    [
      'ASeriesWithoutPodIsNoPerPodSignal',
      QUEUE,
      ok(util, {
        'serviceMetric:vllm-waiting:algorithms': ok([
          { metric: 'vllm-waiting', labels: { namespace: 'algorithms' }, value: 1, timestamp: T },
        ]),
      }),
      'hold NoData 3 null',
      'no usable GPU sample',
    ],
    [
      'GpuMemoryWithoutFreeFieldHasNoSeries',
      { kind: 'gpuMemory', unit: '%' },
      ok(util, { gpuMemory: ok(gpuMemorySeries(gpu('DCGM_FI_DEV_FB_USED', [1, 1, 1]), [])) }),
      'hold NoData 3 null',
      'no usable GPU sample',
    ],
  ])('%s', (_name, signal, reading, want, says) => {
    const d = decide(signal, reading);
    expect(brief(d)).toBe(want);
    expect(d.message).toContain(says);
  });
});

describe('shared GPUs: a device-level value is not a pod’s own', () => {
  const shared = nodeInfo('gpu-a', {
    labels: { 'nvidia.com/gpu.replicas': '4', 'nvidia.com/gpu.sharing-strategy': 'time-slicing' },
    gpuAllocatable: 4,
  });
  it('the GPU signals refuse it (SharedDevice, named), a service metric is the pod’s own', () => {
    const util = gpu('DCGM_FI_DEV_GPU_UTIL', [10, 10, 10]);
    const onGpu = decide(undefined, ok(util), [shared]);
    expect(brief(onGpu)).toBe('hold NoData 3 null');
    expect(onGpu.message).toContain('SharedDevice: 3');
    const onQueue = decide(
      QUEUE,
      ok(util, { 'serviceMetric:vllm-waiting:algorithms': ok(perPod([1, 1, 1])) }),
      [shared],
    );
    expect(brief(onQueue)).toBe('scale-down BelowMin 2 1');
  });
});

describe('the decision in the signal’s terms', () => {
  it('a service metric: its name and unit, never %', () => {
    const d = decide(QUEUE, ok([], { 'serviceMetric:vllm-waiting:algorithms': ok(perPod([12, 14, 13])) }));
    expect(d.signal).toEqual({ kind: 'serviceMetric', unit: 'requests', metric: 'vllm-waiting' });
    expect(d.message).toMatch(
      /^resnet50-infer: vllm-waiting 13 requests over 3 of 3 Ready pod\(s\) > max 10 requests; /,
    );
    expect(d.message).not.toContain('%');
  });
  it('a small service metric keeps three significant digits, recorded and shown (not 0.2 for 0.183)', () => {
    const d = decide(
      QUEUE,
      ok([], { 'serviceMetric:vllm-waiting:algorithms': ok(perPod([0.18, 0.19, 0.18])) }),
    );
    expect(d.utilization).toBe(0.183);
    expect(d.message).toMatch(
      /^resnet50-infer: vllm-waiting 0\.183 requests over 3 of 3 Ready pod\(s\) < min 2 requests/,
    );
  });
  it.each<[string, ResolvedSignal | undefined, number[], number]>([
    // 3 pods at 13 requests, band 2–10: the middle, 6, needs ceil(3 × 13 / 6) = 7 (not 60 requests: 4 by step).
    ['a service metric sizes for its band’s middle', QUEUE, [12, 14, 13], 7],
    // 3 pods at 90 %: the policy's 60 % needs ceil(3 × 90 / 60) = 5.
    ['gpuUtil sizes for the policy’s targetUtilization', undefined, [90, 90, 90], 5],
  ])('sizing load under a policy targetUtilization of 60 (percent): %s', (_n, signal, values, to) => {
    const policy = policyNoWindows({ sizing: 'load', targetUtilization: 60 });
    const reading = signal
      ? ok([], { 'serviceMetric:vllm-waiting:algorithms': ok(perPod(values)) })
      : ok(gpu('DCGM_FI_DEV_GPU_UTIL', values));
    const d = decide(signal, reading, [nodeInfo('gpu-a', { pool: 'long-task', gpuRequested: 3 })], policy);
    expect(`${d.action} ${d.replicas.to}`).toBe(`scale-up ${to}`);
  });
  it.each<[string, ResolvedSignal, number, number]>([
    ['gpuUtil: one decimal', { kind: 'gpuUtil', unit: '%' }, 0.1818, 0.2],
    ['gpuMemory: one decimal', { kind: 'gpuMemory', unit: '%' }, 55.55, 55.6],
    ['service metric below 10: 3 digits', QUEUE, 0.1818, 0.182],
    ['service metric just below 10', QUEUE, 9.9949, 9.99],
    ['service metric at 10: one decimal', QUEUE, 10.04, 10],
    ['service metric tiny', QUEUE, 0.0045678, 0.00457],
    ['service metric 0', QUEUE, 0, 0],
  ])('roundReading, %s', (_n, signal, x, want) => {
    expect(roundReading(x, signal)).toBe(want);
  });
  it('gpuUtil stays as it was (no signal field)', () => {
    const d = decide(undefined, ok(gpu('DCGM_FI_DEV_GPU_UTIL', [50, 50, 50])));
    expect(d.signal).toBeUndefined();
    expect(d.message).toBe(
      'resnet50-infer: utilisation 50% over 3 of 3 Ready pod(s) is within 30–80%; replicas stay at 3',
    );
  });
});

describe('pure pieces', () => {
  it('gpuMemorySeries pairs by labels; a zero total or a missing pair is left out', () => {
    const used = gpu('DCGM_FI_DEV_FB_USED', [20, 0, 5]);
    const free = gpu('DCGM_FI_DEV_FB_FREE', [60, 0]);
    expect(gpuMemorySeries(used, free).map((s) => [s.metric, s.labels.UUID, s.value])).toEqual([
      [GPU_MEMORY_METRIC, 'GPU-0', 25],
    ]);
  });
  it('serviceMetricQuery puts the namespace and window in; refuses a namespace that is not a label', () => {
    expect(
      serviceMetricQuery('sum by (namespace, pod) (rate(x{namespace="$namespace"}[$window]))', 'team-a', 60),
    ).toBe('sum by (namespace, pod) (rate(x{namespace="team-a"}[60s]))');
    expect(() => serviceMetricQuery('x{namespace="$namespace"}', 'a"} or up{', 60)).toThrow(
      /not a DNS-1123 label/,
    );
  });
});
