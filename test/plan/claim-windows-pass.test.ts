/**
 * The claim's windows through the pass's scaling step (`planScaling`, as `gpuops run` calls it,
 * with the loop's delays): while a Ready standby of its set waits for the algorithm, the flap hold
 * and scale-up cooldown follow a claim's start-up and the scale-down windows are the policy's own
 * (`claimPolicy`, docs/standby.md), as the replay's standby fleet decides; an algorithm whose set
 * has no Ready standby, or that is in no set, keeps the loop's windows of its cold start-up. Each
 * window pinned on both sides of its boundary, as `test/scaling/claim-windows.test.ts` does for
 * `decideOne`.
 *
 * The loop: a 5 s signal and 5 s reaction; the algorithm's replicas took 60 s created → Ready, so
 * D = 70 s (scale-down window 2.5·D = 175 s, cooldown D + 5 = 75 s, flap hold 175 s); the set's
 * claim takes 5 s, so the claim's D = 15 s (flap hold 2.5·15 = 38 s), its scale-down window and
 * cooldown the policy's 300 s.
 */
import { describe, expect, it } from 'vitest';
import type { Policy } from '../../src/definitions/types.js';
import { readGitModel } from '../../src/plan/git-model.js';
import { planScaling } from '../../src/plan/scaling.js';
import type { DecisionRecord } from '../../src/scaling/types.js';
import { policyWith } from '../benchmark/fixtures.js';
import { scalingRecord } from '../scaling/support.js';
import { resolvedAlgorithm } from '../support/resolved-algorithm.js';
import { STANDBY_SET as SET } from '../support/standby-policy.js';
import {
  algorithmReplica,
  algorithmRs,
  deploymentYaml,
  gpuUtilSeries,
  shortTaskNode,
  standbyPod,
  standbyRs,
} from '../support/standby-snapshot.js';

const NOW = new Date('2026-12-07T12:00:00Z');
const LOOP = { sampleSeconds: 5, reactionSeconds: 5 };
const ago = (s: number) => new Date(NOW.getTime() - s * 1000).toISOString();

/** The shipped policy (300 s windows) with the set `llm` (bert and llama, a claim in 5 s). */
const stepPolicy = await policyWith((p) => {
  p.standby = [SET];
});
const headroomPolicy = await policyWith((p) => {
  p.standby = [SET];
  p.scaling.sizing = 'headroom';
});

/** Whether the set holds a Ready standby, one still starting (not Ready), or none at all. */
type Standby = 'ready' | 'starting' | 'none';

/** Created and started an hour ago. */
const HOUR_OLD = { createdAt: ago(3600), startedAt: ago(3600) };
/** A replica of `alg`'s Deployment, created an hour ago and Ready 60 s later (its start-up). */
const replica = (alg: string, i: number) => algorithmReplica(alg, i, { ...HOUR_OLD, readyAt: ago(3540) });
/** The set's standby pod: Ready, or still starting (Pending, not Ready). */
const standbyOf = (ready: boolean) =>
  standbyPod(0, {
    ...HOUR_OLD,
    ...(ready ? {} : { phase: 'Pending' as const, ready: false, nodeName: null }),
  });

/** A recorded decision of `alg` `s` seconds before now. */
const record = (
  alg: string,
  s: number,
  ...rest: [string, string, number, number, number]
): DecisionRecord => ({
  ...scalingRecord(ago(s), ...rest),
  subject: alg,
});
const up = (alg: string, s: number) => record(alg, s, 'scale-up', 'AboveMax', 2, 3, 90);
const down = (alg: string, s: number) => record(alg, s, 'scale-down', 'BelowMin', 4, 3, 20);
const held = (alg: string, s: number) => record(alg, s, 'hold', 'WithinRange', 3, 3, 50);

/**
 * The pass's decision (`action reason`) for `alg` (3 replicas in Git, 3 Ready pods at `u` %) with
 * `recent` records, the set's standby as `standby`, under `policy` on the loop.
 */
