/**
 * `decimalAt` (`answer-item.ts`): a sample's value or time read from its bytes without a string.
 * Where it gives a number, that number is `Number`'s of the same text, bit for bit (`Object.is`:
 * -0 too); where it cannot be sure (an exponent, too many digits, anything but a plain decimal)
 * it gives undefined and the caller converts the string. `json`: a leading zero JSON refuses.
 */
import { describe, expect, it } from 'vitest';
import { decimalAt } from '../../src/metrics/answer-item.js';

/** `decimalAt` of `text` placed between other bytes (the item's own), as the reader calls it. */
function read(text: string, json = false): number | undefined {
  const bytes = new TextEncoder().encode(`[9,"${text}"]`);
  return decimalAt(bytes, 4, 4 + text.length, json);
}

/** A small seeded generator (the same cases every run). */
function random(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

describe('decimalAt: a plain decimal read from its bytes, as Number reads its text', () => {
  it.each([
    ['0', 0],
    ['-0', -0],
    ['45.30', 45.3],
    ['-12.5', -12.5],
    ['100', 100],
    ['0.1', 0.1],
    ['0.3', 0.3],
    ['1700000000.123', 1700000000.123],
    ['1800000055', 1800000055],
    ['9007199254740991', 9007199254740991],
    ['0.0000000000000000000001', 1e-22],
    ['123456789.0123456', 123456789.0123456],
  ])('%s → %d', (text, want) => {
    expect(Object.is(read(text), want), String(read(text))).toBe(true);
    expect(Object.is(read(text), Number(text))).toBe(true);
  });

  it.each([
    // Not a plain decimal: the caller converts the string (NaN, ±Inf, exponents, blanks, signs).
    'NaN',
    '+Inf',
    '-Inf',
    '1e3',
    '4.25e1',
    '1E+2',
    '+5',
    ' 5',
    '5 ',
    '0x1F',
    '',
    '-',
    '.5',
    '1.',
    '-.5',
    '1.2.3',
    '5\u00a0',
    // Past the exact range: more than 2^53 − 1 as an integer, more than 22 digits after the point.
    '9007199254740992',
    '9007199254740993',
    '12345678901234567890',
    '0.00000000000000000000001',
    '1.2345678901234567890123',
  ])('%j → undefined', (text) => {
    expect(read(text)).toBeUndefined();
  });

  it('leading zeros: Number reads them, JSON refuses them', () => {
    expect(read('007')).toBe(7);
    expect(read('00.5')).toBe(0.5);
    expect(read('007', true)).toBeUndefined();
    expect(read('00.5', true)).toBeUndefined();
    expect(read('-01', true)).toBeUndefined();
    expect(read('0.5', true)).toBe(0.5);
    expect(read('-0', true)).toBe(-0);
  });

  it('generated decimals of every length up to the limits: Number’s double, bit for bit', () => {
    const next = random(7);
    let read_ = 0;
    for (let n = 0; n < 20000; n++) {
      // Up to 18 digits in all: some past 2^53 − 1 (left to the string), most within it.
      const intDigits = 1 + Math.floor(next() * 12);
      const fracDigits = Math.min(22, Math.floor(next() * (19 - intDigits)));
      let text = next() < 0.3 ? '-' : '';
      text += String(1 + Math.floor(next() * 9));
      for (let i = 1; i < intDigits; i++) text += String(Math.floor(next() * 10));
      if (fracDigits > 0) text += '.';
      for (let i = 0; i < fracDigits; i++) text += String(Math.floor(next() * 10));
      const got = read(text);
      if (got === undefined) continue; // past 2^53 − 1 digits as an integer: the string's turn
      read_++;
      expect(Object.is(got, Number(text)), `${text}: ${got} ≠ ${Number(text)}`).toBe(true);
    }
    // Most of them are read here, not left to the string (the range the fast path is for).
    expect(read_).toBeGreaterThan(15000);
  });
});
