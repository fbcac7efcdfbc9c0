/**
 * The mechanisms of the replay's shared warm standby (`standby-fleet.ts`), one by one, on two
 * tiny services whose every pass is worked out by hand. The fast loop: 5 s ticks, the signal 5 s
 * old, a pass on the crossing (and every 30 s), cold start-ups 60 s, claims 5 s; nodes of 4 GPUs,
 * bin packing; each service's own β 0 (the standby set holds the pool's whole spare), the standby
 * set's β 1, band 30–80 %.
 *
 * - a: 1 pod at 70 % (0.7 GPU); from 600 s 4 pods at 70 % (2.8 GPU); from 1500 s 0.7 GPU again.
 * - b: 0.7 GPU; from 605 s 2 pods at 100 % (2 GPU); from 1500 s 0.7 GPU again.
 * Both start on 2 replicas (⌈70/80⌉ + 1) at 35 %, inside the band; the pool load P = 1.4 GPU asks
 * for ⌈1·√1.4 / 0.8⌉ = 2 standbys, both bound and Ready at 0. The trace ends at 3300 s.
 */
import { describe, expect, it } from 'vitest';
import { loadDefaultPolicy } from '../../src/definitions/load.js';
import { patchPolicy } from '../../src/replay/replay-policy.js';
import { DEFAULT_REPLAY_SETTINGS } from '../../src/replay/replay-settings.js';
import { runStandbyOnNodes } from '../../src/replay/standby-fleet.js';
import type { Trace } from '../../src/replay/trace.js';
import { modelSettings } from './model-settings.js';

const a: Trace = {
  source: 'a',
  pods: 4,
  instants: [
    { t: 0, values: [70] },
    { t: 600, values: [70, 70, 70, 70] },
    { t: 1500, values: [70] },
    { t: 2400, values: [70] },
  ],
};
const b: Trace = {
  source: 'b',
  pods: 2,
  instants: [
    { t: 0, values: [70] },
    { t: 605, values: [100, 100] },
    { t: 1500, values: [70] },
    { t: 2400, values: [70] },
  ],
};
const S = {
  ...modelSettings({ sampleDelaySeconds: 5 }),
  tickSeconds: 5,
  eventDriven: true,
  gpusPerNode: 4,
  scoring: 'MostAllocated' as const,
};
const policy = patchPolicy(await loadDefaultPolicy(), DEFAULT_REPLAY_SETTINGS, 0);
const run = runStandbyOnNodes([a, b], policy, S, 4, { claimSeconds: 5, standbyFactor: 1 }, 'tiny');
const [pointsA, pointsB] = run.points;
const p = (t: number, allocated: number, ready: number, replicas: number) => ({
  t,
  allocated,
  ready,
  replicas,
});

describe('the shared warm standby, pass by pass', () => {
  it('a claim is the service replica at once and Ready 5 s later; with no Ready standby left the next is cold', () => {
    expect(pointsA).toEqual([
      p(0, 2, 2, 2),
      // 605: a reads 2 Ready pods at 100 % (capped: 2 GPU): ⌈2/0.8⌉ = 3; one standby is claimed,
      // counted in a's replicas and GPUs at once, Ready in the Service at 610.
      p(605, 3, 2, 3),
      p(610, 3, 3, 3),
      // 610: a is held by the scale-up cooldown (sample + reaction = 10 s after 605); its trigger
      // fires again when the hold ends, 615: 2.8 GPU on 3 pods asks for ⌈3.5⌉ = 4, b took the last
      // Ready standby at 610, so the 4th is a cold pod, bound at once, Ready 60 s later.
      p(615, 4, 3, 4),
      p(675, 4, 4, 4),
      // 1800: the load fell at 1500 (read at 1505). Three standbys are Ready (since 670), so the
      // scale-down window is the policy's own 300 s (`claimPolicy`), not the loop's
      // 2.5·(5 + 5 + 60) = 175 s: the last pass that wanted 4 (1500) leaves it at 1800. 0.7 GPU on
      // 4 pods is below min: the target at the margin, ⌈(0.7 + 0.25·√0.7)/0.8⌉ = 2, within the
      // band's edge ⌊0.7/0.3⌋ = 2 (2 pods at 35 %; the up target ⌈0.7/0.8⌉ = 1 is under it).
      p(1800, 2, 2, 2),
    ]);
    // b crosses at 610 (its step read at 610) and claims the pool's other Ready standby.
    expect(pointsB).toEqual([p(0, 2, 2, 2), p(610, 3, 2, 3), p(615, 3, 3, 3), p(1800, 2, 2, 2)]);
  });

  it('the standby set is sized once for the pool and backfills on the cold path', () => {
    expect(run.standbyPoints).toEqual([
      // ⌈√1.4 / 0.8⌉ = 2 for the pool (2 per service, 4, if it were sized per service).
      p(0, 2, 2, 2),
      // 605: a claims one; P = 2.8 + 0.7 = 3.5 asks for ⌈2.34⌉ = 3: two backfills, bound at once.
      p(605, 3, 1, 3),
      // 610: b claims the last; P = 2.8 + 2 = 4.8 asks for ⌈2.74⌉ = 3: one backfill (a node moves in).
      p(610, 3, 0, 3),
      // The backfills take the cold start: Ready 60 s after they were bound.
      p(665, 3, 2, 3),
      p(670, 3, 3, 3),
      // 1800: a gives back its claimed pod and b its own; the set, 5 long against its target of
      // 3 (the highest of its 300 s window, the pass at 1500 still in it), deletes the two still
      // waking: no change of its points. 1830: the window no
      // longer holds a pass at P = 4.8 (the last at 1500), ⌈√1.4 / 0.8⌉ = 2.
      p(1830, 2, 2, 2),
    ]);
    expect(run.figures.standby.claims).toBe(2);
    expect(run.figures.standby.backfills).toBe(3);
  });

  it('standby GPUs count as allocated in the pod-level utilisation', () => {
    const f = run.figures;
    // 2 pods 0–605 s, 3 pods 605–1830 s, 2 pods 1830–3300 s.
    const standbyHours = (2 * 605 + 3 * 1225 + 2 * 1470) / 3600;
    expect(f.standby.gpuHours).toBeCloseTo(standbyHours, 2);
    const services = f.services.reduce((x, s) => x + s.allocatedGpuHours, 0);
    const served = f.services.reduce((x, s) => x + s.servedGpuHours, 0);
    expect(f.allocatedGpuHours).toBeCloseTo(services + standbyHours, 1);
    expect(f.utilizationPercent).toBeCloseTo((100 * served) / (services + standbyHours), 0);
  });
});