function decided(
  policy: Policy,
  alg: string,
  standby: Standby,
  u: number,
  recent: (alg: string) => DecisionRecord[],
): string {
  const own = [0, 1, 2].map((i) => replica(alg, i));
  const pods = standby === 'none' ? own : [...own, standbyOf(standby === 'ready')];
  const node = shortTaskNode(pods.filter((p) => p.nodeName !== null).length);
  const path = `clusters/prod/algorithms/${alg}/deployment.yaml`;
  const git = readGitModel('prod', new Map([[path, deploymentYaml(alg, 3)]]), 'gpuops.dev/pool');
  const step = planScaling({
    algorithms: [resolvedAlgorithm(alg, { placement: 'short-task' })],
    placements: [],
    git,
    snapshot: {
      takenAt: NOW.toISOString(),
      nodes: [node],
      pods,
      replicaSets: [algorithmRs(alg, 3), standbyRs(1)],
    },
    reading: {
      ok: true,
      series: gpuUtilSeries(own, u, NOW.getTime()),
      errors: [],
      evaluatedAt: NOW.getTime(),
    },
    recent: recent(alg),
    policy,
    now: NOW,
    loop: LOOP,
  });
  const d = step.decisions.find((x) => x.algorithm === alg)!;
  return `${d.action} ${d.reason}`;
}

/** Whose windows an algorithm keeps: the claim's (a Ready standby of its set waits for it) or the loop's. */
type Windows = 'claim' | 'loop';
/** An algorithm beside the set's standby pod: the case, the algorithm, the standby, whose windows. */
type Situation = [string, string, Standby, Windows];
const SITUATIONS: Situation[] = [
  ['a Ready standby of its set', 'bert', 'ready', 'claim'],
  // The set's standby still starting: no claim is fast, the loop's windows of the cold start.
  ['its set’s standby not Ready', 'bert', 'starting', 'loop'],
  ['no standby pod', 'bert', 'none', 'loop'],
  // A Ready standby of a set gpt is not in: gpt cannot claim it.
  ['a Ready standby of a set it is not in', 'gpt', 'ready', 'loop'],
];

/** A row: the boundary and its side, the algorithm's recent records, the pass's decision. */
type Row = [string, (alg: string) => DecisionRecord[], string];

/**
 * The scale-down cooldown (after any change) and stabilisation window, seconds, and the decision
 * once the cooldown is over: with the loop's the 175 s window since that scale-up (which
 * recommended 3) still holds.
 */
const DOWN: Record<Windows, { cooldown: number; window: number; cooldownOver: string }> = {
  claim: { cooldown: 300, window: 300, cooldownOver: 'scale-down BelowMin' },
  loop: { cooldown: 75, window: 175, cooldownOver: 'hold StabilizationWindow' },
};
/** Each scale-down window one second short and at its end. */
function downRows(w: Windows): Row[] {
  const { cooldown, window, cooldownOver } = DOWN[w];
  return [
    [`cooldown ${cooldown} s, one second short`, (a) => [up(a, cooldown - 1)], 'hold CooldownActive'],
    [`cooldown ${cooldown} s, over`, (a) => [up(a, cooldown)], cooldownOver],
    // A pass `window - 1` s ago recommended 3, so the window keeps 3.
    [
      `window ${window} s, one second short`,
      (a) => [up(a, 1000), held(a, window - 1)],
      'hold StabilizationWindow',
    ],
    [`window ${window} s, passed`, (a) => [up(a, 1000), held(a, window)], 'scale-down BelowMin'],
  ];
}

/** The flap hold since the last scale-down, seconds: 2.5 times the claim's D (15 s) or the loop's (70 s). */
const FLAP: Record<Windows, number> = { claim: 38, loop: 175 };
/** The flap hold one second short and over; the loop's, where the claim's is over, still holds. */
function flapRows(w: Windows): Row[] {
  const hold = FLAP[w];
  const rows: Row[] = [
    [`${hold} s, one second short`, (a) => [down(a, hold - 1)], 'hold WouldFlap'],
    [`${hold} s, over`, (a) => [down(a, hold)], 'scale-up HeadroomShort'],
  ];
  if (w === 'loop')
    rows.unshift([
      `${FLAP.claim} s (the claim’s over), held`,
      (a) => [down(a, FLAP.claim)],
      'hold WouldFlap',
    ]);
  return rows;
}

describe.each(SITUATIONS)(
  'the pass’s scale-down windows with %s (%s, standby %s), the %s’s:',
  (_situation, alg, standby, windows) => {
    // Three pods at 10 %: below min 30, a scale-down is due once the windows let it.
    it.each(downRows(windows))('%s', (_name, recent, want) => {
      expect(decided(stepPolicy, alg, standby, 10, recent)).toBe(want);
    });
  },
);

describe.each(SITUATIONS)(
  'the pass’s flap hold with %s (%s, standby %s), the %s’s:',
  (_situation, alg, standby, windows) => {
    // Three pods at 95 % (headroom sizing): a scale-up is due once the flap hold since the last scale-down ends.
    it.each(flapRows(windows))('%s', (_name, recent, want) => {
      expect(decided(headroomPolicy, alg, standby, 95, recent)).toBe(want);
    });
  },
);
