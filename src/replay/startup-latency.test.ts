import { describe, expect, it } from 'vitest';
import { drawStartups, MAX_LATENCY_MS, parseLatencyCsv, quantile } from './startup-latency.js';

describe('parseLatencyCsv: milliseconds in column value, as seconds', () => {
  it('reads the value column wherever it is, skipping blank lines', () => {
    expect(parseLatencyCsv('timestamp_anon,value,container_ip\n1,2639.0,a\n\n2,0,b\n', 'f.csv')).toEqual([
      2.639, 0,
    ]);
  });
  it.each<[string, string, RegExp]>([
    ['NoValueColumn', 'a,b\n1,2\n', /^f\.csv:1: header: missing column "value"/],
    [
      'NotANumber',
      'value\n12\nabc\n',
      /^f\.csv:3: value: expected a latency in milliseconds, 0 to 3600000, got "abc"/,
    ],
    ['Negative', 'value\n-1\n', /^f\.csv:2: value: .* got "-1"/],
    ['Blank', 'value,x\n,1\n', /^f\.csv:2: value: .* got ""/],
    ['AboveAnHour', `value\n${MAX_LATENCY_MS + 1}\n`, /^f\.csv:2: value/],
    ['NoRow', 'value\n', /^f\.csv: no latency to draw from/],
  ])('%s', (_name, text, error) => {
    expect(() => parseLatencyCsv(text, 'f.csv')).toThrow(error);
  });
  it('exactly an hour is accepted', () => {
    expect(parseLatencyCsv(`value\n${MAX_LATENCY_MS}\n`, 'f.csv')).toEqual([3600]);
  });
});

describe('drawStartups: reproducible, from the values only, every value reachable', () => {
  it('the same n gives the same draw, the same seed the same sequence', () => {
    const xs = [1, 2, 3, 4, 5];
    const a = drawStartups(xs);
    const b = drawStartups(xs);
    const seq = Array.from({ length: 200 }, (_, n) => a(n));
    expect(Array.from({ length: 200 }, (_, n) => b(n))).toEqual(seq);
    expect(new Set(seq)).toEqual(new Set(xs));
    expect(Array.from({ length: 200 }, (_, n) => drawStartups(xs, 2)(n))).not.toEqual(seq);
  });
  it('refuses no values', () => {
    expect(() => drawStartups([])).toThrow(/no latency/);
  });
  it('quantile: nearest rank', () => {
    expect([quantile([3, 1, 2, 4], 0.5), quantile([3, 1, 2, 4], 0.9), quantile([], 0.5)]).toEqual([
      2,
      4,
      NaN,
    ]);
  });
});
