/**
 * A service's own load beside a utilisation trace, on CSVs the test writes in the bundled trace's
 * `qps.csv` shape: per-pod rows summed per instant, rows without a pod left out, a row between
 * two instants on the one before it, 0 inside the series' span where no row falls and no reading
 * outside it; bad rows named by file, line and field.
 */
import { describe, expect, it } from 'vitest';
import { parseServiceCsv, withServiceSeries } from '../../src/replay/service-series.js';
import { parseTraceCsv } from '../../src/replay/trace.js';

const HEAD = 'timestamp_anon,value,container_ip,request_type';
const QPS = [
  HEAD,
  '1057.0,0.09,,API Requests',
  '1057.0,0.09,a,Generative Requests',
  '1057.0,0.18,b,Generative Requests',
  '1140.0,0.27,a,Generative Requests',
  '1171.0,0.09,b,Generative Requests',
  '',
].join('\n');

/** Five instants 57 s apart from 1000 s, one pod at 10 %. */
const TRACE = parseTraceCsv(
  ['value,timestamp_anon,container_ip', ...[0, 1, 2, 3, 4].map((i) => `10,${1000 + 57 * i},a`)].join('\n'),
  'trace.csv',
);
const SERIES = { name: 'requests per second', unit: 'requests/s', source: 'qps.csv' };

describe('parseServiceCsv', () => {
  it('sums the per-pod rows of each time and leaves out the rows without a pod', () => {
    const s = parseServiceCsv(QPS, 'qps.csv');
    expect([...s.byTime]).toEqual([
      [1057, 0.27],
      [1140, 0.27],
      [1171, 0.09],
    ]);
    expect(s.withoutPod).toBe(1);
  });

  it.each([
    ['NegativeValue', `${HEAD}\n1057,-0.1,a,x\n`, 'qps.csv:2: value: expected a finite number 0 or more'],
    ['EmptyValue', `${HEAD}\n1057,,a,x\n`, 'qps.csv:2: value'],
    ['TextValue', `${HEAD}\n1057,many,a,x\n`, 'qps.csv:2: value'],
    ['BadTime', `${HEAD}\n1057,0.09,a,x\nthen,0.09,a,x\n`, 'qps.csv:3: timestamp_anon'],
    ['Milliseconds', `${HEAD}\n1662858720000,0.09,a,x\n`, 'qps.csv:2: timestamp_anon: time'],
    [
      'MissingColumn',
      'timestamp_anon,value\n1057,0.09\n',
      'qps.csv:1: header: missing column "container_ip"',
    ],
    ['OnlyNoPodRows', `${HEAD}\n1057,0.09,,API Requests\n`, 'qps.csv: no row names a pod'],
  ])('%s: names the file, line and field', (_n, text, message) => {
    expect(() => parseServiceCsv(text, 'qps.csv')).toThrow(message);
  });

  it('accepts 0 (the boundary is inclusive)', () => {
    expect(parseServiceCsv(`${HEAD}\n1057,0,a,x\n`, 'q').byTime.get(1057)).toBe(0);
  });
});

describe('withServiceSeries', () => {
  const t = withServiceSeries(TRACE, parseServiceCsv(QPS, 'qps.csv'), SERIES);
  it('each instant holds the rows from it to the next; 0 in the span, no reading outside', () => {
    // Instants 1000, 1057, 1114, 1171, 1228: the series spans 1057..1171; 1140 falls on 1114.
    expect(t.instants.map((x) => x.service)).toEqual([undefined, 0.27, 0.27, 0.09, undefined]);
    expect(t.service).toEqual(SERIES);
    expect(t.instants.map((x) => x.values)).toEqual(TRACE.instants.map((x) => x.values));
  });

  it('an instant whose step holds the first row is in the span; a row before the trace is left out', () => {
    const early = parseServiceCsv(`${HEAD}\n990,5,a,x\n1030,0.09,a,x\n1171,0.09,a,x\n`, 'q');
    expect(withServiceSeries(TRACE, early, SERIES).instants.map((x) => x.service)).toEqual([
      0.09,
      0,
      0,
      0.09,
      undefined,
    ]);
  });
});
