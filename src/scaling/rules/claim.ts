/**
 * Claims of warm standby pods (pure): a pool may keep its shared spare as standby pods of an
 * image that can serve any of a declared set of algorithms (the policy's `standby`). A scale-up of
 * an algorithm of that set takes Ready standbys first — relabelled out of the standby ReplicaSet
 * into the algorithm's Service and woken through the declared endpoint, Ready in seconds — and
 * only the rest as new replicas of its Deployment (the cold path: image pull, model load). A
 * scale-down gives claimed pods back first. The standby set's size is the pool's shared spare,
 * the headroom rule's β·√ΣL (`headroom-replicas.ts`), held as whole standby pods.
 *
 * Why claims first: a standby is already bound, pulled and initialised, so what it adds to the
 * loop's delay is the wake or switch alone; the loop's windows then follow that shorter start-up
 * (`claimLoop`, `loop-windows.ts`).
 */
import type { Policy } from '../../definitions/index.js';
import { loopWindows, withLoopWindows, type LoopDelays } from '../loop-windows.js';
import type { ScalingDecision } from '../types.js';

/** What a pool's standby set offers one algorithm at a pass. */
export interface StandbyOffer {
  /** Ready standby pods of a set the algorithm may become (not claimed yet in this pass). */
  ready: number;
  /** The declared wake or switch time of a claim (seconds): claimed → Ready in the Service. */
  claimSeconds: number;
}

/** How a decision's replicas change: pods claimed from the standby set and replicas the Deployment adds or gives up. */
export interface ClaimPlan {
  /** Standby pods to claim (scale-up) — at most the offer's Ready ones. */
  claim: number;
  /** Claimed pods to give back to the standby set (scale-down), at most those the algorithm holds. */
  giveBack: number;
  /** The change of the Deployment's own replicas (the rest of the decision: cold pods up, or pods down). */
  deployment: number;
}

/**
 * The claims of `decision` for an algorithm holding `claimed` pods of the standby set, with
 * `offer` (null: no standby set serves it): up, `min(to − from, offer.ready)` claims and the rest
 * on the Deployment; down, claimed pods go back first, then the Deployment's. The total stays
 * the decision's `to`, so `minReplicas`/`maxReplicas`, which the decision already kept, still
 * hold (claimed pods count as replicas). @throws Error when `claimed` or a count is negative
 */
export function planClaims(
  decision: ScalingDecision,
  claimed: number,
  offer: StandbyOffer | null,
): ClaimPlan {
  const ready = offer?.ready ?? 0;
  if (![claimed, ready].every((x) => Number.isInteger(x) && x >= 0))
    throw new Error(`${decision.algorithm}: claims: expected whole numbers ≥ 0, got ${claimed} and ${ready}`);
  const delta = decision.replicas.to - decision.replicas.from;
  // Stryker disable next-line EqualityOperator: equivalent; a hold (delta 0) plans nothing on either branch
  if (delta > 0) {
    const claim = Math.min(delta, ready);
    return { claim, giveBack: 0, deployment: delta - claim };
  }
  // Math.max: a hold gives 0, not −0.
  const giveBack = Math.min(Math.max(0, -delta), claimed);
  return { claim: 0, giveBack, deployment: delta + giveBack };
}

/**
 * The Deployment's replicas in Git before and after `decision`: its `replicas` less the claimed
 * pods its `from` counted, plus the part the Deployment takes (`decision.standby`, `planStandby`);
 * without a standby part, `replicas` as they are (docs/standby.md, "Claims and Git").
 */
export function gitReplicas(decision: ScalingDecision): { from: number; to: number } {
  const sb = decision.standby;
  if (!sb) return decision.replicas;
  const from = decision.replicas.from - sb.claimed;
  return { from, to: from + sb.deployment };
}

/**
 * The loop's delays while a Ready standby waits for the algorithm: its next replica is a claim, so
 * the start-up the windows are sized on is the claim's (never longer than the observed one).
 * Without a Ready standby, or without known delays, `loop` as it is.
 */
export function claimLoop(loop: LoopDelays | undefined, offer: StandbyOffer | null): LoopDelays | undefined {
  if (loop === undefined || offer === null || offer.ready === 0) return loop;
  const startup =
    loop.startupSeconds === null ? offer.claimSeconds : Math.min(loop.startupSeconds, offer.claimSeconds);
  return { ...loop, startupSeconds: startup };
}

/**
 * The standby pods a pool keeps: its shared spare `β·√P` (P the summed load of the algorithms the
 * set serves, GPUs) in replicas of `gpusPerPod` GPUs at `maxPercent`, `ceil(β·√P / (gpus × max/100))`,
 * at least `minStandby`. A load ≤ 0 asks for `minStandby`; never throws.
 */
