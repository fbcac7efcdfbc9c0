/** Round axis ticks: the steps, an axis from 0 over a maximum, ticks within a range; never 0, 14, 29, 43, 58. */
import { describe, expect, it } from 'vitest';
import { roundStep, ticksWithin, zeroAxis } from '../../src/replay/ticks.js';

describe('roundStep', () => {
  it.each([
    [14.5, 20],
    [10, 10],
    [10.01, 20],
    [2.2, 2.5],
    [0.3, 0.5],
    [0.07, 0.1],
    [3, 5],
    [0, 1],
    [-2, 1],
  ])('%d → %d', (raw, step) => expect(roundStep(raw)).toBeCloseTo(step, 12));
});

describe('zeroAxis', () => {
  it.each([
    [58, 60, [0, 20, 40, 60]],
    [57.9, 60, [0, 20, 40, 60]],
    [60, 60, [0, 20, 40, 60]],
    [100, 100, [0, 25, 50, 75, 100]],
    [1.05, 1.5, [0, 0.5, 1, 1.5]],
    [0.01, 0.01, [0, 0.0025, 0.005, 0.0075, 0.01]],
  ])('max %d → top %d', (max, top, ticks) => {
    const a = zeroAxis(max);
    expect(a.top).toBeCloseTo(top, 12);
    expect(a.ticks).toEqual(ticks);
  });
});

describe('ticksWithin', () => {
  it.each([
    [36.2, 48.8, [37.5, 40, 42.5, 45, 47.5]],
    [0, 1, [0, 0.25, 0.5, 0.75, 1]],
    [0.04, 0.56, [0.1, 0.2, 0.3, 0.4, 0.5]],
  ])('%d..%d', (lo, hi, ticks) => expect(ticksWithin(lo, hi)).toEqual(ticks));
});
