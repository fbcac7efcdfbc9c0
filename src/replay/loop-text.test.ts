import { describe, expect, it } from 'vitest';
import { familyLead, type FamilyLead } from './bound-frontier.js';
import type { EngineFigures } from './figures.js';
import type { FrontierPoint } from './frontier.js';
import { FAST_LOOP, type LoopResult } from './loop-scenarios.js';
import { familyLeadText, formatLoops } from './loop-text.js';

const figures = (
  utilizationPercent: number,
  aboveMaxPercent: number,
  unservedPercent: number,
): EngineFigures => ({
  engine: 'x',
  utilizationPercent,
  allocatedGpuHours: 0,
  savedGpuHours: 0,
  savedPercent: 0,
  aboveMaxPercent,
  offeredGpuHours: 0,
  servedGpuHours: 0,
  unservedGpuHours: 0,
  unservedPercent,
  replicaChanges: 0,
  flaps: 9,
  nodeRelabels: 0,
  wallSeconds: 0,
});

/** A fast loop whose gpuops made `util` % and whose HPA at its best target within the limits is `hpaBest`. */
const loop = (util: number, hpaBest: FrontierPoint | null): LoopResult => {
  const whole = figures(util, 2.01, 0.185);
  return {
    spec: FAST_LOOP,
    startupSeconds: 30,
    flapWindowSeconds: 120,
    chosen: {
      beta: 0.5,
      margin: 2,
      fallback: false,
      limits: { aboveMaxPercent: 2, unservedPercent: 0.5 },
      firstHalf: whole,
      secondHalf: whole,
      whole,
    },
    flaps300: 62,
    gap: {
      minLead: 1.7,
      compared: [{ beta: 0.5, unserved: 0.267, gpuops: 57.8, hpa: 56.1, lead: 1.7, bound: false }],
    },
    hpaBest,
    bound: { best: null, tried: 80, points: [] },
    familyLead: familyLead([], []),
  };
};

describe('formatLoops: the HPA at its best target within the same limits, beside the equal-unserved lead', () => {
  it.each<[string, LoopResult, string]>([
    [
      'gpuops ahead',
      loop(50.73, { parameter: 65, figures: figures(49.41, 1.32, 0.125) }),
      'the HPA at its best target within the same limits (hindsight): 49.4 % (target 65 %; 1.32 % above max, 0.125 % unserved); gpuops 1.3 points ahead',
    ],
    [
      'gpuops behind',
      loop(50.73, { parameter: 67, figures: figures(50.89, 1.74, 0.182) }),
      '50.9 % (target 67 %; 1.74 % above max, 0.182 % unserved); gpuops 0.2 points behind',
    ],
    [
      'no target within the limits',
      loop(50.73, null),
      'the HPA within the same limits: none of its targets kept them',
    ],
  ])('%s', (_, r, line) => {
    const text = formatLoops([r]);
    expect(text).toContain(line);
    expect(text).toContain('ahead of the HPA at equal unserved load: by 1.7 points at least');
  });
});

describe('familyLeadText: whether any rule of the causal bound family could meet the ≥ 3-point target', () => {
  const r = (windowSeconds: number, beta: number, lead: number, onFrontier = true) => ({
    windowSeconds,
    beta,
    unserved: 0.1,
    aboveMax: 2.5,
    utilization: 50 + lead,
    hpa: 50,
    lead,
    hpaBound: false,
    onFrontier,
  });
  const t = (target: number, lead: number) => ({
    target,
    unserved: 0.2,
    aboveMax: 1.3,
    hpa: 49.4,
    family: 49.4 + lead,
    rules: [{ windowSeconds: 120, beta: 1 }],
    lead,
  });
  const lead = (rules: ReturnType<typeof r>[], targets: ReturnType<typeof t>[]): FamilyLead => {
    const onIt = rules.filter((x) => x.onFrontier).map((x) => x.lead);
    const best = <T extends { lead: number }>(xs: T[]) =>
      xs.reduce<T | null>((a, x) => (a === null || x.lead > a.lead ? x : a), null);
    return {
      atUnserved: { compared: rules, minLead: onIt.length ? Math.min(...onIt) : null, best: best(rules) },
      atBoth: {
        compared: targets,
        uncovered: [],
        minLead: targets.length ? Math.min(...targets.map((x) => x.lead)) : null,
        best: best(targets),
      },
    };
  };
  it.each<[string, FamilyLead, string[]]>([
    [
      'NoRuleReachesThree',
      lead([r(180, 0.75, 2.1), r(0, 1, 2.99, false)], [t(65, 1.4)]),
      [
        '2.1 points at least over its 1 rules on it in 0.05–0.5 %, 3.0 at most (R(0 s, 1): 53.0 % at 0.100 % unserved, 2.50 % above max, against 50.0 %); no rule reaches 3: the ≥ 3-point target is out of reach for any rule of the family',
        'lead 1.4 to 1.4 points over the HPA',
        '< 3 at every target: the target is out of reach',
      ],
    ],
    [
      'ExactlyThreeAllAlongIsWithinReach',
      lead([r(180, 0.75, 3), r(60, 1, 4.5)], [t(60, 3), t(65, 3.2)]),
      [
        '≥ 3 all along it: the target is within the family',
        '≥ 3 at every target: the target is within reach',
      ],
    ],
    [
      'ThreeAtItsBestRuleOnly',
      lead([r(180, 0.75, 2.9), r(60, 1, 3.1)], [t(50, 3.9), t(65, 1.4)]),
      [
        '≥ 3 at its best rule, not all along it',
        '≥ 3 only at target 50 %: all along the frontier the target is out of reach',
      ],
    ],
    [
      'NothingToCompare',
      lead([], []),
      ['no rule in 0.05–0.5 % unserved to compare', 'no HPA point in 0.05–0.5 % unserved that a rule covers'],
    ],
  ])('%s', (_, l, parts) => {
    const text = familyLeadText(l, 80);
    for (const p of parts) expect(text).toContain(p);
  });
});
