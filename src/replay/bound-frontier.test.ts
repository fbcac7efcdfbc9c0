import { describe, expect, it } from 'vitest';
import { familyLead, hpaParetoFront, utilizationWithin } from './bound-frontier.js';
import type { BoundPoint } from './causal-bound.js';
import type { EngineFigures } from './figures.js';
import type { FrontierPoint } from './frontier.js';

const rule = (w: number, beta: number, util: number, unserved: number, aboveMax: number): BoundPoint => ({
  windowSeconds: w,
  beta,
  utilizationPercent: util,
  unservedPercent: unserved,
  aboveMaxPercent: aboveMax,
});
const hpaAt = (target: number, util: number, unserved: number, aboveMax: number): FrontierPoint => ({
  parameter: target,
  figures: {
    engine: `hpa@${target}`,
    utilizationPercent: util,
    unservedPercent: unserved,
    aboveMaxPercent: aboveMax,
  } as EngineFigures,
});

describe('utilizationWithin: the most the family reaches at no more unserved load', () => {
  // C (42 at 0.15) lies between A and B on the envelope; D (45 at 0.3) under B: left out.
  const A = rule(0, 2, 40, 0.1, 0);
  const B = rule(0, 1, 50, 0.2, 0);
  const C = rule(60, 1.5, 42, 0.15, 0);
  const D = rule(120, 0.5, 45, 0.3, 0);
  const pts = [B, D, A, C];
  it.each<[string, readonly BoundPoint[], number, { utilization: number; from: BoundPoint[] } | null]>([
    ['AtAPointItsUtilisation', pts, 0.1, { utilization: 40, from: [A] }],
    ['BetweenTwoPointsLinear', pts, 0.175, { utilization: 46, from: [C, B] }],
    ['BelowTheLowestUnservedNoRuleGotThere', pts, 0.05, null],
    ['AboveTheHighestTheHighestPointsUtilisation', pts, 0.35, { utilization: 50, from: [B] }],
    ['ADominatedPointIsLeftOut', pts, 0.3, { utilization: 50, from: [B] }],
    ['EqualPointsReadAsOne', [B, { ...B, windowSeconds: 30 }, A], 0.2, { utilization: 50, from: [B] }],
    [
      'EqualUnservedTheHigherUtilisation',
      [rule(0, 1, 44, 0.2, 0), B, A],
      0.2,
      { utilization: 50, from: [B] },
    ],
    ['NoPoint', [], 0.2, null],
  ])('%s', (_name, points, unserved, want) => {
    const got = utilizationWithin(points, unserved);
    if (want === null) expect(got).toBeNull();
    else {
      expect(got!.from).toEqual(want.from);
      expect(got!.utilization).toBeCloseTo(want.utilization, 9);
    }
  });
});

describe('hpaParetoFront: the HPA points no other beats on unserved load, pod-time above max and utilisation', () => {
  it.each<[string, FrontierPoint[], number[]]>([
    ['ALowerHigherAndHotterPointIsLeftOut', [hpaAt(55, 42, 0.25, 1), hpaAt(60, 41, 0.3, 1.5)], [55]],
    ['LessUnservedButHotterBothStay', [hpaAt(55, 42, 0.25, 1), hpaAt(60, 41, 0.2, 1.5)], [55, 60]],
    ['EqualPointsBothStay', [hpaAt(55, 42, 0.25, 1), hpaAt(56, 42, 0.25, 1)], [55, 56]],
    ['OneStrictlyBetterOnOneFigureBeats', [hpaAt(55, 42, 0.25, 1), hpaAt(56, 42, 0.25, 0.9)], [56]],
  ])('%s', (_name, hpa, kept) => {
    expect(hpaParetoFront(hpa).map((p) => p.parameter)).toEqual(kept);
  });
});

describe('familyLead: the causal bound family against the HPA frontier over 0.05–0.5 % unserved', () => {
  // The HPA: 60 % lies under 55 % on every figure (left out of both frontiers); 45 % runs cooler
  // than any rule.
  const HPA = [
    hpaAt(45, 30, 0.06, 0.1),
    hpaAt(50, 38, 0.2, 0.5),
    hpaAt(55, 42, 0.25, 1),
    hpaAt(60, 41, 0.3, 1.5),
    hpaAt(65, 49, 0.4, 3),
  ];
  const r1 = rule(0, 2, 44, 0.04, 0.4); // below the range
  const r2 = rule(60, 1, 45, 0.05, 0.6); // at its low end, below the HPA's lowest unserved load
  const r3 = rule(120, 1, 43, 0.1, 0.3); // under r2: off the family's frontier
  const r4 = rule(0, 1, 50, 0.3, 2);
  const r6 = rule(30, 1, 50, 0.3, 2); // the same figures as r4
  const r5 = rule(0, 0.5, 55, 0.45, 5); // above the HPA's highest unserved load
  const r7 = rule(0, 0.75, 53, 0.5, 2.5);
  const l = familyLead(HPA, [r1, r2, r3, r4, r5, r6, r7]);

  it('at equal unserved load: every rule in the range with an HPA value; the least lead on the frontier, the most of any', () => {
    expect(
      l.atUnserved.compared.map((c) => [c.windowSeconds, c.beta, c.hpa, c.lead, c.hpaBound, c.onFrontier]),
    ).toEqual([
      // Below the HPA's lowest unserved load (0.06): its lowest point, 30 %, generous to the HPA.
      [60, 1, 30, 15, true, true],
      // Between 45 % (30 at 0.06) and 50 % (38 at 0.2): 30 + 8 · 0.04 / 0.14.
      [120, 1, 32.29, 10.71, false, false],
      // Between 55 % (42 at 0.25) and 65 % (49 at 0.4), 60 % left out: 42 + 7 · 0.05 / 0.15.
      [0, 1, 44.33, 5.67, false, true],
      [30, 1, 44.33, 5.67, false, false],
    ]);
    expect(l.atUnserved.minLead).toBe(5.67);
    expect(l.atUnserved.best).toMatchObject({ windowSeconds: 60, beta: 1, lead: 15 });
  });

  it('at equal unserved load and no more pod-time above max: at each HPA frontier point, the rules no hotter', () => {
    expect(l.atBoth.compared.map((c) => [c.target, c.family, c.lead, c.rules])).toEqual([
      // Rules at ≤ 0.5 % above max: r1 and r3 under it; above r1's unserved load, its 44.
      [50, 44, 6, [{ windowSeconds: 0, beta: 2 }]],
      // ≤ 1 %: r2 too, 45.
      [55, 45, 3, [{ windowSeconds: 60, beta: 1 }]],
      // ≤ 3 %: r4 (0.3) and r7 (0.5) around 0.4: 50 + 3 · 0.1 / 0.2 = 51.5.
      [
        65,
        51.5,
        2.5,
        [
          { windowSeconds: 0, beta: 1 },
          { windowSeconds: 0, beta: 0.75 },
        ],
      ],
    ]);
    expect(l.atBoth.uncovered).toEqual([45]);
    expect(l.atBoth.minLead).toBe(2.5);
    expect(l.atBoth.best).toMatchObject({ target: 50, lead: 6 });
  });

  it('no rule or no HPA point in the range: nothing compared', () => {
    const none = familyLead(HPA, [r1]);
    expect(none.atUnserved).toEqual({ compared: [], minLead: null, best: null });
    expect(familyLead([], [r2, r4]).atBoth).toEqual({
      compared: [],
      uncovered: [],
      minLead: null,
      best: null,
    });
  });
});
