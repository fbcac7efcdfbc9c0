import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { headroomFactor, nonNegative, numberList } from './replay-parsers.js';

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
