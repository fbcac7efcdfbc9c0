/**
 * GPU utilisation of both vendors through one Prometheus read. A real Prometheus
 * (`/usr/bin/prometheus`) scrapes a dcgm-exporter page and AMD device-metrics-exporter pages side
 * by side: one AMD page as the AMD GPU operator's ServiceMonitor does (job
 * `default-metrics-exporter`, the target's own pod/namespace win and the page's become
 * `exported_*`), one with the page's labels kept, and a tenant's page printing `gpu_gfx_activity`
 * under its own job. One scoped query must read both vendors' pods, in dcgm-exporter's spelling,
 * and none of the neighbours: idle AMD GPUs (`pod=""`), a namespace that only starts like an
 * algorithms' one, another team's pods, the tenant's forged series.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrometheusSource } from '../../src/metrics/prometheus.js';
import type { GpuSeries } from '../../src/metrics/types.js';
import { attribute } from '../../src/scaling/attribute.js';
import { pod, policy } from '../scaling/support.js';
import {
  serveExporterPages,
  startPrometheus,
  type ExporterPages,
  type RunningPrometheus,
} from '../support/prometheus.js';

/** One `DCGM_FI_DEV_GPU_UTIL` line as dcgm-exporter writes it. */
function nvidia(gpu: number, uuid: string, namespace: string, podName: string, util: number) {
  return (
    `DCGM_FI_DEV_GPU_UTIL{gpu="${gpu}",UUID="${uuid}",modelName="NVIDIA H100 80GB HBM3",` +
    `Hostname="nvidia-dcgm-exporter-n",container="main",namespace="${namespace}",pod="${podName}"} ${util}`
  );
}

/** One `gpu_gfx_activity` line as AMD's device-metrics-exporter writes it (`pod=""`: idle GPU). */
function amd(host: string, gpu: number, uuid: string, namespace: string, podName: string, util: number) {
  return (
    `gpu_gfx_activity{card_model="102-G30211-0C",gpu_id="${gpu}",gpu_uuid="${uuid}",hostname="${host}",` +
    `serial_number="69240900540${gpu}",container="${podName ? 'main' : ''}",namespace="${namespace}",` +
    `pod="${podName}"} ${util}`
  );
}

const AMD_TYPE = '# TYPE gpu_gfx_activity gauge';
const PAGE_NVIDIA = [
  '# TYPE DCGM_FI_DEV_GPU_UTIL gauge',
  nvidia(0, 'GPU-n0', 'algorithms', 'llm-nv-5d8f-aaaaa', 60),
  nvidia(1, 'GPU-n1', 'team-b', 'other-nv', 95),
].join('\n');
const PAGE_AMD_1 = [
  AMD_TYPE,
  amd('amd-1', 0, 'amd-uuid-10', 'algorithms', 'llm-amd-6f7c-bbbbb', 73),
  amd('amd-1', 1, 'amd-uuid-11', 'algorithms-x', 'llm-amd-6f7c-ccccc', 50),
  amd('amd-1', 2, 'amd-uuid-12', 'team-b', 'other-amd', 90),
  amd('amd-1', 3, 'amd-uuid-13', '', '', 0),
].join('\n');
const PAGE_AMD_2 = [
  AMD_TYPE,
  amd('amd-2', 0, 'amd-uuid-20', 'vision', 'detr-amd-7a1b-ddddd', 20),
  amd('amd-2', 1, 'amd-uuid-21', '', '', 0),
].join('\n');
/** A tenant's own page: names an algorithms' pod on an AMD node, under a job that is no exporter's. */
const PAGE_TENANT = [AMD_TYPE, amd('amd-1', 0, 'amd-uuid-10', 'algorithms', 'llm-amd-6f7c-bbbbb', 1)].join(
  '\n',
);

const NAMESPACES = ['algorithms', 'vision'];
const PODS = [
  pod('llm-nv-5d8f-aaaaa', { algorithm: 'llm-nv', nodeName: 'gpu-n' }),
  pod('other-nv', { namespace: 'team-b', managed: false, algorithm: null, nodeName: 'gpu-n' }),
  pod('llm-amd-6f7c-bbbbb', { algorithm: 'llm-amd', nodeName: 'amd-1' }),
  pod('llm-amd-6f7c-ccccc', { namespace: 'algorithms-x', algorithm: 'llm-amd', nodeName: 'amd-1' }),
  pod('other-amd', { namespace: 'team-b', managed: false, algorithm: null, nodeName: 'amd-1' }),
  pod('detr-amd-7a1b-ddddd', { namespace: 'vision', algorithm: 'detr-amd', nodeName: 'amd-2' }),
];

let exporter: ExporterPages;
let prom: RunningPrometheus;

beforeAll(async () => {
  exporter = await serveExporterPages({
    '/nvidia/metrics': () => PAGE_NVIDIA,
    '/amd-1/metrics': () => PAGE_AMD_1,
    '/amd-2/metrics': () => PAGE_AMD_2,
    '/tenant/metrics': () => PAGE_TENANT,
  });
  const address = exporter.address;
  prom = await startPrometheus([
    {
      address,
      metricsPath: '/nvidia/metrics',
      labels: { node: 'gpu-n', pod: 'dcgm-n', namespace: 'gpu-operator' },
    },
    {
      address,
      metricsPath: '/amd-1/metrics',
      labels: { pod: 'default-metrics-exporter-x', namespace: 'kube-amd-gpu' },
      job: 'default-metrics-exporter',
    },
    { address, metricsPath: '/amd-2/metrics', job: 'device-metrics-exporter' },
    { address, metricsPath: '/tenant/metrics', job: 'team-a-app' },
  ]);
  await prom.waitForScrapes(3);
}, 60_000);

