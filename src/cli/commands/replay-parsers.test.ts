import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import {
  headroomFactor,
  nodeCount,
  nonNegative,
  numberList,
  positive,
  wholePositive,
} from './replay-parsers.js';

describe('headroomFactor: the Policy schema bounds of headroomFactor / headroomDownMargin', () => {
  it.each([
    ['0', 0],
    ['0.25', 0.25],
    ['10', 10],
  ])('accepts %s', (text, value) => expect(headroomFactor(text)).toBe(value));

  it.each(['10.01', '11', '-0.1', 'x', ''])('refuses %j, saying what it got', (text) => {
    expect(() => headroomFactor(text)).toThrow(InvalidArgumentError);
    expect(() => headroomFactor(text)).toThrow(`"${text}"`);
  });

  it('refuses a list with one factor past 10, as --headroom-down-margins does', () => {
    expect(numberList(headroomFactor)('0,0.25,0.5')).toEqual([0, 0.25, 0.5]);
    expect(() => numberList(headroomFactor)('0,12')).toThrow('between 0 and 10');
  });
});

describe('nonNegative: seconds, hours and factors', () => {
  it.each([
    ['0', 0],
    ['1e3', 1000],
    [' 2 ', 2],
  ])('accepts %j', (text, value) => expect(nonNegative(text)).toBe(value));

  it.each(['', ' ', '-1', 'NaN', 'Infinity', '2h'])('refuses %j', (text) => {
    expect(() => nonNegative(text)).toThrow(`expected a number ≥ 0, got "${text}"`);
  });
});

describe('positive, wholePositive and nodeCount: the message states the bound the parser holds', () => {
  it.each(['0', '-1', '-0.5', '', 'x', 'Infinity'])('positive refuses %j as "> 0"', (text) => {
    expect(() => positive(text)).toThrow(`expected a number > 0, got "${text}"`);
  });

  it.each(['0', '-1', '1.5', '', 'x'])('wholePositive refuses %j as "a whole number > 0"', (text) => {
    expect(() => wholePositive(text)).toThrow(`expected a whole number > 0, got "${text}"`);
  });

  it.each(['-1', '1.5', '', 'all'])('nodeCount refuses %j as "a whole number ≥ 0 or auto"', (text) => {
    expect(() => nodeCount(text)).toThrow(`expected a whole number ≥ 0 or "auto", got "${text}"`);
  });

  it.each([
    [positive, '0.25', 0.25],
    [wholePositive, '1', 1],
    [nodeCount, '0', 0],
    [nodeCount, 'auto', 'auto'],
  ] as const)('accepts the neighbour across the bound: %o %s', (parse, text, want) => {
    expect(parse(text)).toBe(want);
  });
});
