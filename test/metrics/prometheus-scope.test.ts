/**
 * Issue 26: the Prometheus read asks only for what gpuops attributes. A real Prometheus
 * (`/usr/bin/prometheus`) scrapes two dcgm-exporter pages, one as a ServiceMonitor does (the
 * target's own pod/namespace win, the page's become `exported_*`) and one with the page's labels
 * kept. The pages hold pods in the algorithms' namespaces, in a namespace that only starts like
 * one (`algorithms-x`), in another team's namespace, idle GPUs and a time-sliced GPU. The scoped
 * query must give attribution exactly what the unscoped one gives it for the algorithms'
 * namespaces, and nothing of the rest.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrometheusSource } from '../../src/metrics/prometheus.js';
import { ATTRIBUTION_LABELS } from '../../src/metrics/query.js';
import type { GpuSeries } from '../../src/metrics/types.js';
import { attribute } from '../../src/scaling/attribute.js';
import { pod, policy } from '../scaling/support.js';
import {
  serveExporterPages,
  startPrometheus,
  type ExporterPages,
  type RunningPrometheus,
} from '../support/prometheus.js';

/** One DCGM_FI_DEV_GPU_UTIL line as dcgm-exporter writes it (empty pod = idle GPU). */
function line(host: string, gpu: number, uuid: string, namespace: string, podName: string, util: number) {
  return (
    `DCGM_FI_DEV_GPU_UTIL{gpu="${gpu}",UUID="${uuid}",pci_bus_id="00000000:1${gpu}:00.0",device="nvidia${gpu}",` +
    `modelName="NVIDIA A100-SXM4-80GB",Hostname="${host}",DCGM_FI_DRIVER_VERSION="550.127.05",` +
    `container="${podName ? 'main' : ''}",namespace="${namespace}",pod="${podName}"} ${util}`
  );
}

const PAGE_A = [
  '# TYPE DCGM_FI_DEV_GPU_UTIL gauge',
  line('nvidia-dcgm-exporter-a', 0, 'GPU-a0', 'algorithms', 'resnet-7d9f-aaaaa', 70),
  line('nvidia-dcgm-exporter-a', 1, 'GPU-a1', 'algorithms-x', 'resnet-7d9f-bbbbb', 50),
  line('nvidia-dcgm-exporter-a', 2, 'GPU-a2', 'team-b', 'other-1', 90),
  line('nvidia-dcgm-exporter-a', 3, 'GPU-a3', '', '', 0),
  // Time-slicing: one GPU under two pods of the same algorithm.
  line('nvidia-dcgm-exporter-a', 4, 'GPU-a4', 'algorithms', 'resnet-7d9f-ccccc', 40),
  line('nvidia-dcgm-exporter-a', 4, 'GPU-a4', 'algorithms', 'resnet-7d9f-ddddd', 40),
].join('\n');
const PAGE_B = [
  '# TYPE DCGM_FI_DEV_GPU_UTIL gauge',
  line('nvidia-dcgm-exporter-b', 0, 'GPU-b0', 'vision', 'detr-5c6b-eeeee', 30),
  line('nvidia-dcgm-exporter-b', 1, 'GPU-b1', 'team-b', 'other-2', 80),
  line('nvidia-dcgm-exporter-b', 2, 'GPU-b2', '', '', 0),
].join('\n');

const NAMESPACES = ['vision', 'algorithms'];
const PODS = [
  ...['aaaaa', 'ccccc', 'ddddd'].map((s) =>
    pod(`resnet-7d9f-${s}`, { algorithm: 'resnet', nodeName: 'gpu-a' }),
  ),
  pod('resnet-7d9f-bbbbb', { namespace: 'algorithms-x', algorithm: 'resnet', nodeName: 'gpu-a' }),
  pod('other-1', { namespace: 'team-b', managed: false, algorithm: null, nodeName: 'gpu-a' }),
  pod('detr-5c6b-eeeee', { namespace: 'vision', algorithm: 'detr', nodeName: 'gpu-b' }),
  pod('other-2', { namespace: 'team-b', managed: false, algorithm: null, nodeName: 'gpu-b' }),
];

let exporter: ExporterPages;
let prom: RunningPrometheus;
let bytes = 0;
let calls = 0;

/** A source on the test's Prometheus counting requests and answer bytes. */
function source(): PrometheusSource {
  return new PrometheusSource({
    url: prom.url,
    fetch: async (input, init) => {
      calls++;
      const res = await fetch(input, init);
      const text = await res.text();
      bytes += Buffer.byteLength(text);
      return new Response(text, { status: res.status, headers: res.headers });
    },
  });
}

beforeAll(async () => {
  exporter = await serveExporterPages({ '/a/metrics': () => PAGE_A, '/b/metrics': () => PAGE_B });
  const address = exporter.address;
  prom = await startPrometheus([
    {
      address,
      metricsPath: '/a/metrics',
      labels: { node: 'gpu-a', pod: 'nvidia-dcgm-exporter-a', namespace: 'gpu-operator' },
    },
    { address, metricsPath: '/b/metrics', labels: { node: 'gpu-b' } },
  ]);
  await prom.waitForScrapes(3);
}, 60_000);

afterAll(async () => {
  await prom?.stop();
  await exporter?.close();
});

