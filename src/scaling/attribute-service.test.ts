/**
 * Attributing a service metric's series to pods, row by row: what is dropped and why (the exact
 * record, with the pod or the series named), and what becomes a sample (value, time, order).
 */
import { describe, expect, it } from 'vitest';
import { pod, policy, RULE_NOW } from '../../test/scaling/support.js';
import type { GpuSeries } from '../metrics/index.js';
import type { PodInfo } from '../cluster/index.js';
import { attributeServiceMetric } from './attribute-service.js';

const NOW = RULE_NOW.getTime();
const p = policy({ staleSampleSeconds: 120 });

function series(
  podName: string | undefined,
  value: number,
  ageS = 10,
  namespace: string | null = 'algorithms',
): GpuSeries {
  const labels: Record<string, string> = {};
  if (namespace !== null) labels.namespace = namespace;
  if (podName !== undefined) labels.pod = podName;
  return { metric: 'vllm-waiting', labels, value, timestamp: NOW - ageS * 1000 };
}

function indexOf(...pods: PodInfo[]): Map<string, PodInfo> {
  return new Map(pods.map((x) => [`${x.namespace}/${x.name}`, x]));
}

const [a, b] = [pod('resnet50-infer-7d9f-a'), pod('resnet50-infer-7d9f-b')];

describe('attributeServiceMetric drops', () => {
  it.each<[string, GpuSeries, PodInfo[], object]>([
    [
      'a value not finite',
      series(a.name, Number.NaN),
      [a],
      {
        reason: 'NotFinite',
        message: 'vllm-waiting of pod algorithms/resnet50-infer-7d9f-a: value NaN is not a number',
      },
    ],
    [
      'a value below 0',
      series(a.name, -0.5),
      [a],
      {
        reason: 'OutOfRange',
        message: 'vllm-waiting of pod algorithms/resnet50-infer-7d9f-a: -0.5 is below 0',
      },
    ],
    [
      'a sample older than staleSampleSeconds',
      series(a.name, 1, 121),
      [a],
      {
        reason: 'Stale',
        ageSeconds: 121,
        message:
          'vllm-waiting of pod algorithms/resnet50-infer-7d9f-a: newest sample is 121s old (limit 120s)',
      },
    ],
    [
      'a series without a pod label',
      series(undefined, 1),
      [a],
      {
        reason: 'NoPod',
        pod: '',
        message: 'series vllm-waiting: no pod label: the query does not answer per pod',
      },
    ],
    [
      'a pod not in the snapshot',
      series('gone', 1),
      [a],
      {
        reason: 'UnknownPod',
        pod: 'gone',
        message: 'vllm-waiting of pod algorithms/gone: pod is not in the snapshot',
      },
    ],
    [
      'a pod not Ready',
      series(a.name, 1),
      [{ ...a, ready: false }],
      {
        reason: 'PodNotReady',
        message: 'vllm-waiting of pod algorithms/resnet50-infer-7d9f-a: pod is not Ready',
      },
    ],
    [
      'a series without a namespace label',
      series(a.name, 1, 10, null),
      [a],
      {
        reason: 'UnknownPod',
        namespace: '',
        message: 'vllm-waiting of pod /resnet50-infer-7d9f-a: pod is not in the snapshot',
      },
    ],
  ])('%s', (_, s, pods, want) => {
    const out = attributeServiceMetric([s], indexOf(...pods), p, RULE_NOW);
    expect(out.byAlgorithm.size).toBe(0);
    expect(out.dropped).toEqual([
      { gpu: '', namespace: s.labels.namespace ?? '', pod: s.labels.pod ?? '', ...want },
    ]);
    expect(out.dropped[0]!.ageSeconds === undefined).toBe(!('ageSeconds' in want));
  });

  it('a pod with two series: both dropped, the pod gets no sample', () => {
    const out = attributeServiceMetric(
      [series(a.name, 1), series(a.name, 2), series(b.name, 3)],
      indexOf(a, b),
      p,
      RULE_NOW,
    );
    expect(out.dropped.map((d) => [d.pod, d.reason, d.message])).toEqual([
      [
        a.name,
        'SeveralSeries',
        `vllm-waiting of pod algorithms/${a.name}: 2 series name this pod; the query must answer one per pod`,
      ],
      [
        a.name,
        'SeveralSeries',
        `vllm-waiting of pod algorithms/${a.name}: 2 series name this pod; the query must answer one per pod`,
      ],
    ]);
    expect(out.byAlgorithm.get('resnet50-infer')!.samples.map((x) => x.pod)).toEqual([b.name]);
  });
});

describe('attributeServiceMetric samples', () => {
  it('one per pod, by pod name, at the series’ time; 0 and the age limit itself count', () => {
    const out = attributeServiceMetric(
      [series(b.name, 0, 120), series(a.name, 2.5, 5)],
      indexOf(a, b),
      p,
      RULE_NOW,
    );
    expect(out).toEqual({
      byAlgorithm: new Map([
        [
          'resnet50-infer',
          {
            algorithm: 'resnet50-infer',
            samples: [
              {
                namespace: 'algorithms',
                pod: a.name,
                utilization: 2.5,
                at: new Date(NOW - 5000).toISOString(),
                gpus: [],
              },
              {
                namespace: 'algorithms',
                pod: b.name,
                utilization: 0,
                at: new Date(NOW - 120_000).toISOString(),
                gpus: [],
              },
            ],
            flags: [],
            dropped: [],
          },
        ],
      ]),
      unattributed: [],
      dropped: [],
      flags: [],
    });
  });

  it('pods of two algorithms: each its own entry', () => {
    const c = pod('other-5f5f-c', { algorithm: 'other' });
    const out = attributeServiceMetric([series(c.name, 1), series(a.name, 2)], indexOf(a, c), p, RULE_NOW);
    expect([...out.byAlgorithm.keys()].sort()).toEqual(['other', 'resnet50-infer']);
    expect(out.byAlgorithm.get('other')!.samples.map((x) => x.utilization)).toEqual([1]);
  });
});
