import { describe, expect, it } from 'vitest';
import {
  changesAndFlaps,
  computeFigures,
  idealPoints,
  staticPodTime,
  staticPoints,
} from '../../src/replay/figures.js';
import type { Trace } from '../../src/replay/trace.js';

/** Three instants 60 s apart: loads 150, 50, 0 GPU-percent. */
const trace: Trace = {
  source: 't',
  pods: 3,
  instants: [
    { t: 100, values: [90, 60, 0] },
    { t: 160, values: [50, 0] },
    { t: 220, values: [0, 0, 0] },
  ],
};

describe('computeFigures', () => {
  it('integrates served, unserved, allocated and above-max over time', () => {
    // 1 GPU Ready throughout (2 allocated: one starting): load 150 → 100 served, 50 unserved.
    const f = computeFigures(trace, [{ t: 0, allocated: 2, ready: 1, replicas: 2 }], {
      engine: 'x',
      max: 80,
      flapWindowSeconds: 300,
      staticGpuHours: 1,
    });
    expect(f.offeredGpuHours).toBeCloseTo((200 * 60) / 360000, 3);
    expect(f.servedGpuHours).toBeCloseTo((150 * 60) / 360000, 3);
    expect(f.unservedGpuHours).toBeCloseTo((50 * 60) / 360000, 3);
    expect(f.servedGpuHours + f.unservedGpuHours).toBeCloseTo(f.offeredGpuHours, 3);
    expect(f.allocatedGpuHours).toBeCloseTo((2 * 180) / 3600, 2);
    expect(f.utilizationPercent).toBeCloseTo((100 * 150 * 60) / (100 * 2 * 180), 1);
    // Above max only in the first minute (150 % on one GPU); 50 % and 0 % are not.
    expect(f.aboveMaxPercent).toBeCloseTo(33.33, 1);
  });

  it('counts nothing before the first point, and switches state mid-instant', () => {
    const f = computeFigures(
      trace,
      [
        { t: 30, allocated: 2, ready: 2, replicas: 2 },
        { t: 90, allocated: 1, ready: 1, replicas: 1 },
      ],
      { engine: 'x', max: 80, flapWindowSeconds: 300 },
    );
    // 0–30 s: no GPU, 150 unserved; 30–60: 2 GPUs serve 150; 60–90: 50 on 2; 90–120: 50 on 1.
    expect(f.unservedGpuHours).toBeCloseTo((150 * 30) / 360000, 4);
    expect(f.allocatedGpuHours).toBeCloseTo((2 * 60 + 1 * 90) / 3600, 2);
  });

  it('static: utilisation is the mean of the values over pod-samples', () => {
    const f = computeFigures(trace, staticPoints(trace), {
      engine: 'static',
      max: 80,
      flapWindowSeconds: 300,
      podTime: staticPodTime(trace, 80),
    });
    const all = trace.instants.flatMap((i) => i.values);
    expect(f.utilizationPercent).toBeCloseTo(all.reduce((a, b) => a + b, 0) / all.length, 2);
    expect(f.unservedGpuHours).toBe(0);
    // One pod-sample (90) of eight is above 80.
    expect(f.aboveMaxPercent).toBeCloseTo(12.5, 2);
  });

  it('ideal: ceil(load / max) GPUs, at exactly max no more', () => {
    const t: Trace = {
      source: 't',
      pods: 2,
      instants: [
        { t: 0, values: [80, 80] },
        { t: 60, values: [80, 81] },
      ],
    };
    expect(idealPoints(t, 80).map((p) => p.allocated)).toEqual([2, 3]);
  });
});

describe('changesAndFlaps', () => {
  it.each([
    ['NoChange', [1, 1, 1], [0, 0]],
    ['UpUp', [1, 2, 3], [2, 0]],
    ['UpThenDownInsideWindow', [1, 2, 1], [2, 1]],
  ])('%s', (_n, reps, [changes, flaps]) => {
    const pts = reps.map((r, i) => ({ t: i * 60, replicas: r }));
    expect(changesAndFlaps(pts, 300)).toEqual({ changes, flaps });
  });

  it('a reversal at or after the window is no flap', () => {
    const pts = [
      { t: 0, replicas: 1 },
      { t: 10, replicas: 2 },
      { t: 310, replicas: 1 },
    ];
    expect(changesAndFlaps(pts, 300)).toEqual({ changes: 2, flaps: 0 });
    expect(changesAndFlaps([...pts.slice(0, 2), { t: 309, replicas: 1 }], 300).flaps).toBe(1);
  });
});

describe('computeFigures on one trace measured many times', () => {
  it('measures the same instants alike every time, and a trace of more instants afresh', () => {
    const short: Trace = { ...trace, instants: trace.instants.slice(0, 2) };
    const points = [{ t: 0, allocated: 2, ready: 1, replicas: 2 }];
    const o = { engine: 'x', max: 80, flapWindowSeconds: 300 };
    const before = computeFigures(short, points, o);
    expect(computeFigures(short, points, o)).toEqual(before);
    const grown: Trace = { ...short, instants: [...short.instants, { t: 220, values: [0, 0, 0] }] };
    const after = computeFigures(grown, points, o);
    expect(after).not.toEqual(before);
    expect(after).toEqual(computeFigures({ ...trace, instants: [...trace.instants] }, points, o));
  });
});

/**
 * Checked by tsc, never run: each line fails the type check (an unused `@ts-expect-error`) if
 * `Trace.instants` or an instant's `t` or `values` loses `readonly`, the one thing that keeps a
 * table `computeFigures` remembers by the instants right (it has no length check since).
 */
function instantsAreReadOnly(t: Trace): void {
  // @ts-expect-error the instants are read-only
  t.instants.push({ t: 220, values: [0] });
  // @ts-expect-error an instant's time is read-only
  t.instants[0]!.t = 5;
  // @ts-expect-error an instant's values are read-only
  t.instants[0]!.values[0] = 5;
}
void instantsAreReadOnly;