/**
 * What a pass decides on: each algorithm's samples (pod, utilisation, GPUs) in its namespaces
 * (a pass takes only the samples of the algorithm's own namespace) and flags.
 */
function attributed(series: readonly GpuSeries[], at: number) {
  const a = attribute(series, PODS, policy(), new Date(at));
  return [...a.byAlgorithm.values()]
    .map((x) => ({
      algorithm: x.algorithm,
      samples: x.samples
        .filter((s) => NAMESPACES.includes(s.namespace))
        .map((s) => [s.namespace, s.pod, s.utilization, s.gpus]),
      flags: x.flags.map((f) => `${f.kind} ${f.gpu} ${f.countedFor}`),
    }))
    .sort((p, q) => (p.algorithm < q.algorithm ? -1 : 1));
}

describe('PrometheusSource scoped to the algorithms’ namespaces (real Prometheus)', () => {
  it('answers only the series of pods in those namespaces, each with only the labels attribution reads', async () => {
    calls = 0;
    const r = await source().read({
      metric: 'DCGM_FI_DEV_GPU_UTIL',
      windowSeconds: 60,
      namespaces: NAMESPACES,
    });
    if (!r.ok) throw new Error(r.message);
    expect(calls).toBe(1);
    const seen = r.series.map((s) => {
      const ns = s.labels.exported_namespace ?? s.labels.namespace;
      return `${ns}/${s.labels.exported_pod ?? s.labels.pod} ${s.labels.UUID} ${s.value}`;
    });
    expect(seen.sort()).toEqual([
      'algorithms/resnet-7d9f-aaaaa GPU-a0 70',
      'algorithms/resnet-7d9f-ccccc GPU-a4 40',
      'algorithms/resnet-7d9f-ddddd GPU-a4 40',
      'vision/detr-5c6b-eeeee GPU-b0 30',
    ]);
    const allowed = new Set<string>(ATTRIBUTION_LABELS);
    for (const s of r.series) {
      expect(Object.keys(s.labels).filter((k) => !allowed.has(k))).toEqual([]);
      expect(s.labels.node).toMatch(/^gpu-[ab]$/);
      expect(s.timestamp).toBeLessThanOrEqual(r.evaluatedAt!);
    }
    // Page A's series keep the exporter's own namespace beside the workload's.
    const a0 = r.series.find((s) => s.labels.UUID === 'GPU-a0')!;
    expect([a0.labels.namespace, a0.labels.exported_namespace]).toEqual(['gpu-operator', 'algorithms']);
  });

  it('gives attribution the same samples and flags as the unscoped read, in fewer bytes', async () => {
    bytes = 0;
    const all = await source().read({ metric: 'DCGM_FI_DEV_GPU_UTIL', windowSeconds: 60 });
    const allBytes = bytes;
    bytes = 0;
    const scoped = await source().read({
      metric: 'DCGM_FI_DEV_GPU_UTIL',
      windowSeconds: 60,
      namespaces: NAMESPACES,
    });
    const scopedBytes = bytes;
    if (!all.ok || !scoped.ok) throw new Error('no data');
    expect(all.series).toHaveLength(9);
    expect(scoped.series).toHaveLength(4);
    const fromScoped = attributed(scoped.series, scoped.evaluatedAt!);
    expect(fromScoped).toEqual(attributed(all.series, all.evaluatedAt!));
    expect(fromScoped).toEqual([
      { algorithm: 'detr', samples: [['vision', 'detr-5c6b-eeeee', 30, ['GPU-b0']]], flags: [] },
      {
        algorithm: 'resnet',
        samples: [
          ['algorithms', 'resnet-7d9f-aaaaa', 70, ['GPU-a0']],
          ['algorithms', 'resnet-7d9f-ccccc', 40, ['GPU-a4']],
        ],
        flags: ['TimeSlicedGpu GPU-a4 algorithms/resnet-7d9f-ccccc'],
      },
    ]);
    // 4 of 9 series, each with 9 labels of 14: well under half the bytes.
    expect(scopedBytes).toBeLessThan(allBytes * 0.4);
  });

  it('reads the stabilisation window through the scoped query too', async () => {
    const r = await source().read({
      metric: 'DCGM_FI_DEV_GPU_UTIL',
      windowSeconds: 60,
      historySeconds: 2,
      namespaces: ['vision'],
    });
    if (!r.ok) throw new Error(r.message);
    expect(r.series).toHaveLength(1);
    const [detr] = r.series;
    expect(detr!.window?.max).toBe(30);
    expect(detr!.window?.oldest).not.toBeNull();
    expect(r.evaluatedAt! - detr!.window!.oldest!).toBeGreaterThanOrEqual(2_000);
  });

  it('a namespace with no GPU series is Empty; no namespace at all sends no request', async () => {
    const none = await source().read({
      metric: 'DCGM_FI_DEV_GPU_UTIL',
      windowSeconds: 60,
      namespaces: ['idle'],
    });
    expect(none).toMatchObject({ ok: false, reason: 'Empty' });
    calls = 0;
    const nothing = await source().read({
      metric: 'DCGM_FI_DEV_GPU_UTIL',
      windowSeconds: 60,
      namespaces: [],
    });
    expect(nothing).toMatchObject({ ok: false, reason: 'Empty' });
    expect(!nothing.ok && nothing.message).toContain('no algorithm namespace');
    expect(calls).toBe(0);
  });
});
