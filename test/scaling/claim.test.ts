/**
 * The claim rule of warm standby pods (pure): how a decision splits into claims, give-backs and
 * the Deployment's own change; the loop a Ready standby shortens; the standby set's size; the
 * policy an algorithm is decided under while a standby waits for it.
 */
import { describe, expect, it } from 'vitest';
import type { Policy } from '../../src/definitions/types.js';
import {
  claimLoop,
  claimPolicy,
  loopPolicy,
  planClaims,
  standbyReplicas,
} from '../../src/scaling/rules/claim.js';
import type { ScalingDecision } from '../../src/scaling/types.js';
import { policyWith } from '../benchmark/fixtures.js';

const decision = (from: number, to: number): ScalingDecision => ({
  algorithm: 'bert',
  action: to > from ? 'scale-up' : to < from ? 'scale-down' : 'hold',
  replicas: { from, to },
  utilization: 50,
  nodes: [],
  reason: 'AboveMax',
  message: '',
});

describe('planClaims', () => {
  it.each([
    {
      name: 'up by 3, 2 Ready standbys: both claimed, 1 cold',
      from: 2,
      to: 5,
      claimed: 0,
      ready: 2,
      want: { claim: 2, giveBack: 0, deployment: 1 },
    },
    {
      name: 'up by 1, 5 Ready: one claim, the Deployment unchanged',
      from: 2,
      to: 3,
      claimed: 0,
      ready: 5,
      want: { claim: 1, giveBack: 0, deployment: 0 },
    },
    {
      name: 'up by 2, none Ready: all cold',
      from: 1,
      to: 3,
      claimed: 1,
      ready: 0,
      want: { claim: 0, giveBack: 0, deployment: 2 },
    },
    {
      name: 'down by 2 holding 1 claim: the claim back first, then one of the Deployment',
      from: 5,
      to: 3,
      claimed: 1,
      ready: 0,
      want: { claim: 0, giveBack: 1, deployment: -1 },
    },
    {
      name: 'down by 2 holding 4 claims: two claims back, the Deployment unchanged',
      from: 5,
      to: 3,
      claimed: 4,
      ready: 3,
      want: { claim: 0, giveBack: 2, deployment: 0 },
    },
    {
      name: 'hold: nothing moves',
      from: 3,
      to: 3,
      claimed: 2,
      ready: 2,
      want: { claim: 0, giveBack: 0, deployment: 0 },
    },
  ])('$name', ({ from, to, claimed, ready, want }) => {
    const plan = planClaims(decision(from, to), claimed, { ready, claimSeconds: 5 });
    expect(plan).toEqual(want);
    // The total stays the decision's: claims count as replicas.
    expect(from + plan.claim - plan.giveBack + plan.deployment).toBe(to);
  });

  it('no standby set: the whole change on the Deployment', () => {
    expect(planClaims(decision(1, 4), 0, null)).toEqual({ claim: 0, giveBack: 0, deployment: 3 });
    expect(planClaims(decision(4, 1), 0, null)).toEqual({ claim: 0, giveBack: 0, deployment: -3 });
  });

  it.each([
    { claimed: -1, ready: 0 },
    { claimed: 0, ready: 1.5 },
    { claimed: Number.NaN, ready: 0 },
  ])('refuses claimed $claimed, ready $ready', ({ claimed, ready }) => {
    expect(() => planClaims(decision(1, 2), claimed, { ready, claimSeconds: 5 })).toThrow(
      /bert: claims: expected whole numbers ≥ 0/,
    );
  });
});

describe('claimLoop', () => {
  const loop = { sampleSeconds: 15, reactionSeconds: 30, startupSeconds: 60 };
  it.each([
    { name: 'a Ready standby: the claim is the start-up', l: loop, ready: 1, want: 5 },
    {
      name: 'an observed start-up below the claim stays',
      l: { ...loop, startupSeconds: 3 },
      ready: 1,
      want: 3,
    },
    { name: 'no observed start-up: the claim', l: { ...loop, startupSeconds: null }, ready: 2, want: 5 },
  ])('$name', ({ l, ready, want }) => {
    expect(claimLoop(l, { ready, claimSeconds: 5 })).toEqual({ ...l, startupSeconds: want });
  });

  it('no Ready standby, no set or no known delays: the loop as it is', () => {
    expect(claimLoop(loop, { ready: 0, claimSeconds: 5 })).toBe(loop);
    expect(claimLoop(loop, null)).toBe(loop);
    expect(claimLoop(undefined, { ready: 1, claimSeconds: 5 })).toBeUndefined();
  });
});

describe('standbyReplicas: ceil(β·√P / (gpus × max/100)), at least the minimum', () => {
  it.each([
    { load: 16, beta: 1, gpus: 1, max: 80, min: 0, want: 5 }, // 4 GPUs of spare at 0.8 a pod
    { load: 16, beta: 1, gpus: 2, max: 80, min: 0, want: 3 }, // 4 / 1.6 = 2.5
    { load: 4, beta: 1, gpus: 1, max: 50, min: 0, want: 4 }, // exactly 4: not rounded up to 5
    { load: 25, beta: 0.8, gpus: 1, max: 100, min: 0, want: 4 },
    { load: 0, beta: 1, gpus: 1, max: 80, min: 2, want: 2 },
    { load: 16, beta: 0, gpus: 1, max: 80, min: 0, want: 0 },
    { load: 16, beta: 0, gpus: 1, max: 80, min: 1, want: 1 },
    { load: -9, beta: 1, gpus: 1, max: 80, min: 0, want: 0 },
    { load: Number.NaN, beta: 1, gpus: 1, max: 80, min: 3, want: 3 },
    { load: 16, beta: 1, gpus: 1, max: 0, min: 1, want: 1 },
  ])(
    'load $load, β $beta, $gpus GPU(s) at $max %, min $min → $want',
    ({ load, beta, gpus, max, min, want }) => {
      expect(standbyReplicas(load, beta, gpus, max, min)).toBe(want);
    },
  );
});

