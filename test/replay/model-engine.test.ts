/**
 * The fast model of an engine, on traces the test writes: a steady load settles where each rule
 * says it should, a new pod serves only after the start-up time, and what the engine reads lags
 * by the sample delay.
 */
import { describe, expect, it } from 'vitest';
import { loadDefaultPolicy } from '../../src/definitions/load.js';
import { runModel } from '../../src/replay/model-engine.js';
import { patchPolicy } from '../../src/replay/replay-policy.js';
import { headroomReplicas } from '../../src/scaling/headroom-replicas.js';
import type { Trace } from '../../src/replay/trace.js';
import { modelSettings } from './model-settings.js';

const S = modelSettings();
/** `minutes` of 60-s instants whose load is `gpus(i)` GPUs (spread over 10 pods). */
const trace = (minutes: number, gpus: (i: number) => number): Trace => ({
  source: 'synthetic',
  instants: Array.from({ length: minutes }, (_, i) => ({
    t: 5_000 + i * 60,
    values: Array(10).fill((gpus(i) * 100) / 10),
  })),
  pods: 10,
});
const lastOf = <T>(xs: T[]) => xs[xs.length - 1]!;

describe('runModel', () => {
  it('starts with the first load at max plus one, all Ready', () => {
    const pts = runModel(
      trace(5, () => 4),
      { kind: 'hpa', target: 80 },
      S,
    );
    expect(pts[0]).toEqual({ t: 0, allocated: 6, ready: 6, replicas: 6 });
  });

  it('the HPA settles at ceil(load / target) on a steady load', () => {
    // 5 GPUs: starts at 8 replicas (62.5 %), ceil(8 × 62.5 / 50) = 10, then 50 % holds.
    const pts = runModel(
      trace(30, () => 5),
      { kind: 'hpa', target: 50 },
      S,
    );
    expect(lastOf(pts).replicas).toBe(10);
  });

  it('gpuops with headroom settles at ceil((L + β√L) / max)', async () => {
    const base = await loadDefaultPolicy();
    const policy = patchPolicy(base, { mergeDelaySeconds: 600, hpaTarget: 55, headroomFactor: 1 }, 1);
    const pts = runModel(
      trace(40, () => 9),
      { kind: 'gpuops', policy },
      S,
    );
    expect(lastOf(pts).replicas).toBe(headroomReplicas(9, 1, 1, 80, 1, 40));
    expect(lastOf(pts).replicas).toBe(15); // (9 + √9) / 0.8 = 15
  });

  it('a step up is read after the sample delay and served after the start-up time', () => {
    // 2 GPUs for 10 minutes, then 8: the HPA at 80 % sees it at 600 + 15 s, on the tick at 615 s.
    const pts = runModel(
      trace(20, (i) => (i < 10 ? 2 : 8)),
      { kind: 'hpa', target: 80 },
      S,
    );
    const up = pts.find((p) => p.t >= 600 && p.replicas > p.ready)!;
    expect(up.t).toBe(615);
    // Ready at the first 15-s tick at least 60 s later: 675 s.
    const ready = pts.find((p) => p.t > up.t && p.ready >= up.replicas)!;
    expect(ready.t).toBe(675);
  });

  it('rejects an empty trace', () => {
    expect(() => runModel({ source: 'x', instants: [], pods: 0 }, { kind: 'hpa', target: 50 }, S)).toThrow(
      /no instants/,
    );
  });
});