export function standbyReplicas(
  poolLoadGpus: number,
  beta: number,
  gpusPerPod: number,
  maxPercent: number,
  minStandby = 0,
): number {
  const perReplica = (Math.max(1, gpusPerPod) * maxPercent) / 100;
  const spare = Math.max(0, beta) * Math.sqrt(Math.max(0, poolLoadGpus));
  if (!(perReplica > 0) || !Number.isFinite(spare)) return minStandby;
  return Math.max(minStandby, Math.ceil(spare / perReplica - 1e-9));
}

/**
 * The scale-down window (seconds) of a standby set's size: the policy's own
 * `scaleDown.stabilizationWindowSeconds`, whatever the loop (`gpuops run`'s, the replay's standby
 * fleet's; `gpuops plan` and `reconcile --once` have none), never one sized to the loop. The rule of {@link claimPolicy}'s
 * scale-down windows: the set is the pool's spare for the load's own swings, which neither a claim
 * nor a fast loop shortens, and a shrink the load reverses turns the next claim into a cold start.
 * Measured on the replay's standby fleet with this window (docs/standby.md); on the replay's default
 * loop (D = 105 s) the loop-sized window it replaced was this 300 s too. Never throws.
 */
export function standbyHoldSeconds(policy: Policy): number {
  return policy.spec.scaling.scaleDown.stabilizationWindowSeconds;
}

/**
 * The policy an algorithm is decided under while a Ready standby waits for it: the flap hold and
 * the scale-up cooldown follow the loop with a claim's start-up (`loopWindows`), because a
 * scale-up after a scale-down now costs a wake or switch, not a cold start; the scale-down
 * stabilisation window and cooldown stay the policy's own, because they guard against the load's
 * own swings, which a fast claim does not shorten. These windows are final: the decision takes
 * them as they are ({@link loopPolicy}), so the loop's shorter scale-down windows (2.5·D, D +
 * sample, `withLoopWindows`) never replace the policy's under a claim (measured on the replay's
 * standby fleet: docs/standby.md). Within the policy's flap window of a reversal its own windows
 * stand all the same (`ownPolicyOf`). Without a Ready
 * standby, known delays, or a claim loop that fits the policy's windows (`loopWindows` null): the
 * policy as it is. The same inputs give the same object (a remembered decision is compared by identity).
 */
export function claimPolicy(
  policy: Policy,
  loop: LoopDelays | undefined,
  offer: StandbyOffer | null,
): Policy {
  const fast = claimLoop(loop, offer);
  const w = fast === loop || fast === undefined ? null : loopWindows(policy, fast);
  if (w === null) return policy;
  const sc = policy.spec.scaling;
  const key = `${w.flapHoldSeconds}/${w.scaleUpCooldownSeconds}`;
  let byKey = claimPolicies.get(policy);
  if (!byKey) claimPolicies.set(policy, (byKey = new Map()));
  let p = byKey.get(key);
  if (!p) {
    const scaling = {
      ...sc,
      headroomFlapHoldSeconds: w.flapHoldSeconds,
      scaleUp: { ...sc.scaleUp, cooldownSeconds: w.scaleUpCooldownSeconds },
    };
    p = { ...policy, spec: { ...policy.spec, scaling } };
    byKey.set(key, p);
    claimBases.set(p, policy);
  }
  return p;
}

const claimPolicies = new WeakMap<Policy, Map<string, Policy>>();
/** Each policy {@link claimPolicy} made → the policy it was made from. */
const claimBases = new WeakMap<Policy, Policy>();

/**
 * The policy's own windows behind `policy`: the policy a {@link claimPolicy} was made from, else
 * `policy` itself. The claim's shorter flap hold and scale-up cooldown are windows sized to a
 * loop (a claim's start-up), so they yield to the policy's own within its flap window of a
 * reversal, as every loop-sized window does (`reversalHoldEndMs`, `decideOneTimed`): a claim
 * makes the next replica fast, not the load's turns slower.
 */
export function ownPolicyOf(policy: Policy): Policy {
  return claimBases.get(policy) ?? policy;
}

/**
 * The policy whose windows a decision under `policy` runs with on `loop`: a {@link claimPolicy}'s
 * as it is (its windows are final: the claim's flap hold and scale-up cooldown, at most the
 * loop's since a claim's start-up is at most the observed one, and the policy's own scale-down
 * windows), else `withLoopWindows(policy, loop)` (docs/policy-reference.md, "Windows sized to the
 * loop"). Never throws.
 */
export function loopPolicy(policy: Policy, loop: LoopDelays | undefined): Policy {
  return claimBases.has(policy) ? policy : withLoopWindows(policy, loop);
}
