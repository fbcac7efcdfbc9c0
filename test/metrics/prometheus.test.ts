/**
 * The Prometheus adapter against a real Prometheus (`/usr/bin/prometheus`) scraping a loopback
 * HTTP server that serves dcgm-exporter pages (the fixture pages, and one GPU whose utilisation
 * alternates 40/60 % so the window average is visible).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrometheusSource } from '../../src/metrics/prometheus.js';
import { parseQueryAnswer } from '../../src/metrics/query-result.js';
import { attribute } from '../../src/scaling/attribute.js';
import { fixturePods, policy } from '../scaling/support.js';
import {
  freePort,
  serveExporterPages,
  startPrometheus,
  type ExporterPages,
  type RunningPrometheus,
} from '../support/prometheus.js';

/** Prometheus's own clock, milliseconds: the evaluation time of an instant `time()` query. */
async function prometheusNow(): Promise<number> {
  const res = await fetch(`${prom.url}/api/v1/query?query=time()`);
  const body = (await res.json()) as { data: { resultType: string; result: [number, string] } };
  expect(body.data.resultType).toBe('scalar');
  return Math.round(body.data.result[0] * 1000);
}

const fixtures = new URL('../fixtures/cluster-mixed/', import.meta.url);
const read = (f: string) => readFileSync(new URL(f, fixtures), 'utf8');
const a10003 = read('dcgm/gpu-a100-03.prom');
const t402 = read('dcgm/gpu-t4-02.prom');
let scrapes = 0;
let t402Down = false;

/** The t4-02 page, with the video-decode pod's GPU at 40 % and 60 % on alternate scrapes. */
function t402Page(): string {
  const util = scrapes++ % 2 === 0 ? 40 : 60;
  return t402.replace(/(DCGM_FI_DEV_GPU_UTIL\{gpu="0".*\}) 61/, `$1 ${util}`);
}

let exporter: ExporterPages;
let prom: RunningPrometheus;

beforeAll(async () => {
  exporter = await serveExporterPages({
    '/a100-03/metrics': () => a10003,
    '/t4-02/metrics': () => (t402Down ? null : t402Page()),
  });
  const address = exporter.address;
  prom = await startPrometheus([
    // As a ServiceMonitor scrapes it: the target carries the exporter pod's own pod/namespace, so
    // Prometheus stores the page's pod labels as exported_pod / exported_namespace — but an empty
    // `pod=""` counts as absent, so idle GPUs get the exporter's own pod (= its `Hostname`).
    {
      address,
      metricsPath: '/a100-03/metrics',
      labels: { node: 'gpu-a100-03', pod: 'nvidia-dcgm-exporter-a10003', namespace: 'gpu-operator' },
    },
    // Scraped as-is (honor the page's labels): pod / namespace stay.
    { address, metricsPath: '/t4-02/metrics', labels: { node: 'gpu-t4-02' } },
  ]);
  await prom.waitForScrapes(4);
}, 60_000);

afterAll(async () => {
  await prom?.stop();
  await exporter?.close();
});

function pods() {
  return fixturePods({ 'llm-finetune-0': 'llm-finetune', 'video-decode': 'video-decode' });
}

