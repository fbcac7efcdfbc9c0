/**
 * Hysteresis of the standby set's size: it grows at once, and shrinks only to a size every pass
 * of the scale-down window asked no more than (the pass that opens the window included), the
 * window the policy's own `scaleDown.stabilizationWindowSeconds` (`standbyHoldSeconds`, as the
 * replay's standby fleet holds its set; `gpuops run`'s loop does not shorten it). A wobble across a ceil boundary
 * shorter than the window changes nothing in Git; a drop held for exactly the window shrinks, one
 * second less does not.
 */
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { buildChangeSet } from '../../src/change-sets/change-set.js';
import { standbyFile } from '../../src/manifests/standby.js';
import { standbyChanges, type StandbyChangesInput } from '../../src/plan/standby-changes.js';
import type { DecisionRecord } from '../../src/scaling/types.js';
import { policyWith } from '../benchmark/fixtures.js';
import { STANDBY_SET } from '../support/standby-policy.js';

const SET = STANDBY_SET;
const PATH = 'clusters/prod/standby/llm/deployment.yaml';
const NOW = Date.parse('2026-06-01T12:00:00Z');
const at = (s: number) => new Date(NOW + s * 1000).toISOString();

// β 1, max 80 %: ΣL 2 GPUs → ceil(√2 / 0.8) = 2 pods; ΣL 3 GPUs → ceil(√3 / 0.8) = 3 pods.
const policy = await policyWith((p) => {
  p.standby = [SET];
  p.scaling.headroomFactor = 1;
  p.scaling.utilization = { min: 30, max: 80 };
  p.scaling.scaleDown.stabilizationWindowSeconds = 300;
});

/** A stored hold of bert at `s` seconds from now whose load asks `size` standby pods (2 or 3). */
function pass(s: number, size: 2 | 3, subject = 'bert'): DecisionRecord {
  return {
    kind: 'scaling',
    subject,
    action: 'hold',
    reason: 'WithinRange',
    message: `within the band over ${size} of ${size} Ready pod(s)`,
    replicasFrom: size,
    replicasTo: size,
    utilization: 100,
    at: at(s),
  };
}

/** Passes every 15 s from `first` to `last` seconds (both included), each asking `size`. */
const passes = (first: number, last: number, size: 2 | 3) =>
  Array.from({ length: Math.floor((last - first) / 15) + 1 }, (_, i) => pass(first + 15 * i, size));

const load = (size: 2 | 3) =>
  new Map([['bert', Array.from({ length: size }, () => ({ namespace: 'algorithms', utilization: 100 }))]]);

function plan(git: number, now: 2 | 3, recent: DecisionRecord[], o: Partial<StandbyChangesInput> = {}) {
  const files = new Map([[PATH, standbyFile('prod', SET, policy.spec, git).content!]]);
  const [cs] = standbyChanges({
    cluster: 'prod',
    policy,
    git: { files },
    samples: load(now),
    whole: true,
    policyErrors: false,
    now: new Date(NOW),
    recent,
    ...o,
  });
  const replicas = (parse(cs!.files[0]!.content!) as { spec: { replicas: number } }).spec.replicas;
  return { replicas, pr: buildChangeSet(cs!) !== null };
}

describe('the standby size shrinks only after the scale-down window', () => {
  it.each<[string, number, 2 | 3, DecisionRecord[], number]>([
    [
      'a wobble 3 → 2 → 3 → 2 within the window: no change',
      3,
      2,
      [...passes(-600, -240, 3), ...passes(-225, -150, 2), ...passes(-135, -60, 3), ...passes(-45, -15, 2)],
      3,
    ],
    [
      'a drop held for exactly the window (300 s) shrinks',
      3,
      2,
      [...passes(-600, -315, 3), ...passes(-300, -15, 2)],
      2,
    ],
    ['a drop held 299 s does not', 3, 2, [...passes(-614, -314, 3), ...passes(-299, -14, 2)], 3],
    ['a drop with a history shorter than the window does not', 3, 2, passes(-285, -15, 2), 3],
    ['a rise grows at once, whatever the window held', 2, 3, passes(-600, -15, 2), 3],
    [
      'a rise the window saw but this pass does not ask: no growth',
      2,
      2,
      [...passes(-600, -30, 2), pass(-15, 3)],
      2,
    ],
    [
      'an algorithm outside the set is not its past load',
      3,
      2,
      [...passes(-600, -315, 3), ...passes(-300, -15, 2), pass(-60, 3, 'resnet')],
      2,
    ],
  ])('%s', (_, git, now, recent, want) => {
    const { replicas, pr } = plan(git, now, recent);
    expect(replicas).toBe(want);
    expect(pr).toBe(want !== git);
  });

  it('a window the policy turns off (0 s) shrinks at once', async () => {
    const off = await policyWith((p) => {
      p.standby = [SET];
      p.scaling.headroomFactor = 1;
      p.scaling.utilization = { min: 30, max: 80 };
      p.scaling.scaleDown.stabilizationWindowSeconds = 0;
    });
    expect(plan(3, 2, [...passes(-600, -30, 3), pass(-15, 3)], { policy: off }).replicas).toBe(2);
  });

  it('a partial reading still never shrinks, even after the window', () => {
    const recent = [...passes(-600, -315, 3), ...passes(-300, -15, 2)];
    expect(plan(3, 2, recent, { whole: false }).replicas).toBe(3);
  });
});

