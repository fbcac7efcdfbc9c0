import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DcgmScrapeSource } from '../../src/metrics/dcgm-scrape.js';
import { MetricsParseError, parseDcgmPage } from '../../src/metrics/dcgm-text.js';
import { parseMetricsFile } from '../../src/metrics/metrics-file.js';
import { utilizationQuery } from '../../src/metrics/query.js';
import { parseQueryAnswer, parseQueryResult } from '../../src/metrics/query-result.js';

const page = readFileSync(new URL('../fixtures/cluster-mixed/dcgm/gpu-t4-02.prom', import.meta.url), 'utf8');

describe('dcgm page parser', () => {
  it('reads every DCGM family with labels, values and the scrape time', () => {
    const s = parseDcgmPage(page, { source: 'gpu-t4-02.prom', scrapedAtMs: 1000, node: 'gpu-t4-02' });
    expect(s).toHaveLength(16);
    const util = s.filter((x) => x.metric === 'DCGM_FI_DEV_GPU_UTIL');
    expect(util.map((x) => x.value)).toEqual([61, 0, 0, 0]);
    expect(util[0]!.labels).toMatchObject({
      pod: 'video-decode-5c9d7-2xq8w',
      namespace: 'media',
      node: 'gpu-t4-02',
    });
    expect(util[0]!.timestamp).toBe(1000);
  });

  it('names the file and line of a malformed sample', () => {
    const bad = page.replace(
      'DCGM_FI_DEV_GPU_UTIL{gpu="1"',
      'DCGM_FI_DEV_GPU_UTIL{gpu="9" 3\nDCGM_FI_DEV_GPU_UTIL{gpu="1"',
    );
    expect(() => parseDcgmPage(bad, { source: 'x.prom', scrapedAtMs: 0 })).toThrow(MetricsParseError);
    try {
      parseDcgmPage(bad, { source: 'x.prom', scrapedAtMs: 0 });
    } catch (err) {
      expect((err as MetricsParseError).message).toMatch(/^x\.prom:10: /);
    }
  });
});

