import { describe, expect, it } from 'vitest';
import {
  offeredLoad,
  parsePrometheusRange,
  parseTrace,
  parseTraceCsv,
  sliceTrace,
} from '../../src/replay/trace.js';

const CSV = [
  'value,timestamp_anon,container_ip',
  '10.0,1000.0,a',
  '30.5,1000.0,b',
  '0.0,1057.0,a',
  '99.7,1057.0,c',
  '',
].join('\n');

describe('parseTraceCsv', () => {
  it('groups rows into instants sorted by time, one value per pod', () => {
    const t = parseTraceCsv(CSV, 'x.csv');
    expect(t.instants.map((i) => i.t)).toEqual([1000, 1057]);
    expect(t.instants.map(offeredLoad)).toEqual([40.5, 99.7]);
    expect(t.pods).toBe(3);
  });

  it.each([
    ['ValueAbove100', 'value,timestamp_anon,container_ip\n100.1,1,a\n', 'x.csv:2: value'],
    ['NegativeValue', 'value,timestamp_anon,container_ip\n-1,1,a\n', 'x.csv:2: value'],
    ['BadTime', 'value,timestamp_anon,container_ip\n1,then,a\n', 'x.csv:2: timestamp_anon'],
    ['NoPod', 'value,timestamp_anon,container_ip\n1,1,\n', 'x.csv:2: container_ip'],
    ['MissingColumn', 'value,time,container_ip\n1,1,a\n', 'x.csv:1: header: missing column "timestamp_anon"'],
    ['NoRows', 'value,timestamp_anon,container_ip\n', 'x.csv: no samples'],
  ])('%s: names file, line and field', (_n, text, message) => {
    expect(() => parseTraceCsv(text, 'x.csv')).toThrow(message);
  });

  it.each([
    ['a word', 'abc,1,a', 'got "abc"'],
    ['a blank value', ',1,a', 'got ""'],
    ['a blank value of spaces', ' ,1,a', 'got " "'],
    ['a row too short for the value column', '', ''],
  ])('refuses %s as a value, never reading it as zero', (_n, row, got) => {
    if (row === '') {
      // The value column last: a row that stops early has no value cell at all.
      expect(() => parseTraceCsv('timestamp_anon,container_ip,value\n1,a\n', 'x.csv')).toThrow(
        'x.csv:2: value: expected a utilisation in percent between 0 and 100, got nothing',
      );
      return;
    }
    expect(() => parseTraceCsv(`value,timestamp_anon,container_ip\n${row}\n`, 'x.csv')).toThrow(
      `x.csv:2: value: expected a utilisation in percent between 0 and 100, ${got}`,
    );
  });

  it.each([
    ['null', null, 'got null'],
    ['an empty string', '', 'got ""'],
    ['true', true, 'got true'],
  ])('refuses %s as a query_range sample value, never reading it as a number', (_n, value, got) => {
    const doc = { data: { resultType: 'matrix', result: [{ metric: { pod: 'a' }, values: [[1, value]] }] } };
    expect(() => parsePrometheusRange(JSON.stringify(doc), 'q.json')).toThrow(
      `q.json: data.result[0].values[0][1]: expected a utilisation in percent between 0 and 100, ${got}`,
    );
  });

  it('accepts exactly 100 and 0 (the boundary is inclusive)', () => {
    expect(
      parseTraceCsv('value,timestamp_anon,container_ip\n100,1,a\n0,1,b\n', 'x').instants[0]!.values,
    ).toEqual([100, 0]);
  });
});

