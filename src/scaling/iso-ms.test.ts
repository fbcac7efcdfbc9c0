/** `isoMs`: the answer of `Date.parse` for every text, remembered or not, and after the memo is full. */
import { describe, expect, it } from 'vitest';
import { isoMs } from './iso-ms.js';

describe('isoMs', () => {
  it('answers as Date.parse, the first time and again', () => {
    for (const text of [
      '2026-01-01T00:00:15.000Z',
      '2025-06-01T12:00:00Z',
      '2025-06-01T14:00:00+02:00',
      'not a time',
      '',
    ])
      for (let i = 0; i < 2; i++) expect(Object.is(isoMs(text), Date.parse(text))).toBe(true);
    expect(isoMs('2026-01-01T00:00:15.000Z')).toBe(Date.UTC(2026, 0, 1, 0, 0, 15));
    expect(isoMs('not a time')).toBeNaN();
  });

  it('still answers right past the number of times it remembers', () => {
    const start = Date.UTC(2026, 0, 1);
    let wrong = 0;
    for (let s = 0; s < 60_000; s++)
      if (isoMs(new Date(start + s * 1000).toISOString()) !== start + s * 1000) wrong++;
    expect(wrong).toBe(0);
    expect(isoMs(new Date(start).toISOString())).toBe(start);
  });
});