describe('Prometheus query result', () => {
  it('joins the avg and last halves per series; a missing last means older than the lookback', () => {
    const m = { UUID: 'GPU-1', pod: 'p' };
    const s = parseQueryResult(
      {
        status: 'success',
        data: {
          resultType: 'vector',
          result: [
            { metric: { ...m, gpuops_stat: 'avg' }, value: [1000, '42.5'] },
            { metric: { gpuops_stat: 'last', pod: 'p', UUID: 'GPU-1' }, value: [1000, '995.5'] },
            { metric: { UUID: 'GPU-2', gpuops_stat: 'avg', pod: 'q' }, value: [1000, 'NaN'] },
          ],
        },
      },
      { source: 'r.json', metric: 'DCGM_FI_DEV_GPU_UTIL' },
    );
    expect(s).toEqual([
      { metric: 'DCGM_FI_DEV_GPU_UTIL', labels: m, value: 42.5, timestamp: 995_500 },
      { metric: 'DCGM_FI_DEV_GPU_UTIL', labels: { UUID: 'GPU-2', pod: 'q' }, value: NaN, timestamp: 700_000 },
    ]);
  });

  it('joins halves whose gpuops_stat label stands anywhere, and keeps different label sets apart', () => {
    // label_replace output whose stat label came last (as a JSON object keeps insertion order),
    // beside the same series with it first and a series that differs only in one value.
    const s = parseQueryResult(
      {
        status: 'success',
        data: {
          resultType: 'vector',
          result: [
            { metric: { UUID: 'GPU-3', pod: 'r', gpuops_stat: 'avg' }, value: [1000, '50'] },
            { metric: { gpuops_stat: 'last', UUID: 'GPU-3', pod: 'r' }, value: [1000, '990'] },
            { metric: { UUID: 'GPU-3', pod: 's', gpuops_stat: 'last' }, value: [1000, '980'] },
            { metric: { UUID: 'GPU-3', gpuops_stat: 'avg', pod: 's' }, value: [1000, '60'] },
          ],
        },
      },
      { source: 'r.json', metric: 'DCGM_FI_DEV_GPU_UTIL' },
    );
    expect(s).toEqual([
      { metric: 'DCGM_FI_DEV_GPU_UTIL', labels: { UUID: 'GPU-3', pod: 'r' }, value: 50, timestamp: 990_000 },
      { metric: 'DCGM_FI_DEV_GPU_UTIL', labels: { UUID: 'GPU-3', pod: 's' }, value: 60, timestamp: 980_000 },
    ]);
  });

  it('reads a plain saved avg_over_time vector and rejects an error answer', () => {
    const json = JSON.stringify({
      status: 'success',
      data: { resultType: 'vector', result: [{ metric: { UUID: 'GPU-1' }, value: [1700000000, '7'] }] },
    });
    expect(parseMetricsFile('saved.json', json, 'DCGM_FI_DEV_GPU_UTIL', 0)).toEqual([
      { metric: 'DCGM_FI_DEV_GPU_UTIL', labels: { UUID: 'GPU-1' }, value: 7, timestamp: 1_700_000_000_000 },
    ]);
    expect(() =>
      parseQueryResult({ status: 'error', error: 'parse error' }, { source: 'e.json', metric: 'x' }),
    ).toThrow(/e\.json: status is "error": parse error/);
  });

  it('reads a query_range matrix: mean of the averaging window, newest point, the history window', () => {
    const t = 1_700_000_000;
    const body = {
      status: 'success',
      data: {
        resultType: 'matrix',
        result: [
          // 0..600 s, every 60 s: 10, 20, …, 110 (the 50 at t+240 is the oldest of the last 300 s).
          {
            metric: { UUID: 'GPU-1' },
            values: Array.from({ length: 11 }, (_, k) => [t + k * 60, String(10 * (k + 1))]),
          },
          // Went away at t+300: stale at the answer's time, its own newest point kept.
          { metric: { UUID: 'GPU-2' }, values: [[t + 300, '40']] },
        ],
      },
    };
    const a = parseQueryAnswer(body, {
      source: 'r.json',
      metric: 'M',
      windowSeconds: 240,
      historySeconds: 300,
    });
    expect(a.evaluatedAt).toBe((t + 600) * 1000);
    expect(a.series).toEqual([
      // window (t+360, t+600]: 80, 90, 100, 110; history [t+300, t+600]: max 110; oldest t.
      {
        metric: 'M',
        labels: { UUID: 'GPU-1' },
        value: 95,
        timestamp: (t + 600) * 1000,
        window: { max: 110, oldest: t * 1000 },
      },
      {
        metric: 'M',
        labels: { UUID: 'GPU-2' },
        value: 40,
        timestamp: (t + 300) * 1000,
        window: { max: 40, oldest: (t + 300) * 1000 },
      },
    ]);
    expect(() =>
      parseQueryAnswer(
        { status: 'success', data: { resultType: 'matrix', result: [{ metric: {}, values: [[t, 5]] }] } },
        { source: 'bad.json', metric: 'M' },
      ),
    ).toThrow(/bad\.json: data\.result\[0\]\.values\[0\] must be \[<seconds>, "<value>"\]/);
    expect(() =>
      parseQueryAnswer(
        { status: 'success', data: { resultType: 'scalar', result: [t, '1'] } },
        { source: 's.json', metric: 'M' },
      ),
    ).toThrow(/"vector" or "matrix"/);
  });

  it('a saved page takes a node hint from the file name, never a node label', () => {
    const s = parseMetricsFile('dumps/dcgm/gpu-t4-02.prom', page, 'DCGM_FI_DEV_GPU_UTIL', 5);
    expect(s.map((x) => [x.labels.node, x.labels.gpuops_node_hint, x.timestamp])).toEqual(
      Array(4).fill([undefined, 'gpu-t4-02', 5]),
    );
  });

  it('builds one query for all GPUs and refuses a bad metric name', () => {
    // GPU utilisation: every vendor's metric, AMD's tagged with its name (`__name__` is dropped).
    const amd = (e: string) => `label_replace(${e}, "gpuops_metric", "gpu_gfx_activity", "", "")`;
    expect(utilizationQuery('DCGM_FI_DEV_GPU_UTIL', 300)).toBe(
      `label_replace(avg_over_time(DCGM_FI_DEV_GPU_UTIL{}[300s]) or ${amd('avg_over_time(gpu_gfx_activity{}[300s])')}, "gpuops_stat", "avg", "", "")` +
        ` or label_replace(timestamp(DCGM_FI_DEV_GPU_UTIL{}) or ${amd('timestamp(gpu_gfx_activity{})')}, "gpuops_stat", "last", "", "")`,
    );
    // A DCGM field AMD's exporter has no counterpart of: only itself.
    expect(utilizationQuery('DCGM_FI_PROF_GR_ENGINE_ACTIVE', 300)).toBe(
      'label_replace(avg_over_time(DCGM_FI_PROF_GR_ENGINE_ACTIVE{}[300s]), "gpuops_stat", "avg", "", "")' +
        ' or label_replace(timestamp(DCGM_FI_PROF_GR_ENGINE_ACTIVE{}), "gpuops_stat", "last", "", "")',
    );
    expect(() => utilizationQuery('x{}', 300)).toThrow(/not a metric name/);
    // With the scale-down stabilisation window: its highest sample and whether it reaches back, same query.
    expect(utilizationQuery('M', 60, 'sim="a"', 300)).toBe(
      'label_replace(avg_over_time(M{sim="a"}[60s]), "gpuops_stat", "avg", "", "")' +
        ' or label_replace(timestamp(M{sim="a"}), "gpuops_stat", "last", "", "")' +
        ' or label_replace(max_over_time(M{sim="a"}[300s]), "gpuops_stat", "max", "", "")' +
        ' or label_replace(timestamp(M{sim="a"} offset 300s), "gpuops_stat", "first", "", "")',
    );
    expect(() => utilizationQuery('M', 60, '', 1.5)).toThrow(/history/);
  });

  it('scoped to namespaces: both places a workload namespace can be, aggregated to the labels attribution reads', () => {
    const by =
      'max by (UUID, GPU_I_ID, gpu, node, Hostname, namespace, pod, exported_namespace, exported_pod, gpu_id, gpu_uuid, hostname, gpuops_metric)';
    const sel = (extra: string) => `M{sim="a", ${extra}}`;
    const both = (fn: (s: string) => string) =>
      `${by} (${fn(sel('exported_namespace=~"algorithms|vision"'))} or ${fn(sel('namespace=~"algorithms|vision", exported_namespace=""'))})`;
    // Sorted and once each, whatever order the algorithms came in.
    expect(utilizationQuery('M', 60, 'sim="a"', 0, ['vision', 'algorithms', 'vision'])).toBe(
      `label_replace(${both((s) => `avg_over_time(${s}[60s])`)}, "gpuops_stat", "avg", "", "")` +
        ` or label_replace(${both((s) => `timestamp(${s})`)}, "gpuops_stat", "last", "", "")`,
    );
    expect(utilizationQuery('M', 60, '', 300, ['a'])).toContain(
      `${by} (timestamp(M{exported_namespace=~"a"} offset 300s) or timestamp(M{namespace=~"a", exported_namespace=""} offset 300s))`,
    );
    // Both vendors, each with its own job matcher, in one scoped query: four selectors per half.
    const job = (m: string) => (m === 'gpu_gfx_activity' ? 'job=~"amd"' : 'job=~"dcgm"');
    expect(utilizationQuery('DCGM_FI_DEV_GPU_UTIL', 60, job, 0, ['a'])).toBe(
      [
        ['avg', (s: string) => `avg_over_time(${s}[60s])`],
        ['last', (s: string) => `timestamp(${s})`],
      ]
        .map(([stat, f]) => {
          const fn = f as (s: string) => string;
          const parts = [
            fn('DCGM_FI_DEV_GPU_UTIL{job=~"dcgm", exported_namespace=~"a"}'),
            fn('DCGM_FI_DEV_GPU_UTIL{job=~"dcgm", namespace=~"a", exported_namespace=""}'),
            `label_replace(${fn('gpu_gfx_activity{job=~"amd", exported_namespace=~"a"}')}, "gpuops_metric", "gpu_gfx_activity", "", "")`,
            `label_replace(${fn('gpu_gfx_activity{job=~"amd", namespace=~"a", exported_namespace=""}')}, "gpuops_metric", "gpu_gfx_activity", "", "")`,
          ];
          return `label_replace(${by} (${parts.join(' or ')}), "gpuops_stat", "${stat as string}", "", "")`;
        })
        .join(' or '),
    );
    expect(() => utilizationQuery('M', 60, '', 0, [])).toThrow(/at least one namespace/);
    expect(() => utilizationQuery('M', 60, '', 0, ['a|b'])).toThrow(/"a\|b" is not a DNS-1123 label/);
    expect(() => utilizationQuery('M', 60, '', 0, ['Algorithms'])).toThrow(/DNS-1123/);
  });
});

describe('DcgmScrapeSource', () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/ok') res.end(page);
      else {
        res.writeHead(500);
        res.end('boom');
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('one failing page is reported, the others count; all failing is no data', async () => {
    const now = () => new Date(1234);
    const some = await new DcgmScrapeSource({
      targets: [{ url: `${base}/ok`, node: 'gpu-t4-02' }, { url: `${base}/bad` }],
      now,
    }).read({
      metric: 'DCGM_FI_DEV_GPU_UTIL',
      windowSeconds: 60,
    });
    expect(some.ok && some.series.map((s) => [s.labels.node, s.value, s.timestamp])).toEqual([
      ['gpu-t4-02', 61, 1234],
      ['gpu-t4-02', 0, 1234],
      ['gpu-t4-02', 0, 1234],
      ['gpu-t4-02', 0, 1234],
    ]);
    expect(some.ok && some.errors).toEqual([`${base}/bad: HTTP 500`]);
    const none = await new DcgmScrapeSource({ targets: [{ url: `${base}/bad` }], now }).read({
      metric: 'DCGM_FI_DEV_GPU_UTIL',
      windowSeconds: 60,
    });
    expect(none).toMatchObject({ ok: false, reason: 'Unreachable' });
  });
});
