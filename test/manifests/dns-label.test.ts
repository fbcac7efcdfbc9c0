/** dnsLabel's rules one row each: the maxLen bounds, the length limit, each cleaning step, the cut. */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { dnsLabel, LABEL_VALUE_MAX } from '../../src/manifests/names.js';

/** The cdk8s suffix: the first 8 hex characters of the sha256 of the joined parts. */
const hash8 = (joined: string) => createHash('sha256').update(joined).digest('hex').slice(0, 8);

describe('dnsLabel maxLen', () => {
  it.each([
    { maxLen: 10, ok: true },
    { maxLen: 9, ok: false },
    { maxLen: 63, ok: true },
    { maxLen: 64, ok: false },
    { maxLen: 20.5, ok: false },
    { maxLen: Number.NaN, ok: false },
  ])('maxLen $maxLen accepted: $ok', ({ maxLen, ok }) => {
    if (ok) expect(dnsLabel(['a'], maxLen)).toBe('a');
    else
      expect(() => dnsLabel(['a'], maxLen)).toThrow(
        new RangeError(`dnsLabel: maxLen must be an integer in 10..63, got ${maxLen}`),
      );
  });

  it('names the parts when none has a usable character', () => {
    expect(() => dnsLabel(['-', '!'])).toThrow(new RangeError('dnsLabel: no usable character in ["-","!"]'));
  });

  it('label values hold at most 63 characters', () => {
    expect(LABEL_VALUE_MAX).toBe(63);
  });
});

describe('dnsLabel cleaning and cutting', () => {
  it.each([
    {
      name: 'exactly maxLen characters stay as they are',
      parts: ['a'.repeat(63)],
      maxLen: 63,
      want: 'a'.repeat(63),
    },
    { name: 'exactly a small maxLen stays', parts: ['abcde', 'fghi'], maxLen: 10, want: 'abcde-fghi' },
    {
      name: 'one character more is cut and hashed',
      parts: ['a'.repeat(64)],
      maxLen: 63,
      want: `${'a'.repeat(54)}-${hash8('a'.repeat(64))}`,
    },
    { name: 'a run of dashes collapses', parts: ['a---b'], maxLen: 63, want: `a-b-${hash8('a---b')}` },
    {
      name: 'invalid characters between dashes collapse',
      parts: ['a-_-b'],
      maxLen: 63,
      want: `a-b-${hash8('a-_-b')}`,
    },
    {
      name: 'leading and trailing dashes go',
      parts: ['--a', 'b--'],
      maxLen: 63,
      want: `a-b-${hash8('--a-b--')}`,
    },
    { name: 'an empty part between parts adds no dash', parts: ['a', '', 'b'], maxLen: 63, want: 'a-b' },
    {
      name: 'a cut that ends on a dash drops it',
      parts: ['abcdefghij-klmnopqrstu'],
      maxLen: 20,
      want: `abcdefghij-${hash8('abcdefghij-klmnopqrstu')}`,
    },
    {
      name: 'the dashes inside the kept head stay',
      parts: ['ab-cd-efgh-ijklmnopqrst'],
      maxLen: 20,
      want: `ab-cd-efgh-${hash8('ab-cd-efgh-ijklmnopqrst')}`,
    },
    { name: 'a trailing dash goes', parts: ['a-'], maxLen: 63, want: `a-${hash8('a-')}` },
    { name: 'a leading dash goes', parts: ['-a'], maxLen: 63, want: `a-${hash8('-a')}` },
    { name: 'digits stay', parts: ['r50', '2'], maxLen: 63, want: 'r50-2' },
    { name: 'upper case becomes lower case', parts: ['GPU'], maxLen: 63, want: `gpu-${hash8('GPU')}` },
  ])('$name', ({ parts, maxLen, want }) => {
    expect(dnsLabel(parts, maxLen)).toBe(want);
    expect(want.length).toBeLessThanOrEqual(maxLen);
  });

  it('hashes the original text: two inputs with one cleaned form get different names', () => {
    expect(dnsLabel(['A!'])).toBe(`a-${hash8('A!')}`);
    expect(dnsLabel(['a.'])).toBe(`a-${hash8('a.')}`);
    expect(hash8('A!')).not.toBe(hash8('a.'));
  });
});