describe('PrometheusSource (real Prometheus)', () => {
  it('answers one query with every GPU; avg_over_time attributed to the right pods', async () => {
    let calls = 0;
    const source = new PrometheusSource({
      url: prom.url,
      fetch: (input, init) => {
        calls++;
        return fetch(input, init);
      },
    });
    const reading = await source.read({ metric: 'DCGM_FI_DEV_GPU_UTIL', windowSeconds: 60 });
    expect(calls).toBe(1);
    if (!reading.ok) throw new Error(reading.message);
    expect(reading.series).toHaveLength(12); // 8 GPUs on a100-03, 4 on t4-02
    // Time comes from the evidence: the answer's evaluation time, every sample at or before it (no
    // bound on the wall clock, which a loaded machine would break).
    const now = new Date(reading.evaluatedAt!);
    for (const s of reading.series) expect(s.timestamp).toBeLessThanOrEqual(now.getTime());
    expect(new Set(reading.series.map((s) => s.timestamp)).size).toBeLessThanOrEqual(2); // one scrape per target

    const a = attribute(reading.series, pods(), policy(), now);
    const llm = a.byAlgorithm.get('llm-finetune')!.samples;
    expect(llm.map((s) => [s.pod, s.utilization, s.gpus.length])).toEqual([['llm-finetune-0', 95.5, 4]]);
    const video = a.byAlgorithm.get('video-decode')!.samples;
    expect(video).toHaveLength(1);
    expect(video[0]!.utilization).toBeGreaterThan(45);
    expect(video[0]!.utilization).toBeLessThan(55);
    expect(a.unattributed.map((g) => g.host).sort()).toEqual([
      ...Array(4).fill('gpu-a100-03'),
      ...Array(3).fill('gpu-t4-02'),
    ]);
    expect(a.dropped.filter((d) => d.pod.startsWith('nvidia-dcgm-exporter'))).toEqual([]);
  });

  it('reads the stabilisation window in the same single query: the highest sample and whether the series reaches back', async () => {
    let calls = 0;
    const source = new PrometheusSource({
      url: prom.url,
      selector: 'node="gpu-t4-02"',
      fetch: (input, init) => {
        calls++;
        return fetch(input, init);
      },
    });
    await prom.waitForScrapes(3);
    const before = await prometheusNow();
    const short = await source.read({ metric: 'DCGM_FI_DEV_GPU_UTIL', windowSeconds: 60, historySeconds: 2 });
    const after = await prometheusNow();
    const long = await source.read({
      metric: 'DCGM_FI_DEV_GPU_UTIL',
      windowSeconds: 60,
      historySeconds: 3600,
    });
    expect(calls).toBe(2);
    if (!short.ok || !long.ok) throw new Error('no data');
    // Evaluated at Prometheus's own now (between its clock before and after the read, however
    // slow the machine: no wall-clock bound), every sample at or before it.
    expect(short.evaluatedAt!).toBeGreaterThanOrEqual(before);
    expect(short.evaluatedAt!).toBeLessThanOrEqual(after);
    for (const x of short.series) expect(x.timestamp).toBeLessThanOrEqual(short.evaluatedAt!);
    const video = (r: typeof short) => r.series.find((x) => x.labels.pod === 'video-decode-5c9d7-2xq8w')!;
    // 40 % and 60 % on alternate scrapes: the window's highest is 60, its average below.
    expect(video(short).window?.max).toBe(60);
    expect(video(short).value).toBeLessThan(60);
    // Series that existed 2 s ago reach back that window; none existed an hour ago.
    expect(video(short).window!.oldest).not.toBeNull();
    expect(short.evaluatedAt! - video(short).window!.oldest!).toBeGreaterThanOrEqual(2_000);
    expect(long.series.every((x) => x.window !== undefined && x.window.oldest === null)).toBe(true);

    const a = attribute(short.series, pods(), policy(), new Date(short.evaluatedAt!));
    const w = a.byAlgorithm.get('video-decode')!.samples[0]!.window!;
    expect(w.max).toBe(60);
    expect(w.coveredSeconds).toBeGreaterThanOrEqual(2);
  });

  it('no series is Empty, a PromQL error is HttpError, a dead server is Unreachable — never 0 %', async () => {
    const empty = await new PrometheusSource({ url: prom.url, metric: 'DCGM_FI_NO_SUCH_FIELD' }).read({
      metric: 'DCGM_FI_DEV_GPU_UTIL',
      windowSeconds: 60,
    });
    expect(empty).toMatchObject({ ok: false, reason: 'Empty' });

    const bad = await new PrometheusSource({ url: prom.url, selector: 'node=~"("' }).read({
      metric: 'DCGM_FI_DEV_GPU_UTIL',
      windowSeconds: 60,
    });
    expect(bad).toMatchObject({ ok: false, reason: 'HttpError' });
    expect(!bad.ok && bad.message).toContain('HTTP 400');

    const dead = await new PrometheusSource({ url: `http://127.0.0.1:${await freePort()}` }).read({
      metric: 'DCGM_FI_DEV_GPU_UTIL',
      windowSeconds: 60,
    });
    expect(dead).toMatchObject({ ok: false, reason: 'Unreachable' });
  });

  it('decodes the answer as it arrives into the series the whole text gives; a cut body is a clear BadResponse', async () => {
    let text = '';
    const source = new PrometheusSource({
      url: prom.url,
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        text = await response.clone().text();
        return response;
      },
    });
    const query = { metric: 'DCGM_FI_DEV_GPU_UTIL' as const, windowSeconds: 60, historySeconds: 120 };
    const reading = await source.read(query);
    if (!reading.ok) throw new Error(reading.message);
    const tree = parseQueryAnswer(JSON.parse(text), { source: source.name, metric: query.metric });
    expect(reading.series).toEqual(tree.series);
    expect(reading.evaluatedAt).toBe(tree.evaluatedAt);
    expect(reading.series.length).toBeGreaterThan(0);

    const cut = await new PrometheusSource({
      url: prom.url,
      fetch: async (input, init) => {
        const whole = await (await fetch(input, init)).text();
        return new Response(whole.slice(0, Math.floor(whole.length / 2)), { status: 200 });
      },
    }).read(query);
    expect(cut).toMatchObject({ ok: false, reason: 'BadResponse' });
    expect(!cut.ok && cut.message).toMatch(
      /the answer is truncated: it ends after \d+ bytes, inside data\.result\[\d+\]/,
    );
  });

  it('sends the auth header it is given', async () => {
    const seen: string[] = [];
    const source = new PrometheusSource({
      url: prom.url,
      headers: { Authorization: 'Bearer t0ken' },
      fetch: (input, init) => {
        seen.push(new Headers(init?.headers).get('authorization') ?? '');
        return fetch(input, init);
      },
    });
    const r = await source.read({ metric: 'DCGM_FI_PROF_GR_ENGINE_ACTIVE', windowSeconds: 30 });
    expect(r.ok).toBe(true);
    expect(seen).toEqual(['Bearer t0ken']);
  });

  it('an exporter that went away leaves stale series, dropped by attribution', async () => {
    const source = new PrometheusSource({ url: prom.url, selector: 'node="gpu-t4-02"' });
    const before = await source.read({ metric: 'DCGM_FI_DEV_GPU_UTIL', windowSeconds: 60 });
    expect(before.ok && before.series.length).toBe(4);

    t402Down = true;
    await prom.waitForScrapes(2);
    const after = await source.read({ metric: 'DCGM_FI_DEV_GPU_UTIL', windowSeconds: 60 });
    // avg_over_time still averages the old samples; the `last` half is gone (staleness marker).
    if (!after.ok) throw new Error(after.message);
    expect(after.series).toHaveLength(4);
    const a = attribute(after.series, pods(), policy(), new Date());
    expect(a.byAlgorithm.get('video-decode')?.samples ?? []).toEqual([]);
    expect(a.dropped.filter((d) => d.reason === 'Stale')).toHaveLength(4);
  });
});