describe('parsePrometheusRange', () => {
  const answer = {
    status: 'success',
    data: {
      resultType: 'matrix',
      result: [
        {
          metric: { namespace: 'ml', pod: 'sd-1' },
          values: [
            [1000, '20'],
            [1060, '40'],
          ],
        },
        { metric: { namespace: 'ml', pod: 'sd-2' }, values: [[1060, '50.5']] },
      ],
    },
  };

  it('reads one series per pod into instants', () => {
    const t = parseTrace(JSON.stringify(answer), 'q.json');
    expect(t.instants.map((i) => [i.t, offeredLoad(i)])).toEqual([
      [1000, 20],
      [1060, 90.5],
    ]);
    expect(t.pods).toBe(2);
  });

  it.each([
    ['Vector', { data: { resultType: 'vector', result: [] } }, 'data.resultType: expected "matrix"'],
    ['ErrorAnswer', { status: 'error', error: 'bad query' }, 'status: error: bad query'],
    [
      'BadValue',
      { data: { resultType: 'matrix', result: [{ metric: { pod: 'a' }, values: [[1, 'x']] }] } },
      'data.result[0].values[0][1]',
    ],
  ])('%s: names the JSON path', (_n, doc, message) => {
    expect(() => parsePrometheusRange(JSON.stringify(doc), 'q.json')).toThrow(message);
  });
});

describe('sliceTrace', () => {
  it('keeps the instants within the window from the start', () => {
    const t = parseTraceCsv(CSV, 'x.csv');
    expect(sliceTrace(t, 0, 57).instants.map((i) => i.t)).toEqual([1000]);
    expect(sliceTrace(t, 0, 58).instants.map((i) => i.t)).toEqual([1000, 1057]);
  });
});

describe('trace times are bounded (issue 29 item 9)', () => {
  const csv = (...rows: string[]) => ['value,timestamp_anon,container_ip', ...rows, ''].join('\n');

  it.each([
    [
      'HugeTimestamp',
      csv('10,1000,a', '10,1e20,a'),
      'x.csv:3: timestamp_anon: time 100000000000000000000 is past 2100-01-01',
    ],
    ['Milliseconds', csv('10,1662858720000,a'), '(is this milliseconds?)'],
    ['NegativeTime', csv('10,-1,a'), 'x.csv:2: timestamp_anon: expected a time in Unix seconds (0 or later)'],
    [
      'OneYearGap',
      csv('10,1662858720,a', '10,1694394720,a'),
      'x.csv:3: timestamp_anon: 31536000 s after the previous instant',
    ],
    ['GapJustAbove', csv('10,1000,a', '20,4601,a'), 'x.csv:3: timestamp_anon: 3601 s after'],
  ])('%s: names the line', (_n, text, message) => {
    expect(() => parseTraceCsv(text, 'x.csv')).toThrow(message);
  });

  it('names the first line of the later instant when rows are out of order', () => {
    expect(() => parseTraceCsv(csv('10,9000,a', '10,1000,b', '10,9000,c'), 'x.csv')).toThrow(
      'x.csv:2: timestamp_anon: 8000 s after the previous instant (1000)',
    );
  });

  it('accepts the boundaries: a gap of exactly 3600 s, time 0 and 2100-01-01', () => {
    expect(parseTraceCsv(csv('10,0,a', '20,3600,a'), 'x').instants.map((i) => i.t)).toEqual([0, 3600]);
    expect(parseTraceCsv(csv('10,4102444800,a'), 'x').instants[0]!.t).toBe(4102444800);
    expect(() => parseTraceCsv(csv('10,4102444801,a'), 'x')).toThrow('past 2100-01-01');
  });

  it('bounds a query_range answer too, naming the JSON path', () => {
    const doc = (values: unknown[]) =>
      JSON.stringify({ data: { resultType: 'matrix', result: [{ metric: { pod: 'a' }, values }] } });
    expect(() => parsePrometheusRange(doc([[1e20, '1']]), 'q.json')).toThrow(
      'q.json: data.result[0].values[0][0]: time 100000000000000000000 is past',
    );
    expect(() =>
      parsePrometheusRange(
        doc([
          [1000, '1'],
          [1000 + 366 * 86400, '1'],
        ]),
        'q.json',
      ),
    ).toThrow('q.json: data.result[0].values[1][0]: 31622400 s after the previous instant');
  });
});
