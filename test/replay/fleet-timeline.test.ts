import { describe, expect, it } from 'vitest';
import { loadDefaultPolicy } from '../../src/definitions/load.js';
import { computeFigures, staticPoints } from '../../src/replay/figures.js';
import { fleetFigures, runFleetModel, shiftedServices } from '../../src/replay/fleet-model.js';
import {
  fleetEndSeconds,
  fleetModelPoints,
  fleetTimeline,
  sumSteps,
} from '../../src/replay/fleet-timeline.js';
import { patchPolicy } from '../../src/replay/replay-policy.js';
import type { Trace } from '../../src/replay/trace.js';
import { modelSettings } from './model-settings.js';

/** 40 instants a minute apart; a load that climbs to 6 pods at 70 % and back. */
const trace: Trace = {
  source: 'synthetic',
  pods: 6,
  instants: Array.from({ length: 40 }, (_, j) => ({
    t: 1000 + 60 * j,
    values: Array(1 + Math.round(5 * Math.sin((Math.PI * j) / 39))).fill(70),
  })),
};
const S = modelSettings({ maxReplicas: 16 });

describe('fleetModelPoints: the allocation runFleetModel steps', () => {
  it.each(['hpa', 'gpuops'] as const)(
    '%s: its figures are runFleetModel’s, service by service',
    async (kind) => {
      const services = shiftedServices(trace, 3);
      const engine =
        kind === 'hpa'
          ? { kind, target: 55 }
          : {
              kind,
              policy: patchPolicy(
                await loadDefaultPolicy(),
                { mergeDelaySeconds: 600, hpaTarget: 55, headroomFactor: 1 },
                1,
              ),
            };
      const points = fleetModelPoints(services, engine, S);
      const f = fleetFigures(
        'x',
        services.map((t, i) =>
          computeFigures(t, points[i]!, { engine: `x#${i}`, max: 80, flapWindowSeconds: 300 }),
        ),
      );
      const m = runFleetModel(services, engine, S, 'x');
      expect(f).toEqual(m);
      expect(Math.max(...points[0]!.map((p) => p.allocated))).toBeGreaterThan(points[0]![0]!.allocated);
    },
  );
});

describe('sumSteps', () => {
  it.each([
    [
      'one series',
      [
        [
          { t: 0, v: 2 },
          { t: 30, v: 3 },
        ],
      ],
      [
        { t: 0, v: 2 },
        { t: 30, v: 3 },
      ],
    ],
    [
      'two series, changes interleaved; a series not started yet counts 0',
      [
        [
          { t: 0, v: 1 },
          { t: 60, v: 4 },
        ],
        [
          { t: 15, v: 2 },
          { t: 45, v: 1 },
        ],
      ],
      [
        { t: 0, v: 1 },
        { t: 15, v: 3 },
        { t: 45, v: 2 },
        { t: 60, v: 5 },
      ],
    ],
    [
      'changes that cancel leave no point',
      [
        [
          { t: 0, v: 1 },
          { t: 30, v: 2 },
        ],
        [
          { t: 0, v: 2 },
          { t: 30, v: 1 },
        ],
      ],
      [{ t: 0, v: 3 }],
    ],
  ])('%s', (_n, series, expected) => {
    expect(sumSteps(series)).toEqual(expected);
  });
});

describe('fleetTimeline', () => {
  it('static over two services: Σ pods reporting; nothing unserved', () => {
    const services = shiftedServices(trace, 2);
    const endS = fleetEndSeconds(services);
    expect(endS).toBe(40 * 60);
    const tl = fleetTimeline('static', services, services.map(staticPoints), endS);
    const pods = (j: number) => services.reduce((a, s) => a + s.instants[j]!.values.length, 0);
    expect(tl.allocated[0]).toEqual({ t: 0, v: pods(0) });
    expect(Math.max(...tl.allocated.map((p) => p.v))).toBe(
      Math.max(...trace.instants.map((_x, j) => pods(j))),
    );
    expect(tl.unserved.map((b) => b.t)).toEqual([0, 600, 1200, 1800]);
    expect(tl.unserved.every((b) => b.v === 0)).toBe(true);
  });

  it('unserved sums the services: one GPU held against a 6-pod load leaves the rest unserved', () => {
    const services = shiftedServices(trace, 2);
    const endS = fleetEndSeconds(services);
    const one = [{ t: 0, allocated: 1, ready: 1, replicas: 1 }];
    const tl = fleetTimeline('one', services, [one, one], endS, endS);
    // Offered load per service averaged over the whole run, less the 1 GPU that serves.
    const mean = (s: Trace) =>
      s.instants.reduce((a, x) => a + Math.max(0, x.values.reduce((b, v) => b + v, 0) / 100 - 1), 0) / 40;
    expect(tl.unserved).toHaveLength(1);
    expect(tl.unserved[0]!.v).toBeCloseTo(mean(services[0]!) + mean(services[1]!), 6);
  });
});
