/**
 * A Prometheus answer is read up to a byte and a series limit, and past either it is "no data"
 * (`TooLarge`) with the limit named — a hold, never a scale-down. Both limits on each side of the
 * boundary (the decoder), a store that streams without end and one that declares a huge body
 * (a stand-in HTTP server), and a scaling pass on the answer.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnswerTooLargeError } from '../../src/metrics/answer-limits.js';
import { decodeQueryAnswer } from '../../src/metrics/answer-stream.js';
import { PrometheusSource } from '../../src/metrics/prometheus.js';
import type { UtilizationReading } from '../../src/metrics/types.js';
import { decideScaling } from '../../src/scaling/decide-scaling.js';
import { algorithm, pod, policyNoWindows } from '../scaling/support.js';

const OPTIONS = { source: 'prometheus http://p:9090', metric: 'DCGM_FI_DEV_GPU_UTIL' };
const T = 1_700_000_000;

/** An answer of `n` plain series (no halves), as text. */
function answer(n: number): string {
  const result = Array.from({ length: n }, (_, i) => ({
    metric: { __name__: 'DCGM_FI_DEV_GPU_UTIL', UUID: `GPU-${i}` },
    value: [T, '50'],
  }));
  return JSON.stringify({ status: 'success', data: { resultType: 'vector', result } });
}

const body = (text: string) => new Response(text).body!;

describe('decodeQueryAnswer limits', () => {
  it.each([
    ['ExactlyTheSeriesLimitIsRead', 3, 3, null],
    ['OneSeriesOverTheLimitIsTooLarge', 4, 3, 'series'],
  ])('%s', async (_name, n, maxSeries, over) => {
    const read = decodeQueryAnswer(body(answer(n)), OPTIONS, { maxBytes: 1 << 20, maxSeries });
    if (over === null) expect((await read).series).toHaveLength(n);
    else
      await expect(read).rejects.toMatchObject({ name: 'AnswerTooLargeError', what: over, limit: maxSeries });
  });

  it('reads a body of exactly maxBytes and refuses one byte more', async () => {
    const text = answer(2);
    const size = Buffer.byteLength(text);
    const limits = (maxBytes: number) => ({ maxBytes, maxSeries: 10 });
    expect((await decodeQueryAnswer(body(text), OPTIONS, limits(size))).series).toHaveLength(2);
    await expect(decodeQueryAnswer(body(text), OPTIONS, limits(size - 1))).rejects.toThrow(
      new AnswerTooLargeError(OPTIONS.source, 'bytes', size - 1).message,
    );
  });
});

/** A stand-in store: `/endless` streams series without end, `/declared` says its body is 1 GiB. */
let server: Server;
let url = '';
let endlessClosed: Promise<void>;
let chunksSent = 0;

beforeAll(async () => {
  let closed!: () => void;
  endlessClosed = new Promise((r) => (closed = r));
  server = createServer((req, res) => {
    if (req.url?.startsWith('/endless/')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"status":"success","data":{"resultType":"vector","result":[');
      const item = JSON.stringify({ metric: { UUID: 'GPU-x' }, value: [T, '50'] });
      const timer = setInterval(() => {
        chunksSent++;
        res.write(`${item},`.repeat(100));
      }, 1);
      res.on('close', () => {
        clearInterval(timer);
        closed();
      });
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(2 ** 30) });
    res.write('{"status":"success",');
    setTimeout(() => res.destroy(), 2000);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('PrometheusSource past its limits (stand-in store)', () => {
  it('stops reading an endless answer at the byte limit: TooLarge, and the connection is closed', async () => {
    const source = new PrometheusSource({ url: `${url}/endless/`, limits: { maxBytes: 200_000 } });
    const r = await source.read({ metric: 'DCGM_FI_DEV_GPU_UTIL', windowSeconds: 60 });
    expect(r).toEqual({
      ok: false,
      reason: 'TooLarge',
      message: `prometheus ${url}/endless/: the answer is larger than 200000 bytes; reading stopped there (narrow the selector, or raise the limit)`,
    });
    await endlessClosed;
    expect(chunksSent).toBeLessThan(1000);
  });

  it('stops at the series limit before the byte limit', async () => {
    const source = new PrometheusSource({ url: `${url}/endless/`, limits: { maxSeries: 250 } });
    const r = await source.read({ metric: 'DCGM_FI_DEV_GPU_UTIL', windowSeconds: 60 });
    expect(r).toMatchObject({ ok: false, reason: 'TooLarge' });
    expect(!r.ok && r.message).toContain('more than 250 series');
  });

  it('refuses a body whose Content-Length is over the limit without reading it', async () => {
    const source = new PrometheusSource({ url: `${url}/declared/` });
    const r = await source.read({ metric: 'DCGM_FI_DEV_GPU_UTIL', windowSeconds: 60 });
    expect(r).toMatchObject({ ok: false, reason: 'TooLarge' });
    expect(!r.ok && r.message).toContain('(Content-Length 1073741824)');
  });
});

describe('a scaling pass on an answer past its limit', () => {
  it('holds every algorithm with NoData naming the limit; nothing scales down', () => {
    const reading: UtilizationReading = {
      ok: false,
      reason: 'TooLarge',
      message: 'prometheus http://p:9090: the answer has more than 500000 series; reading stopped there',
    };
    const pods = [0, 1, 2].map((i) => pod(`resnet50-infer-7d9f-${i}`));
    const r = decideScaling({
      algorithms: [{ algorithm: algorithm({ minReplicas: 1 }), pool: 'long-task', replicas: 3 }],
      snapshot: { takenAt: '', nodes: [], pods },
      reading,
      recent: [],
      policy: policyNoWindows(),
      now: new Date('2025-06-01T12:00:00Z'),
    });
    expect(r.decisions.map((d) => [d.action, d.reason, d.replicas.to])).toEqual([['hold', 'NoData', 3]]);
    expect(r.decisions[0]!.message).toContain(
      'no GPU metrics (TooLarge): prometheus http://p:9090: the answer has more than 500000 series',
    );
  });
});

describe('DcgmScrapeSource past its page limit (stand-in exporter)', () => {
  it('an endless page is that target’s error; the other page still counts', async () => {
    const { DcgmScrapeSource } = await import('../../src/metrics/dcgm-scrape.js');
    const page = `DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-1",Hostname="n",namespace="algorithms",pod="p"} 42\n`;
    const small = `data:text/plain,${encodeURIComponent(page)}`;
    const source = new DcgmScrapeSource({
      targets: [{ url: `${url}/endless/metrics` }, { url: small }],
      now: () => new Date(T * 1000),
      maxPageBytes: 100_000,
    });
    const r = await source.read({ metric: 'DCGM_FI_DEV_GPU_UTIL', windowSeconds: 60 });
    if (!r.ok) throw new Error(r.message);
    expect(r.series.map((s) => s.value)).toEqual([42]);
    expect(r.errors).toEqual([
      `${url}/endless/metrics: the page is larger than 100000 bytes; reading stopped there`,
    ]);
  });
});