describe('claimPolicy', () => {
  let policy: Policy;
  const loop = { sampleSeconds: 15, reactionSeconds: 30, startupSeconds: 60 };
  const offer = { ready: 1, claimSeconds: 5 };

  it('a Ready standby: the flap hold and scale-up cooldown follow the claim; the scale-down windows stay', async () => {
    policy = await policyWith((p) => {
      p.scaling.headroomFlapHoldSeconds = 300;
      p.scaling.scaleUp.cooldownSeconds = 60;
      p.scaling.scaleDown.stabilizationWindowSeconds = 300;
      p.scaling.scaleDown.cooldownSeconds = 300;
    });
    const p = claimPolicy(policy, loop, offer);
    const sc = p.spec.scaling;
    expect(sc.headroomFlapHoldSeconds).toBe(125); // 2.5 × (15 + 30 + 5)
    expect(sc.scaleUp.cooldownSeconds).toBe(45); // 15 + 30
    expect(sc.scaleDown).toEqual(policy.spec.scaling.scaleDown);
    expect(policy.spec.scaling.headroomFlapHoldSeconds).toBe(300); // not changed in place
    // The same inputs: the same object (the decision memo compares by identity).
    expect(claimPolicy(policy, { ...loop }, { ...offer })).toBe(p);
  });

  it('no Ready standby, no set or unknown delays: the policy itself', async () => {
    policy = await policyWith((p) => {
      p.scaling.headroomFlapHoldSeconds = 100;
      p.scaling.scaleUp.cooldownSeconds = 30;
    });
    expect(claimPolicy(policy, loop, { ready: 0, claimSeconds: 5 })).toBe(policy);
    expect(claimPolicy(policy, loop, null)).toBe(policy);
    expect(claimPolicy(policy, undefined, offer)).toBe(policy);
  });

  it('windows already shorter than the claim’s: a claim policy all the same, the same windows', async () => {
    // Its windows are final (`loopPolicy`): the decision must not shorten its scale-down windows
    // to the loop's, so even a policy the claim shortens nothing of gets one of its own.
    policy = await policyWith((p) => {
      p.scaling.headroomFlapHoldSeconds = 100;
      p.scaling.scaleUp.cooldownSeconds = 30;
    });
    const p = claimPolicy(policy, loop, offer);
    expect(p).not.toBe(policy);
    expect(p.spec.scaling).toEqual(policy.spec.scaling);
    expect(loopPolicy(p, loop)).toBe(p);
    expect(claimPolicy(policy, { ...loop }, { ...offer })).toBe(p);
  });

  it('no Ready standby under long windows: the policy itself, not the windows of the observed loop', async () => {
    policy = await policyWith((p) => {
      p.scaling.headroomFlapHoldSeconds = 600;
      p.scaling.scaleUp.cooldownSeconds = 120;
    });
    // The observed loop alone keeps the policy's windows (3·D = 315 s, above the 300 s scale-down
    // window) and would otherwise shorten them:
    // that is withLoopWindows's to do, not the claim's.
    expect(claimPolicy(policy, loop, { ready: 0, claimSeconds: 5 })).toBe(policy);
    expect(claimPolicy(policy, loop, null)).toBe(policy);
  });

  it.each([
    { name: 'only the flap hold shorter', flap: 300, cooldown: 30, want: { flap: 125, cooldown: 30 } },
    {
      name: 'only the scale-up cooldown shorter',
      flap: 100,
      cooldown: 60,
      want: { flap: 100, cooldown: 45 },
    },
  ])('$name: a policy of its own', async ({ flap, cooldown, want }) => {
    policy = await policyWith((p) => {
      p.scaling.headroomFlapHoldSeconds = flap;
      p.scaling.scaleUp.cooldownSeconds = cooldown;
    });
    const sc = claimPolicy(policy, loop, offer).spec.scaling;
    expect([sc.headroomFlapHoldSeconds, sc.scaleUp.cooldownSeconds]).toEqual([want.flap, want.cooldown]);
  });

  it('two claim delays on one policy: two policies, each remembered', async () => {
    policy = await policyWith((p) => {
      p.scaling.headroomFlapHoldSeconds = 600;
      p.scaling.scaleUp.cooldownSeconds = 120;
    });
    const fast = claimPolicy(policy, loop, { ready: 1, claimSeconds: 5 });
    const slow = claimPolicy(policy, loop, { ready: 1, claimSeconds: 20 });
    expect(fast.spec.scaling.headroomFlapHoldSeconds).toBe(125); // 2.5 × (15 + 30 + 5)
    expect(slow.spec.scaling.headroomFlapHoldSeconds).toBe(163); // 2.5 × (15 + 30 + 20) = 162.5
    expect(claimPolicy(policy, loop, { ready: 2, claimSeconds: 5 })).toBe(fast);
    expect(claimPolicy(policy, loop, { ready: 1, claimSeconds: 20 })).toBe(slow);
  });
});
