/**
 * Hysteresis of the standby set's size: it grows at once, and shrinks only to a size every pass
 * of the scale-down window asked no more than (the pass that opens the window included), the
 * window sized to the loop with the standby pods' start-up. A wobble across a ceil boundary
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
import { pod } from '../scaling/support.js';
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

  it('the window follows the loop: standby pods Ready 20 s after creation, 5 s + 5 s → 3·30 = 90 s', () => {
    const rs = {
      namespace: 'algorithms',
      name: 'gpuops-standby-llm-abc',
      owner: { kind: 'Deployment', name: 'gpuops-standby-llm', controller: true },
      revision: 1,
      replicas: 3,
    };
    const standby = pod('gpuops-standby-llm-abc-1', {
      labels: { 'gpuops.dev/standby': 'llm' },
      owner: { kind: 'ReplicaSet', name: rs.name, controller: true },
      createdAt: at(-1000),
      readyAt: at(-980),
    });
    // A pod labelled a standby by hand, Ready at once, is not the set's: it cannot shorten the window.
    const forged = pod('gpuops-standby-llm-xyz-1', {
      labels: { 'gpuops.dev/standby': 'llm' },
      owner: null,
      createdAt: at(-1000),
      readyAt: at(-1000),
    });
    const o = { loop: { sampleSeconds: 5, reactionSeconds: 5 }, pods: [standby, forged], replicaSets: [rs] };
    expect(plan(3, 2, [...passes(-300, -105, 3), ...passes(-90, -15, 2)], o).replicas).toBe(2);
    expect(plan(3, 2, [...passes(-299, -104, 3), ...passes(-89, -14, 2)], o).replicas).toBe(3);
    // Without an observed start-up the policy's 300 s stand; the forged pod alone observes none.
    const drop = [...passes(-300, -105, 3), ...passes(-90, -15, 2)];
    expect(plan(3, 2, drop, { ...o, pods: [] }).replicas).toBe(3);
    expect(plan(3, 2, drop, { ...o, pods: [forged] }).replicas).toBe(3);
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
