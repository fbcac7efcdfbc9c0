/**
 * Forged utilisation series never steer another team's algorithm (security review, kind "forged
 * series"): a real Prometheus scrapes the node's dcgm-exporter (job `dcgm-exporter`, node label
 * from service discovery), a tenant's own target (job `tenant-app`) that prints
 * `DCGM_FI_DEV_GPU_UTIL` lines naming the victim's pod, and a second exporter on another node whose
 * page names the victim's pod too (a mislabelled or forged line on a trusted job). Only the
 * victim's own GPU on its own node counts, with the same query a pass sends (scoped to the
 * algorithms' namespaces).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrometheusSource } from '../../src/metrics/prometheus.js';
import { attribute } from '../../src/scaling/attribute.js';
import { pod, policy } from '../scaling/support.js';
import {
  serveExporterPages,
  startPrometheus,
  type ExporterPages,
  type RunningPrometheus,
} from '../support/prometheus.js';

const line = (uuid: string, host: string, podName: string, value: number) =>
  `DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="${uuid}",modelName="Tesla T4",Hostname="${host}",container="main",namespace="algorithms",pod="${podName}"} ${value}`;
const page = (...lines: string[]) =>
  `# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).\n# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n${lines.join('\n')}\n`;

/** The victim's own GPU on gpu-a, at 20 %. */
const NODE_A = page(line('GPU-a0', 'nvidia-dcgm-exporter-a', 'victim-0', 20));
/** Another node's exporter naming the victim's pod (it runs on gpu-a, not gpu-b). */
const NODE_B = page(line('GPU-b0', 'nvidia-dcgm-exporter-b', 'victim-0', 100));
/** A tenant's page: a fake GPU "on gpu-a" at 100 % for the victim's pod. */
const TENANT = page(line('GPU-fake', 'gpu-a', 'victim-0', 100));

const PODS = [
  pod('victim-0', { nodeName: 'gpu-a', algorithm: 'victim' }),
  pod('nvidia-dcgm-exporter-a', {
    namespace: 'gpu-operator',
    nodeName: 'gpu-a',
    managed: false,
    algorithm: null,
  }),
  pod('nvidia-dcgm-exporter-b', {
    namespace: 'gpu-operator',
    nodeName: 'gpu-b',
    managed: false,
    algorithm: null,
  }),
];

let exporter: ExporterPages;
let prom: RunningPrometheus;

beforeAll(async () => {
  exporter = await serveExporterPages({ '/a': () => NODE_A, '/b': () => NODE_B, '/tenant': () => TENANT });
  const address = exporter.address;
  prom = await startPrometheus([
    { address, metricsPath: '/a', labels: { node: 'gpu-a' } },
    { address, metricsPath: '/b', labels: { node: 'gpu-b' } },
    { address, metricsPath: '/tenant', job: 'tenant-app', labels: { team: 'tenant' } },
  ]);
  await prom.waitForScrapes(2);
}, 60_000);

afterAll(async () => {
  await prom?.stop();
  await exporter?.close();
});

async function read(jobs?: string) {
  const source = new PrometheusSource({ url: prom.url, ...(jobs === undefined ? {} : { jobs }) });
  const r = await source.read({
    metric: 'DCGM_FI_DEV_GPU_UTIL',
    windowSeconds: 60,
    namespaces: ['algorithms'],
  });
  if (!r.ok) throw new Error(r.message);
  return r;
}

describe('forged DCGM series (real Prometheus)', () => {
  it('reads only the dcgm-exporter job: the tenant target’s series never reach attribution', async () => {
    const r = await read();
    expect(r.series.map((s) => s.labels.UUID).sort()).toEqual(['GPU-a0', 'GPU-b0']);
  });

  it('the victim’s utilisation is its own GPU’s; the other node’s line is dropped as WrongNode', async () => {
    const r = await read();
    const a = attribute(r.series, PODS, policy(), new Date(r.evaluatedAt!));
    expect(a.byAlgorithm.get('victim')!.samples.map((s) => [s.pod, s.utilization, s.gpus])).toEqual([
      ['victim-0', 20, ['GPU-a0']],
    ]);
    expect(a.dropped.map((d) => [d.gpu, d.reason, d.message])).toEqual([
      [
        'GPU-b0',
        'WrongNode',
        'GPU GPU-b0 of pod algorithms/victim-0: series comes from node gpu-b (by its node label) but the pod runs on node gpu-a',
      ],
    ]);
  });

  it('a job setting that lets every target in still never counts a line from another node, nor a pod named by more GPUs than it holds', async () => {
    const r = await read('.+');
    expect(r.series.map((s) => s.labels.UUID).sort()).toEqual(['GPU-a0', 'GPU-b0', 'GPU-fake']);
    const a = attribute(r.series, PODS, policy(), new Date(r.evaluatedAt!));
    // The tenant's line says Hostname gpu-a, the victim's node: it passes the node check, so the
    // victim is named by two GPUs while it requests one; neither counts (a hold, never a move).
    expect(a.byAlgorithm.get('victim')!.samples).toEqual([]);
    expect(a.dropped.map((d) => `${d.gpu} ${d.reason}`).sort()).toEqual([
      'GPU-a0 TooManyGpus',
      'GPU-b0 WrongNode',
      'GPU-fake TooManyGpus',
    ]);
  });
});
