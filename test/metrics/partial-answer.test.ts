/**
 * A partial answer from the metrics store never drives a scale-down (issue: "a partial answer
 * drives a scale-down"). A real Prometheus whose `remote_read` store does not answer returns
 * `status: success` with `warnings` beside the local series, as Thanos (`partial_response`),
 * Mimir and Cortex do when a store or shard is down; a stand-in store sends the Thanos shape with
 * `infos` too. Three replicas at a low utilisation would scale down on a whole answer; on a partial
 * one the decision holds `PartialData` naming the warning, and the metrics report says it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrometheusSource } from '../../src/metrics/prometheus.js';
import type { UtilizationReading } from '../../src/metrics/types.js';
import { decideScaling } from '../../src/scaling/decide-scaling.js';
import { algorithm, pod, policyNoWindows } from '../scaling/support.js';
import {
  freePort,
  serveExporterPages,
  startPrometheus,
  type ExporterPages,
  type RunningPrometheus,
} from '../support/prometheus.js';

const PODS = [0, 1, 2].map((i) => pod(`resnet50-infer-7d9f-${i}`, { nodeName: 'gpu-a' }));
const PAGE =
  '# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n' +
  PODS.map(
    (p, i) =>
      `DCGM_FI_DEV_GPU_UTIL{gpu="${i}",UUID="GPU-${i}",Hostname="gpu-a",namespace="algorithms",pod="${p.name}"} 10`,
  ).join('\n') +
  '\n';

/** The pass's scaling decision of resnet50-infer (3 replicas, band 30..80 %) on `reading`. */
function decide(reading: UtilizationReading) {
  const r = decideScaling({
    algorithms: [{ algorithm: algorithm(), pool: 'long-task', replicas: 3 }],
    snapshot: { takenAt: '', nodes: [], pods: PODS },
    reading,
    recent: [],
    policy: policyNoWindows(),
    now: new Date(reading.ok ? reading.evaluatedAt! : Date.now()),
  });
  return { decision: r.decisions[0]!, metrics: r.metrics };
}

let exporter: ExporterPages;
let whole: RunningPrometheus;
let partial: RunningPrometheus;
let standIn: Server;
let standInUrl = '';

beforeAll(async () => {
  exporter = await serveExporterPages({ '/metrics': () => PAGE });
  const target = [{ address: exporter.address, labels: { node: 'gpu-a' } }];
  // A remote-read store on a port nothing listens on: every query is answered in part.
  const down = `http://127.0.0.1:${await freePort()}/api/v1/read`;
  [whole, partial] = await Promise.all([
    startPrometheus(target),
    startPrometheus(target, 20_000, { remoteRead: [down] }),
  ]);
  await Promise.all([whole.waitForScrapes(2), partial.waitForScrapes(2)]);
  standIn = createServer((_req, res) => {
    const now = Date.now() / 1000;
    const result = PODS.flatMap((p, i) => {
      const labels = { UUID: `GPU-${i}`, Hostname: 'gpu-a', namespace: 'algorithms', pod: p.name };
      return [
        { metric: { ...labels, gpuops_stat: 'avg' }, value: [now, '10'] },
        { metric: { ...labels, gpuops_stat: 'last' }, value: [now, String(now - 5)] },
      ];
    });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        status: 'success',
        data: { resultType: 'vector', result },
        warnings: ['No StoreAPIs matched for this query: store eu-1 is down'],
        infos: ['PromQL info: metric might not be a counter'],
      }),
    );
  });
  await new Promise<void>((r) => standIn.listen(0, '127.0.0.1', r));
  standInUrl = `http://127.0.0.1:${(standIn.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  await Promise.all([whole?.stop(), partial?.stop()]);
  await exporter?.close();
  await new Promise<void>((r) => (standIn ? standIn.close(() => r()) : r()));
});

const read = (url: string) =>
  new PrometheusSource({ url }).read({
    metric: 'DCGM_FI_DEV_GPU_UTIL',
    windowSeconds: 60,
    namespaces: ['algorithms'],
  });

describe('a partial answer from the metrics store', () => {
  it('a whole answer at 10 % scales 3 → 1 (the neighbour: the same series without warnings)', async () => {
    const r = await read(whole.url);
    expect(r.ok && r.warnings).toBeUndefined();
    expect(decide(r).decision).toMatchObject({ action: 'scale-down', reason: 'BelowMin' });
  });

  it('real Prometheus with a remote-read store down: success with warnings, held PartialData naming them', async () => {
    const r = await read(partial.url);
    if (!r.ok) throw new Error(r.message);
    expect(r.series.length).toBeGreaterThan(0);
    expect(r.warnings).toEqual([expect.stringMatching(/^remote_read: .*connection refused/)]);
    const { decision, metrics } = decide(r);
    expect(decision).toMatchObject({ action: 'hold', reason: 'PartialData', replicas: { from: 3, to: 3 } });
    expect(decision.message).toMatch(
      /^resnet50-infer: utilisation 10% over 3 of 3 Ready pod\(s\) < min 30%, but the metrics store answered in part \("remote_read: .*connection refused"\); never scale down on a partial answer$/,
    );
    expect(metrics.partial).toMatch(/^the metrics store answered in part \("remote_read: /);
    expect(metrics.warnings.some((w) => w.endsWith('no algorithm scales down or moves a node on it'))).toBe(
      true,
    );
  });

  it('a Thanos-like stand-in: warnings hold the scale-down, infos are only reported', async () => {
    const r = await read(standInUrl);
    if (!r.ok) throw new Error(r.message);
    expect([r.warnings, r.infos]).toEqual([
      ['No StoreAPIs matched for this query: store eu-1 is down'],
      ['PromQL info: metric might not be a counter'],
    ]);
    const { decision, metrics } = decide(r);
    expect(decision.reason).toBe('PartialData');
    expect(decision.message).toContain('"No StoreAPIs matched for this query: store eu-1 is down"');
    expect(metrics.warnings).toContain('metrics store info: PromQL info: metric might not be a counter');
  });
});

describe('a partial answer saved to a file (plan --metrics)', () => {
  it('is as partial as it was on the wire: the file’s warnings hold the scale-down', async () => {
    const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const path = await import('node:path');
    const { MetricsFileSource } = await import('../../src/metrics/metrics-file.js');
    const dir = mkdtempSync(path.join(tmpdir(), 'gpuops-partial-'));
    try {
      const at = Date.parse('2025-06-01T12:00:00Z') / 1000;
      const result = PODS.map((p, i) => ({
        metric: { UUID: `GPU-${i}`, Hostname: 'gpu-a', namespace: 'algorithms', pod: p.name },
        value: [at, '10'],
      }));
      const file = path.join(dir, 'answer.json');
      const saved = {
        status: 'success',
        data: { resultType: 'vector', result },
        warnings: ['store eu-1 is down'],
      };
      writeFileSync(file, JSON.stringify(saved));
      const r = await new MetricsFileSource([file], at * 1000).read({
        metric: 'DCGM_FI_DEV_GPU_UTIL',
        windowSeconds: 60,
      });
      if (!r.ok) throw new Error(r.message);
      expect(r.warnings).toEqual([`${file}: store eu-1 is down`]);
      expect(decide(r).decision.reason).toBe('PartialData');
      writeFileSync(file, JSON.stringify({ ...saved, warnings: undefined }));
      const whole = await new MetricsFileSource([file], at * 1000).read({
        metric: 'DCGM_FI_DEV_GPU_UTIL',
        windowSeconds: 60,
      });
      expect(decide(whole).decision.reason).toBe('BelowMin');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
