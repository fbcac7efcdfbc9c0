/**
 * Scale on the signal that limits the service, end to end: two copies of a batching LLM-style
 * service run in the simulated cluster (`LoadModel.setBatching`: `DCGM_FI_DEV_GPU_UTIL` stays at
 * 97 % whatever the load, the queue `gpuops_sim_requests_waiting` follows it). A real Prometheus
 * scrapes the dcgm-exporter pages and the service's metrics; `llm-util` scales on `gpuUtil`,
 * `llm-queue` on the policy's `serviceMetric` template (band 2–10 requests). Under a high load both
 * scale up; once the load falls, the queue scales `llm-queue` down while `gpuUtil` asks for yet
 * another replica of `llm-util`: it only ever scales up.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PassResult } from '../../src/controller/reconcile.js';
import { PrometheusSource } from '../../src/metrics/prometheus.js';
import { startPrometheus, type RunningPrometheus } from '../support/prometheus.js';
import { algorithmFile, gpuNode, startHarness, type Harness } from '../support/reconcile-harness.js';

const WINDOW = 2;
const POLICY = [
  'apiVersion: gpuops.dev/v1alpha1',
  'kind: Policy',
  'metadata: {name: test}',
  'spec:',
  '  scaling:',
  `    windowSeconds: ${WINDOW}`,
  '    staleSampleSeconds: 30',
  '    scaleUp: {cooldownSeconds: 0, stabilizationWindowSeconds: 0}',
  '    scaleDown: {cooldownSeconds: 0, stabilizationWindowSeconds: 0}',
  '    serviceMetrics:',
  '      - name: queue',
  '        unit: requests',
  `        query: 'sum by (namespace, pod) (avg_over_time(gpuops_sim_requests_waiting{namespace="$namespace"}[$window]))'`,
  '',
].join('\n');
/** `llm-queue`: the same service, scaled on its queue. */
const QUEUE_SPEC = algorithmFile('llm-queue', { pool: 'short-task' }).replace(
  '    utilization: {min: 30, max: 80}',
  '    signal: serviceMetric\n    serviceMetric: {name: queue, unit: requests, min: 2, max: 10}',
);

let h: Harness;
let prometheus: RunningPrometheus;
const ALGS = ['llm-util', 'llm-queue'];

async function step(load: number): Promise<PassResult> {
  for (const a of ALGS) h.load.setLoad(a, load);
  await prometheus.waitForScrapes(WINDOW + 1);
  return h.pass();
}
const decisionOf = (r: PassResult, a: string) => r.plan.scaling.find((d) => d.algorithm === a)!;

beforeAll(async () => {
  h = await startHarness({
    nodes: [gpuNode('gpu-test', 1, 'test'), gpuNode('gpu-s1', 8, 'short-task')],
    files: {
      'README.md': '# gitops\n',
      'algorithms/llm-util.yaml': algorithmFile('llm-util', { pool: 'short-task' }),
      'algorithms/llm-queue.yaml': QUEUE_SPEC,
      'policies/test.yaml': POLICY,
    },
  });
  for (const a of ALGS) {
    h.load.setBatching(a);
    h.load.setLoad(a, 0);
  }
  const address = new URL(h.sim.url).host;
  prometheus = await startPrometheus([
    ...['gpu-test', 'gpu-s1'].map((node) => ({
      address,
      metricsPath: `/dcgm/${node}/metrics`,
      labels: { node },
    })),
    { address, metricsPath: '/dcgm/service/metrics', job: 'llm-service' },
  ]);
  h.setMetrics(new PrometheusSource({ url: prometheus.url }));
  await h.pass();
  h.merge('gpuops/prod/pools');
  await h.pass();
  for (const a of ALGS) h.merge(`gpuops/prod/placement/${a}`);
  expect((await h.sync()).errors).toEqual([]);
}, 180_000);

afterAll(async () => {
  await prometheus?.stop();
  await h?.close();
});

describe('a batching service: serviceMetric scales it both ways, gpuUtil only up', () => {
  it('a high load (60 requests waiting on one replica, GPU 97 %): both scale up', async () => {
    const r = await step(600);
    expect(decisionOf(r, 'llm-util')).toMatchObject({
      action: 'scale-up',
      reason: 'AboveMax',
      utilization: 97,
    });
    const q = decisionOf(r, 'llm-queue');
    expect(q).toMatchObject({ action: 'scale-up', reason: 'AboveMax', utilization: 60 });
    expect(q.signal).toEqual({ kind: 'serviceMetric', unit: 'requests', metric: 'queue' });
    expect(q.message).toMatch(/^llm-queue: queue 60 requests over 1 of 1 Ready pod\(s\) > max 10 requests/);
    for (const a of ALGS) h.merge(`gpuops/prod/scale/${a}`);
    expect((await h.sync()).errors).toEqual([]);
  }, 60_000);

  it('the load falls (0.5 requests waiting per replica): the queue scales down, GPU_UTIL still says 97 % and asks for more', async () => {
    const r = await step(10);
    expect(decisionOf(r, 'llm-queue')).toMatchObject({
      action: 'scale-down',
      reason: 'BelowMin',
      replicas: { from: 2, to: 1 },
      utilization: 0.5,
    });
    expect(decisionOf(r, 'llm-util')).toMatchObject({
      action: 'scale-up',
      reason: 'AboveMax',
      replicas: { from: 2, to: 3 },
      utilization: 97,
    });
  }, 60_000);
});
