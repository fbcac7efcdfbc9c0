import { describe, expect, it } from 'vitest';
import { BOUND_FACTORS, BOUND_WINDOWS, causalBound, windowMax, type BoundSettings } from './causal-bound.js';
import type { Trace } from './trace.js';

/** Instants 60 s apart with these offered loads (GPU-percent, one pod each). */
const trace = (loads: number[]): Trace => ({
  source: 't',
  pods: 1,
  instants: loads.map((l, i) => ({ t: i * 60, values: [l] })),
});
const s = (o: Partial<BoundSettings> = {}): BoundSettings => ({
  tickSeconds: 15,
  sampleDelaySeconds: 15,
  decideEverySeconds: 30,
  startupSeconds: 60,
  max: 80,
  aboveMaxPercent: 2,
  unservedPercent: 0.5,
  ...o,
});

describe('windowMax: the highest of the last n values', () => {
  it.each<[number, number[]]>([
    [1, [3, 1, 4, 1, 5]],
    [2, [3, 3, 4, 4, 5]],
    [3, [3, 3, 4, 4, 5]],
    [9, [3, 3, 4, 4, 5]],
  ])('n = %s', (n, want) => {
    expect([...windowMax(Float64Array.from([3, 1, 4, 1, 5]), n)]).toEqual(want);
  });
});

describe('causalBound', () => {
  it('a constant 1.6 GPUs: β 0 holds 2 replicas at exactly max, 80 % busy, nothing above max', () => {
    const b = causalBound(trace(Array<number>(20).fill(160)), s());
    expect(b.tried).toBe(BOUND_WINDOWS.length * BOUND_FACTORS.length);
    expect(b.best).toMatchObject({ beta: 0, aboveMaxPercent: 0, unservedPercent: 0 });
    expect(b.best!.utilizationPercent).toBeCloseTo(80, 9);
  });

  it('a step no rule can follow within the limits: none', () => {
    const step = [...Array<number>(10).fill(80), ...Array<number>(10).fill(2000)];
    expect(causalBound(trace(step), s({ aboveMaxPercent: 0, unservedPercent: 0 })).best).toBeNull();
  });

  it('the same step, the limits relaxed: a faster start-up serves more of it', () => {
    const step = [...Array<number>(10).fill(80), ...Array<number>(10).fill(2000)];
    const loose = { aboveMaxPercent: 100, unservedPercent: 100 };
    const slow = causalBound(trace(step), s({ ...loose, startupSeconds: 120 })).best!;
    const fast = causalBound(trace(step), s({ ...loose, startupSeconds: 0, sampleDelaySeconds: 0 })).best!;
    expect(fast.unservedPercent).toBeLessThan(slow.unservedPercent);
  });

  it('refuses a tick that is not positive, and an empty trace', () => {
    expect(() => causalBound(trace([1]), s({ tickSeconds: 0 }))).toThrow(/tick 0 s must be positive/);
    expect(() => causalBound(trace([]), s())).toThrow(/t: no instants/);
  });
});
