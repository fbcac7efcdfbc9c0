import { describe, expect, it } from 'vitest';
import { loadDefaultPolicy } from '../../src/definitions/load.js';
import { computedFleet, fleetFigures, runFleetModel, shiftedServices } from '../../src/replay/fleet-model.js';
import { runModel } from '../../src/replay/model-engine.js';
import { computeFigures } from '../../src/replay/figures.js';
import { patchPolicy } from '../../src/replay/replay-policy.js';
import type { Trace } from '../../src/replay/trace.js';
import { replayFleet } from '../../src/replay/fleet-replay.js';
import { DEFAULT_REPLAY_SETTINGS } from '../../src/replay/replay-settings.js';
import { modelSettings } from './model-settings.js';

/** 8 instants a minute apart; instant j has j + 1 pods at 50 %. */
const trace: Trace = {
  source: 'synthetic',
  pods: 8,
  instants: Array.from({ length: 8 }, (_, j) => ({ t: 60 * j, values: Array(j + 1).fill(50) })),
} as unknown as Trace;

const S = modelSettings({ maxReplicas: 64 });

describe('shiftedServices: K circularly shifted copies', () => {
  it('service i starts round(i·n/K) instants in, wraps around, keeps the times', () => {
    const [a, b, c] = shiftedServices(trace, 3);
    expect(a!.instants.map((x) => x.values.length)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(b!.instants.map((x) => x.values.length)).toEqual([4, 5, 6, 7, 8, 1, 2, 3]); // round(8/3) = 3
    expect(c!.instants.map((x) => x.values.length)).toEqual([6, 7, 8, 1, 2, 3, 4, 5]); // round(16/3) = 5
    expect(c!.instants.map((x) => x.t)).toEqual(trace.instants.map((x) => x.t));
    expect([a!.source, c!.source]).toEqual(['synthetic#0', 'synthetic#2']);
  });
  it('refuses a K that is not a whole number ≥ 1', () => {
    expect(() => shiftedServices(trace, 0)).toThrow('--services: expected a whole number ≥ 1, got 0');
    expect(() => shiftedServices(trace, 1.5)).toThrow('got 1.5');
  });
});

describe('the fleet model', () => {
  it('sums the services: pod-level utilisation is Σ served ÷ Σ allocated', () => {
    const [st] = computedFleet(shiftedServices(trace, 2), 80);
    // Static holds every pod at 50 %: 36 pod-minutes each service, utilisation 50 %.
    expect(st!.utilizationPercent).toBe(50);
    expect(st!.allocatedGpuHours).toBeCloseTo((2 * 36) / 60, 2);
    const f = fleetFigures('x', [
      {
        ...st!.services[0]!,
        allocatedGpuHours: 1,
        servedGpuHours: 0.5,
        offeredGpuHours: 0.6,
        unservedGpuHours: 0.1,
      },
      {
        ...st!.services[0]!,
        allocatedGpuHours: 3,
        servedGpuHours: 0.5,
        offeredGpuHours: 0.5,
        unservedGpuHours: 0,
      },
    ]);
    expect([f.utilizationPercent, f.unservedPercent]).toEqual([25, 9.091]);
  });

  it('one service alone is the one-service model; several share the pool headroom', async () => {
    const base = await loadDefaultPolicy();
    const engine = {
      kind: 'gpuops' as const,
      policy: patchPolicy(base, { mergeDelaySeconds: 600, hpaTarget: 55, headroomFactor: 2 }, 2),
    };
    const alone = computeFigures(trace, runModel(trace, engine, S), {
      engine: 'g',
      max: 80,
      flapWindowSeconds: 300,
    });
    const one = runFleetModel([trace], engine, S, 'gpuops');
    expect(one.allocatedGpuHours).toBe(alone.allocatedGpuHours);
    // Four copies of the same service: β·√(4L) shared is half the spare of four β·√L.
    const four = runFleetModel([trace, trace, trace, trace], engine, S, 'gpuops');
    expect(four.allocatedGpuHours).toBeLessThan(4 * alone.allocatedGpuHours);
    // The HPA sizes each service alone: four copies hold exactly four times one.
    const hpa = { kind: 'hpa' as const, target: 55 };
    expect(runFleetModel([trace, trace, trace, trace], hpa, S, 'hpa').allocatedGpuHours).toBeCloseTo(
      4 * runFleetModel([trace], hpa, S, 'hpa').allocatedGpuHours,
      2,
    );
  });
});

describe('replayFleet (gpuops replay --services K)', () => {
  it('prints one line per engine and the fleet verdicts', async () => {
    const text = await replayFleet(trace, 2, DEFAULT_REPLAY_SETTINGS);
    expect(text).toMatch(/^fleet of 2 services/);
    for (const e of ['static', 'hpa 55 %', 'gpuops β 1', 'ideal']) expect(text).toContain(`  ${e} `);
    expect(text).toMatch(/(ok {2}|MISS) {2}gpuops β 1 {2}pod-level utilisation [\d.]+ % \(target ≥ 55 %\)/);
    expect(text).toMatch(/(ok {2}|MISS) {2}hpa 55 % {4}unserved [\d.]+ % \(target ≤ 0.5 %\)/);
  });
});