/**
 * The set's own sizes over passes every 15 s, Git taking each planned size at once (the pull
 * request merged before the next pass), under the policy's 300 s window. Before 2026-12-07 (branch
 * claim-run) `gpuops run` sized the window to the loop (75 s with these standbys' 20 s start-up)
 * and fell back to the policy's after a reversal of the set's recorded sizes: the load that comes
 * back every 240 s changed the set 9 times in 1,800 s, 5 of them reversals (15 and 14 without the
 * fall-back); the policy's window changes it once.
 */
describe('the standby hold over a load that dips and comes back', () => {
  /** The changes of the set (`t: from → to`) over passes from 0 to `end` s, each asking `asks(t)`. */
  function run(asks: (t: number) => 2 | 3, end: number): string[] {
    const recent: DecisionRecord[] = passes(-600, -15, 2);
    let git = 2;
    const changes: string[] = [];
    for (let t = 0; t <= end; t += 15) {
      const files = new Map([[PATH, standbyFile('prod', SET, policy.spec, git).content!]]);
      const [cs] = standbyChanges({
        cluster: 'prod',
        policy,
        git: { files },
        samples: load(asks(t)),
        whole: true,
        policyErrors: false,
        now: new Date(NOW + t * 1000),
        recent,
      });
      const to = (parse(cs!.files[0]!.content!) as { spec: { replicas: number } }).spec.replicas;
      recent.push(pass(t, asks(t)));
      if (to !== git) {
        changes.push(`${t}: ${git} → ${to}`);
        // What the pass stores of the set's size (standbySizeRecord's shape).
        recent.push({
          kind: 'standby',
          subject: 'standby/llm',
          action: to > git ? 'scale-up' : 'scale-down',
          reason: to > git ? 'StandbyGrows' : 'StandbyShrinks',
          message: `standby set llm: ${git} → ${to}`,
          replicasFrom: git,
          replicasTo: to,
          utilization: null,
          at: at(t),
        });
        git = to;
      }
    }
    return changes;
  }

  /** Reversals as the replay counts flaps: a change opposite to the one before, less than 300 s after it. */
  function flaps(changes: string[]): number {
    const parsed = changes.map((c) =>
      c
        .match(/^(\d+): (\d) → (\d)$/)!
        .slice(1)
        .map(Number),
    );
    let n = 0;
    for (let i = 1; i < parsed.length; i++) {
      const [t, a, b] = parsed[i]!;
      const [t0, a0, b0] = parsed[i - 1]!;
      if (Math.sign(b! - a!) !== Math.sign(b0! - a0!) && t! - t0! < 300) n++;
    }
    return n;
  }

  it.each<[string, (t: number) => 2 | 3, number, string[], number]>([
    // Up at 0; the last pass asking 3 is at 255, so the window (opened by the pass 300 s back)
    // holds 3 until 570, when every pass since 270 asked 2.
    [
      'up, down, up within the window: one shrink, 300 s after the last rise',
      (t) => (t < 60 || (t >= 240 && t < 270) ? 3 : 2),
      900,
      ['0: 2 → 3', '570: 3 → 2'],
      0,
    ],
    // A dip every 240 s (3 asked for 30 s): every window holds an ask of 3, so the set stays at 3.
    ['a load that comes back every 240 s', (t) => (t % 240 < 30 ? 3 : 2), 1800, ['0: 2 → 3'], 0],
    // One rise that stays 400 s (the last pass asking 3 at 390): the window the pass at 405 opens
    // ends the hold at 705.
    ['one rise that stays 400 s', (t) => (t < 400 ? 3 : 2), 900, ['0: 2 → 3', '705: 3 → 2'], 0],
  ])('%s', (_, asks, end, want, wantFlaps) => {
    const changes = run(asks, end);
    expect(changes).toEqual(want);
    expect(flaps(changes)).toBe(wantFlaps);
  });
});