afterAll(async () => {
  await prom?.stop();
  await exporter?.close();
});

const read = (namespaces?: string[]) =>
  new PrometheusSource({ url: prom.url }).read({
    metric: 'DCGM_FI_DEV_GPU_UTIL',
    windowSeconds: 60,
    ...(namespaces ? { namespaces } : {}),
  });

/** `namespace/pod UUID gpu node Hostname value` of each series, sorted. */
const seen = (series: readonly GpuSeries[]) =>
  series
    .map((s) => {
      const l = s.labels;
      const where = `${l.exported_namespace ?? l.namespace}/${l.exported_pod ?? l.pod}`;
      return `${s.metric} ${where} ${l.UUID} ${l.gpu} ${l.node} ${l.Hostname} ${s.value}`;
    })
    .sort();

describe('PrometheusSource with NVIDIA and AMD exporters side by side (real Prometheus)', () => {
  it('one scoped query reads both vendors’ pods in dcgm-exporter’s spelling, no neighbour', async () => {
    const r = await read(NAMESPACES);
    if (!r.ok) throw new Error(r.message);
    expect(seen(r.series)).toEqual([
      'DCGM_FI_DEV_GPU_UTIL algorithms/llm-amd-6f7c-bbbbb amd-uuid-10 0 amd-1 amd-1 73',
      'DCGM_FI_DEV_GPU_UTIL algorithms/llm-nv-5d8f-aaaaa GPU-n0 0 gpu-n nvidia-dcgm-exporter-n 60',
      'DCGM_FI_DEV_GPU_UTIL vision/detr-amd-7a1b-ddddd amd-uuid-20 0 amd-2 amd-2 20',
    ]);
    for (const s of r.series) {
      // AMD's own names and the query's tag are gone: attribution reads one spelling.
      for (const own of ['gpu_id', 'gpu_uuid', 'hostname', 'gpuops_metric'])
        expect(s.labels[own]).toBeUndefined();
    }
    const a = attribute(r.series, PODS, policy(), new Date(r.evaluatedAt!));
    const byAlgorithm = [...a.byAlgorithm.values()]
      .map((x) => [x.algorithm, x.samples.map((s) => [s.namespace, s.pod, s.utilization, s.gpus])])
      .sort((p, q) => String(p[0]).localeCompare(String(q[0])));
    expect(byAlgorithm).toEqual([
      ['detr-amd', [['vision', 'detr-amd-7a1b-ddddd', 20, ['amd-uuid-20']]]],
      ['llm-amd', [['algorithms', 'llm-amd-6f7c-bbbbb', 73, ['amd-uuid-10']]]],
      ['llm-nv', [['algorithms', 'llm-nv-5d8f-aaaaa', 60, ['GPU-n0']]]],
    ]);
  });

  it('the unscoped read has every exporter GPU, idle AMD GPUs with no workload pod, never the tenant’s page', async () => {
    const r = await read();
    if (!r.ok) throw new Error(r.message);
    // 2 NVIDIA + 4 + 2 AMD; the tenant's forged line (value 1) is not among them.
    expect(r.series).toHaveLength(8);
    expect(r.series.map((s) => s.value)).not.toContain(1);
    const idle = r.series.filter((s) => s.labels.UUID === 'amd-uuid-13' || s.labels.UUID === 'amd-uuid-21');
    // Prometheus drops an empty label: the page's `pod=""` is gone, what is left is the target's
    // own (the exporter pod, on the ServiceMonitor-style target) or nothing.
    const idleLabels = idle.map((s) => [s.labels.node, s.labels.exported_pod, s.labels.pod]);
    expect(idleLabels.sort((p, q) => String(p[0]).localeCompare(String(q[0])))).toEqual([
      ['amd-1', undefined, 'default-metrics-exporter-x'],
      ['amd-2', undefined, undefined],
    ]);
    const a = attribute(r.series, PODS, policy(), new Date(r.evaluatedAt!));
    const counted = [...a.byAlgorithm.values()].flatMap((x) => x.samples.flatMap((s) => s.gpus));
    expect(counted).not.toContain('amd-uuid-13');
    expect(counted).not.toContain('amd-uuid-21');
  });

  it('a namespace only an AMD pod is in reads that pod; one with no GPU series is Empty', async () => {
    const vision = await read(['vision']);
    if (!vision.ok) throw new Error(vision.message);
    expect(seen(vision.series)).toEqual([
      'DCGM_FI_DEV_GPU_UTIL vision/detr-amd-7a1b-ddddd amd-uuid-20 0 amd-2 amd-2 20',
    ]);
    expect(await read(['idle'])).toMatchObject({ ok: false, reason: 'Empty' });
  });

  it('an AMD job matcher that names no AMD job reads NVIDIA’s pods only', async () => {
    const r = await new PrometheusSource({ url: prom.url, amdJobs: 'no-such-job' }).read({
      metric: 'DCGM_FI_DEV_GPU_UTIL',
      windowSeconds: 60,
      namespaces: NAMESPACES,
    });
    if (!r.ok) throw new Error(r.message);
    expect(seen(r.series)).toEqual([
      'DCGM_FI_DEV_GPU_UTIL algorithms/llm-nv-5d8f-aaaaa GPU-n0 0 gpu-n nvidia-dcgm-exporter-n 60',
    ]);
  });
});
