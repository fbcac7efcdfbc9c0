/**
 * The model's pass input (`gpuopsInput`): a replica the model created is judged by its own
 * creation and start, so one still starting holds a repeated scale-up (`PodsStarting`) until
 * `scaling.podStartupSeconds` (300 s shipped) after its start, hours into the trace as at its start.
 */
import { describe, expect, it } from 'vitest';
import { loadDefaultPolicy } from '../../src/definitions/load.js';
import { gpuopsInput, type ModelPod } from '../../src/replay/model-input.js';
import { decideOne } from '../../src/scaling/decide-one.js';

const START = Date.parse('2026-01-01T00:00:00Z');
const BAND = { min: 30, max: 80, maxReplicas: 40 };

/** The reason gpuops gives at `t` for one Ready pod at 90 % beside `starting` (not Ready yet). */
async function reasonAt(t: number, starting: ModelPod): Promise<{ reason: string; to: number }> {
  const ready: ModelPod = { name: 'm-0', readyAt: -Infinity };
  const pods = [ready, starting];
  const d = decideOne(
    gpuopsInput(pods, [ready], 90, 2, [], BAND, t),
    await loadDefaultPolicy(),
    new Date(START + t * 1000),
  );
  return { reason: d.reason, to: d.replicas.to };
}

describe('gpuopsInput: replicas still starting', () => {
  it.each([
    // Created (and bound) at 3,600 s, not Ready for a long while: starting for 300 s from its start.
    ['just created, an hour in', 3_630, { createdAt: 3_600 }, 'PodsStarting'],
    ['1 s inside the start-up bound', 3_899, { createdAt: 3_600 }, 'PodsStarting'],
    ['at the bound: stuck, no longer capacity on its way', 3_900, { createdAt: 3_600 }, 'AboveMax'],
    // Bound later than created (a node fleet's Pending pod): the age runs from the binding.
    ['bound at 3,700 s, 250 s later', 3_950, { createdAt: 3_600, startedAt: 3_700 }, 'PodsStarting'],
    ['bound at 3,700 s, 300 s later', 4_000, { createdAt: 3_600, startedAt: 3_700 }, 'AboveMax'],
    // Pending (no node): no start time, its age runs from its creation.
    ['Pending, 200 s after its creation', 3_800, { createdAt: 3_600, node: null }, 'PodsStarting'],
  ] as const)('%s', async (_, t, pod, reason) => {
    const got = await reasonAt(t, { name: 'm-1', readyAt: Infinity, ...pod });
    expect(got.reason).toBe(reason);
    // Held: the replicas stay at 2; a scale-up for 1 Ready pod at 90 % asks for more.
    if (reason === 'PodsStarting') expect(got.to).toBe(2);
    else expect(got.to).toBeGreaterThan(2);
  });

  it('stamps the pod with its own creation and start (ISO), none while Pending', () => {
    const input = gpuopsInput(
      [
        { name: 'a', readyAt: -Infinity },
        { name: 'b', readyAt: Infinity, createdAt: 60, startedAt: 90, node: 'n1' },
        { name: 'c', readyAt: Infinity, createdAt: 75, node: null },
      ],
      [],
      null,
      3,
      [],
      BAND,
      120,
    );
    expect(input.pods.map((p) => [p.name, p.createdAt, p.startedAt])).toEqual([
      ['a', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'],
      ['b', '2026-01-01T00:01:00.000Z', '2026-01-01T00:01:30.000Z'],
      ['c', '2026-01-01T00:01:15.000Z', null],
    ]);
  });
});

describe('gpuopsInput: pod infos across passes', () => {
  const pod = (): ModelPod => ({ name: 'p', readyAt: 60, createdAt: 0 });

  it('hands the same frozen info while nothing it is built from changed, a new one when it did', () => {
    const p = pod();
    const at = (t: number) => gpuopsInput([p], [], null, 1, [], BAND, t).pods[0]!;
    const starting = at(30);
    expect(at(45)).toBe(starting);
    expect(Object.isFrozen(starting)).toBe(true);
    expect(Object.isFrozen(starting.labels)).toBe(true);
    // Ready at 60 s: a new info, Ready, then kept again.
    const ready = at(60);
    expect(ready).not.toBe(starting);
    expect([starting.ready, ready.ready]).toEqual([false, true]);
    expect(at(90)).toBe(ready);
    // Bound elsewhere (a node fleet moves a pod's node and start): built again from the pod.
    p.node = 'n2';
    p.startedAt = 75;
    expect(at(90)).toMatchObject({ nodeName: 'n2', startedAt: '2026-01-01T00:01:15.000Z' });
    // Another algorithm's name: its own info.
    expect(gpuopsInput([p], [], null, 1, [], BAND, 90, 's1').pods[0]!.algorithm).toBe('s1');
  });

  it('gives the same infos as pods never seen before', () => {
    const p = pod();
    for (const t of [30, 60, 90]) {
      const seen = gpuopsInput([p], [], null, 1, [], BAND, t).pods[0]!;
      expect(seen).toEqual(gpuopsInput([pod()], [], null, 1, [], BAND, t).pods[0]!);
    }
  });
});
