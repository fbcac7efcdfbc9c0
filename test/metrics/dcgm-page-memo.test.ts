/**
 * `DcgmPageMemo`: each target's last page parse, reused while the wanted lines are unchanged.
 * Every answer must equal `parseDcgmPage` of the same page at the same scrape time: new values
 * when a utilisation line changes, this scrape's time on samples without a timestamp, the page's
 * own timestamps kept, the node per target, copies a caller may change, errors as the parser's.
 */
import { describe, expect, it } from 'vitest';
import { DcgmPageMemo } from '../../src/metrics/dcgm-page-memo.js';
import { DcgmScrapeSource } from '../../src/metrics/dcgm-scrape.js';
import { MetricsParseError, parseDcgmPage } from '../../src/metrics/dcgm-text.js';
import { DCGM } from '../../src/util/index.js';
import { formatAmdPage } from '../../src/sim/dcgm/amd-page.js';
import { formatDcgmPage } from '../../src/sim/dcgm/page.js';
import { dcgmGpu } from '../support/dcgm-gpu.js';

const page = (u0: number, u2: number, clock = 1410) =>
  formatDcgmPage([dcgmGpu(0, 'a-1', u0, clock), dcgmGpu(1, '', 0, clock), dcgmGpu(2, 'a-2', u2, clock)]);
const opts = (scrapedAtMs: number, node = 'gpu-1') => ({
  source: 'http://x/dcgm/gpu-1/metrics',
  scrapedAtMs,
  metrics: [DCGM.GPU_UTIL],
  node,
});
const values = (s: { value: number }[]) => s.map((x) => x.value);

describe('DcgmPageMemo', () => {
  it('gives what parseDcgmPage gives, page after page, with each scrape’s time', () => {
    const memo = new DcgmPageMemo();
    const pages = [page(73, 12), page(73, 12), page(40, 12), page(40, 12, 210), page(73, 12)];
    pages.forEach((text, i) => {
      const got = memo.parse('t', text, opts(1000 * (i + 1)));
      expect(got).toEqual(parseDcgmPage(text, opts(1000 * (i + 1))));
      expect(got.map((s) => s.timestamp)).toEqual([1000 * (i + 1), 1000 * (i + 1), 1000 * (i + 1)]);
    });
    expect(values(memo.parse('t', page(40, 99), opts(9000)))).toEqual([40, 0, 99]);
  });

  it('keeps each target’s own page and node', () => {
    const memo = new DcgmPageMemo();
    expect(values(memo.parse('a', page(10, 20), opts(1, 'n-a')))).toEqual([10, 0, 20]);
    expect(values(memo.parse('b', page(30, 40), opts(1, 'n-b')))).toEqual([30, 0, 40]);
    const again = memo.parse('a', page(10, 20), opts(2, 'n-a'));
    expect(values(again)).toEqual([10, 0, 20]);
    expect(again[0]!.labels.node).toBe('n-a');
    // The same lines with another node: that node's label, not the kept one.
    expect(memo.parse('a', page(10, 20), opts(3, 'n-c'))[0]!.labels.node).toBe('n-c');
  });

  it('hands out copies: changing an answer does not change the next', () => {
    const memo = new DcgmPageMemo();
    const first = memo.parse('t', page(50, 60), opts(1));
    first[0]!.labels.pod = 'changed';
    first[0]!.value = -1;
    const second = memo.parse('t', page(50, 60), opts(2));
    expect(second[0]!.labels.pod).toBe('a-1');
    expect(second[0]!.value).toBe(50);
  });

  it('keeps the page’s own timestamps, and reads AMD’s page in dcgm-exporter’s spelling', () => {
    const memo = new DcgmPageMemo();
    const stamped =
      '# TYPE DCGM_FI_DEV_GPU_UTIL gauge\nDCGM_FI_DEV_GPU_UTIL{gpu="0",pod="p"} 33 1700000000000\n';
    expect(memo.parse('s', stamped, opts(5)).map((s) => s.timestamp)).toEqual([1_700_000_000_000]);
    expect(memo.parse('s', stamped, opts(6)).map((s) => s.timestamp)).toEqual([1_700_000_000_000]);
    const amd = formatAmdPage('amd-1', [dcgmGpu(0, 'a-1', 64)]);
    for (const at of [7, 8]) expect(memo.parse('amd', amd, opts(at))).toEqual(parseDcgmPage(amd, opts(at)));
    expect(memo.parse('amd', amd, opts(9))[0]!.metric).toBe(DCGM.GPU_UTIL);
  });

  it('throws the parser’s error for a bad page and reads the next good one', () => {
    const memo = new DcgmPageMemo();
    memo.parse('t', page(20, 30), opts(1));
    const bad = '# TYPE DCGM_FI_DEV_GPU_UTIL gauge\nDCGM_FI_DEV_GPU_UTIL{gpu="0" 5\n';
    expect(() => memo.parse('t', bad, opts(2))).toThrow(MetricsParseError);
    expect(() => memo.parse('t', bad, opts(3))).toThrow(/:2: /);
    expect(values(memo.parse('t', page(20, 30), opts(4)))).toEqual([20, 0, 30]);
  });
});

describe('DcgmScrapeSource with the memo', () => {
  it('reads each pass’s values and scrape time from pages that change and pages that do not', async () => {
    let u = 10;
    let now = 1_000;
    const source = new DcgmScrapeSource({
      targets: [{ url: 'http://x/dcgm/gpu-1/metrics', node: 'gpu-1' }],
      now: () => new Date(now),
      fetch: async () => new Response(page(u, 5)),
    });
    const read = async () => {
      const r = await source.read({ metric: DCGM.GPU_UTIL, windowSeconds: 60 });
      if (!r.ok) throw new Error(r.message);
      return r.series.map((s) => [s.value, s.timestamp]);
    };
    expect(await read()).toEqual([
      [10, 1000],
      [0, 1000],
      [5, 1000],
    ]);
    now = 2_000;
    expect(await read()).toEqual([
      [10, 2000],
      [0, 2000],
      [5, 2000],
    ]);
    u = 90;
    now = 3_000;
    expect(await read()).toEqual([
      [90, 3000],
      [0, 3000],
      [5, 3000],
    ]);
  });
});
