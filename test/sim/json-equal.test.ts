/** The simulator's "did it change?" equality: JSON documents, key order ignored, undefined absent. */
import { describe, expect, it } from 'vitest';
import { sameJson } from '../../src/sim/json-equal.js';

describe('sameJson', () => {
  it.each([
    [
      'the same object with its keys in another order',
      { a: 1, b: { c: [1, 2], d: 'x' } },
      { b: { d: 'x', c: [1, 2] }, a: 1 },
      true,
    ],
    ['a property that is undefined and an absent one', { a: 1, b: undefined }, { a: 1 }, true],
    ['undefined deep inside a list element', { l: [{ a: 1, b: undefined }] }, { l: [{ a: 1 }] }, true],
    ['a list in another order', { l: [1, 2] }, { l: [2, 1] }, false],
    ['a number and its string', { replicas: 1 }, { replicas: '1' }, false],
    ['null and absent', { a: null }, {}, false],
    ['an extra key', { a: 1 }, { a: 1, b: 2 }, false],
    ['empty object and empty list', {}, [], false],
    ['two scalars', 'x', 'x', true],
  ])('%s → %s', (_name, a, b, same) => {
    expect(sameJson(a, b)).toBe(same);
    expect(sameJson(b, a)).toBe(same);
  });

  it('leaves its inputs unchanged', () => {
    const a = { a: 1, b: undefined, c: [{ d: undefined }] };
    sameJson(a, {});
    expect(Object.keys(a)).toEqual(['a', 'b', 'c']);
    expect(Object.keys(a.c[0]!)).toEqual(['d']);
  });
});
