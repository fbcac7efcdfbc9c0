/**
 * Each signal of a pass judged once (`judgeSignals`): the main reading is the policy's metric, an
 * algorithm on that signal shares it, an algorithm on another GPU signal reads its own series
 * (percent or ratio), shared GPUs are named, and "no data" names the signal.
 */
import { describe, expect, it } from 'vitest';
import type { NodeInfo, PodInfo } from '../cluster/types.js';
import type { GpuSeries, UtilizationReading } from '../metrics/types.js';
import type { Policy, ResolvedAlgorithm } from '../definitions/types.js';
import { algorithm, pod, policy } from '../../test/scaling/support.js';
import { judgeSignals, sharedNodesOf } from './judged-signals.js';

const NOW = new Date('2025-06-01T12:00:00Z');
const POD = pod('resnet50-infer-7d9f-0', { nodeName: 'lt-1' });

function series(metric: string, value: number, labels: Record<string, string> = {}): GpuSeries {
  return {
    metric,
    labels: {
      gpu: '0',
      UUID: 'GPU-0',
      Hostname: 'dcgm',
      node: 'lt-1',
      namespace: 'algorithms',
      pod: POD.name,
      ...labels,
    },
    value,
    timestamp: NOW.getTime() - 5_000,
  };
}

function judge(reading: UtilizationReading, p: Policy, algorithms: ResolvedAlgorithm[] = [algorithm()]) {
  return judgeSignals({
    algorithms,
    reading,
    pods: [POD],
    nodes: [],
    policy: p,
    now: NOW,
    deploymentOf: () => 'resnet50-infer',
    podIndex: new Map<string, PodInfo>([[`${POD.namespace}/${POD.name}`, POD]]),
  });
}

const utilOf = (j: ReturnType<typeof judge>['main']) =>
  (j.attribution.byAlgorithm.get('resnet50-infer')?.samples ?? []).map((s) => s.utilization);

describe('judgeSignals', () => {
  it('the main reading is the policy metric; an algorithm on it shares the one judged reading', () => {
    const reading: UtilizationReading = {
      ok: true,
      errors: [],
      series: [series('DCGM_FI_DEV_GPU_UTIL', 70)],
    };
    const j = judge(reading, policy());
    expect(utilOf(j.main)).toEqual([70]);
    expect(j.main.evaluatedAt).toBe(NOW.getTime());
    expect(j.main.noDataMessage).toBeNull();
    expect([...j.byKey.keys()]).toEqual(['gpuUtil']);
    expect(j.byKey.get('gpuUtil')).toBe(j.main);
  });

  it('with the engine-active policy the main reading is a ratio read as percent, and gpuUtil reads its own series', () => {
    const gpuUtil: UtilizationReading = {
      ok: true,
      errors: [],
      series: [series('DCGM_FI_DEV_GPU_UTIL', 40)],
    };
    const reading: UtilizationReading = {
      ok: true,
      errors: [],
      evaluatedAt: NOW.getTime() - 1_000,
      series: [series('DCGM_FI_PROF_GR_ENGINE_ACTIVE', 0.5)],
      signals: { gpuUtil },
    };
    const onUtil = { ...algorithm(), signal: { kind: 'gpuUtil' as const, unit: '%' } };
    const j = judge(reading, policy({ metric: 'DCGM_FI_PROF_GR_ENGINE_ACTIVE' }), [onUtil]);
    expect(utilOf(j.main)).toEqual([50]);
    expect(j.main.evaluatedAt).toBe(NOW.getTime() - 1_000);
    expect(j.byKey.get('gpuEngineActive')).toBe(j.main);
    expect(utilOf(j.byKey.get('gpuUtil')!)).toEqual([40]);
  });

  it('no data names the signal: GPU, or the service metric', () => {
    const down: UtilizationReading = { ok: false, reason: 'Unreachable', message: 'connect ECONNREFUSED' };
    const svc = {
      ...algorithm(),
      signal: {
        kind: 'serviceMetric' as const,
        unit: 'req/s',
        serviceMetric: { name: 'rps', query: 'x', target: 5 },
      },
    } as unknown as ResolvedAlgorithm;
    const j = judge(down, policy(), [svc]);
    expect(j.main.noDataMessage).toBe('no GPU metrics (Unreachable): connect ECONNREFUSED');
    expect(j.byKey.get('serviceMetric:rps:algorithms')?.noDataMessage).toBe(
      'no service metric rps metrics (Empty): signal serviceMetric:rps:algorithms was not read in this pass',
    );
  });

  it('dropped series are listed by pod; those of no pod are not', () => {
    const reading: UtilizationReading = {
      ok: true,
      errors: [],
      series: [
        series('DCGM_FI_DEV_GPU_UTIL', 70, { pod: 'gone-0' }),
        series('DCGM_FI_DEV_GPU_UTIL', 9, { pod: '', namespace: '', UUID: 'GPU-9' }),
      ],
    };
    const j = judge(reading, policy());
    expect([...j.main.droppedByPod.keys()]).toEqual(['algorithms/gone-0']);
    expect(j.main.droppedByPod.get('algorithms/gone-0')?.length).toBe(1);
  });

  it('sharedNodesOf names how each shared node shares its GPUs', () => {
    const node = (name: string, labels: Record<string, string>) =>
      ({ name, labels, gpuAllocatable: 8 }) as unknown as NodeInfo;
    expect([
      ...sharedNodesOf([
        node('ts', { 'nvidia.com/gpu.sharing-strategy': 'time-slicing', 'nvidia.com/gpu.replicas': '4' }),
        node('plain', {}),
      ]),
    ]).toEqual([['ts', 'time-slicing, 4 replicas of each GPU']]);
  });
});
