import { describe, expect, it } from 'vitest';
import { dnsLabel } from '../../src/manifests/names.js';

const DNS_LABEL = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;

describe('dnsLabel', () => {
  it.each([
    {
      name: 'valid short parts join unchanged',
      parts: ['resnet50-infer', 'bench', '1'],
      want: 'resnet50-infer-bench-1',
    },
    { name: 'empty parts are skipped', parts: ['a', '', 'b'], want: 'a-b' },
  ])('$name', ({ parts, want }) => {
    expect(dnsLabel(parts)).toBe(want);
  });

  it('a name that had to change ends with a hash, so Resnet and resnet stay different', () => {
    const upper = dnsLabel(['Resnet']);
    const lower = dnsLabel(['resnet']);
    expect(lower).toBe('resnet');
    expect(upper).toMatch(/^resnet-[0-9a-f]{8}$/);
    expect(upper).not.toBe(lower);
  });

  it('invalid characters become single dashes, never at the ends', () => {
    const n = dnsLabel(['_My.Algo__', 'v2!']);
    expect(n).toMatch(DNS_LABEL);
    expect(n.startsWith('my-algo-v2-')).toBe(true);
  });

  it('a long name is cut to 63 and ends with a hash; two long names with one prefix stay distinct', () => {
    const prefix = 'a'.repeat(70);
    const x = dnsLabel([prefix, 'x']);
    const y = dnsLabel([prefix, 'y']);
    expect(x.length).toBe(63);
    expect(y.length).toBe(63);
    expect(x).not.toBe(y);
    expect(x).toMatch(DNS_LABEL);
    expect(x).toMatch(/-[0-9a-f]{8}$/);
  });

  it('ends a cut name with the first 8 hex characters of the sha256 of the joined text', () => {
    // sha256('z' × 80) computed outside gpuops (`printf 'z%.0s' {1..80} | sha256sum`).
    expect(dnsLabel(['z'.repeat(80)])).toBe(`${'z'.repeat(54)}-a32af47b`);
  });

  it('honours a smaller maxLen', () => {
    expect(dnsLabel(['abcdefghijklmnopqrstuvwxyz'], 20)).toHaveLength(20);
  });

  it.each([
    { name: 'maxLen above 63', parts: ['a'], maxLen: 64 },
    { name: 'maxLen too small for the hash', parts: ['a'], maxLen: 5 },
    { name: 'no usable character', parts: ['---', '!!'], maxLen: 63 },
  ])('throws on $name', ({ parts, maxLen }) => {
    expect(() => dnsLabel(parts, maxLen)).toThrow(RangeError);
  });
});
