import { describe, expect, it } from 'vitest';
import type { EngineFigures } from './figures.js';
import type { FrontierPoint } from './frontier.js';
import { FAST_LOOP, type LoopResult } from './loop-scenarios.js';
import { formatLoops } from './loop-text.js';

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
    bound: { best: null, tried: 80 },
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
