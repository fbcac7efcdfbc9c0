/**
 * `boundedMemo`: a held key is a hit, the first key remembered goes when one more than `limit`
 * is asked (and not before), a key is its value (a string built another way is the same key).
 */
import { describe, expect, it } from 'vitest';
import { boundedMemo } from '../../src/util/bounded-memo.js';

/** A memo of `limit` over a function that counts its calls by key. */
function counted(limit: number): { memo: (k: string) => string; calls: Map<string, number> } {
  const calls = new Map<string, number>();
  const memo = boundedMemo(limit, (k: string) => {
    calls.set(k, (calls.get(k) ?? 0) + 1);
    return `${k}!`;
  });
  return { memo, calls };
}

describe('boundedMemo', () => {
  // Each row: the limit, the keys asked in order, then a key asked once more and how many times
  // `fn` has been called for it after that (1: it was still held; 2: it was forgotten).
  it.each([
    { name: 'a hit: the key asked again', limit: 3, asked: ['a'], again: 'a', calls: 1 },
    { name: 'one below the limit: the first still held', limit: 3, asked: ['a', 'b'], again: 'a', calls: 1 },
    { name: 'at the limit: the first still held', limit: 3, asked: ['a', 'b', 'c'], again: 'a', calls: 1 },
    {
      name: 'one past the limit: the first forgotten',
      limit: 3,
      asked: ['a', 'b', 'c', 'd'],
      again: 'a',
      calls: 2,
    },
    {
      name: 'one past the limit: the second still held',
      limit: 3,
      asked: ['a', 'b', 'c', 'd'],
      again: 'b',
      calls: 1,
    },
    {
      name: 'a hit does not make a key younger',
      limit: 3,
      asked: ['a', 'b', 'a', 'c', 'd'],
      again: 'a',
      calls: 2,
    },
    {
      name: 'two past the limit: the second forgotten',
      limit: 3,
      asked: ['a', 'b', 'c', 'd', 'e'],
      again: 'b',
      calls: 2,
    },
    {
      name: 'two past the limit: the third held',
      limit: 3,
      asked: ['a', 'b', 'c', 'd', 'e'],
      again: 'c',
      calls: 1,
    },
    { name: 'limit 1: the newest only', limit: 1, asked: ['a', 'b'], again: 'b', calls: 1 },
    { name: 'limit 1: the one before forgotten', limit: 1, asked: ['a', 'b'], again: 'a', calls: 2 },
    {
      name: 'once round the ring: the fourth key forgotten',
      limit: 3,
      asked: ['a', 'b', 'c', 'd', 'e', 'f', 'g'],
      again: 'd',
      calls: 2,
    },
    {
      name: 'once round the ring: the newest three held',
      limit: 3,
      asked: ['a', 'b', 'c', 'd', 'e', 'f', 'g'],
      again: 'e',
      calls: 1,
    },
  ])('$name', ({ limit, asked, again, calls: expected }) => {
    const { memo, calls } = counted(limit);
    for (const k of asked) expect(memo(k)).toBe(`${k}!`);
    expect(memo(again)).toBe(`${again}!`);
    expect(calls.get(again)).toBe(expected);
  });

  it('holds at most the limit: every key asked twice in turn past it is computed each time', () => {
    const { memo, calls } = counted(4);
    const keys = ['a', 'b', 'c', 'd', 'e'];
    for (let round = 0; round < 3; round++) for (const k of keys) memo(k);
    expect([...calls.values()]).toEqual([3, 3, 3, 3, 3]);
  });

  it('a key of the same value built another way is computed once', () => {
    const { memo, calls } = counted(8);
    const built = ['node', '-', 'a/', String(0)].join('');
    expect(memo('node-a/0')).toBe('node-a/0!');
    expect(memo(built)).toBe('node-a/0!');
    expect(memo(`node-a/${0}`)).toBe('node-a/0!');
    expect(calls.get('node-a/0')).toBe(1);
  });

  it('remembers an answer that is false, NaN or undefined, and a NaN key', () => {
    let n = 0;
    const memo = boundedMemo(4, (k: number) => {
      n++;
      return k === 0 ? false : k === 1 ? Number.NaN : Number.isNaN(k) ? 'nan' : undefined;
    });
    for (let i = 0; i < 2; i++) {
      expect(memo(0)).toBe(false);
      expect(memo(1)).toBeNaN();
      expect(memo(2)).toBeUndefined();
      expect(memo(Number.NaN)).toBe('nan');
    }
    expect(n).toBe(4);
  });

  it.each([0, -1, 1.5, Number.NaN])('refuses limit %s', (limit) => {
    expect(() => boundedMemo(limit, (k: string) => k)).toThrow(/limit must be a whole number ≥ 1, got/);
  });
});
