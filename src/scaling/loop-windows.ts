/**
 * Windows sized to the loop (pure): the scaling rule's time windows follow the delays of the loop
 * that runs it, so a loop that sees a load change and answers it in 40 s holds its spare for a
 * time of that order, not for the 300 s a minute-scale loop needs. The policy's own seconds stay
 * the ceiling: a window is never longer than the policy says, and a loop whose delays are not
 * known (a one-shot `gpuops reconcile`, `gpuops plan`) keeps the policy's windows as they are.
 *
 * The loop's delay D (seconds) is what a load step waits for before capacity answers it:
 *
 *     D = sample + reaction + startup
 *
 * - `sample`: the age of the signal when it is read (the scrape and query interval; the trigger's);
 * - `reaction`: from a sample that crossed the band to the pass that acts on it (the trigger's
 *   interval when event-driven, the pass interval otherwise);
 * - `startup`: the algorithm's observed start-up, pod created → Ready (`observed-startup.ts`).
 *
 * Derived from D, each at most the policy's own seconds (documented in docs/policy-reference.md):
 * - `scaleDown.stabilizationWindowSeconds` = k·D: a scale-down keeps the highest recommendation
 *   of the last k loop delays, so a load that returns within that time finds its replicas;
 * - `headroomFlapHoldSeconds` = k·D, the same window: no scale-up within k·D of a scale-down (the
 *   no-flap guarantee: no reversal before the last change's effect was seen k times over);
 * - `scaleDown.cooldownSeconds` = D + sample: a scale-up's pods are Ready (D) and measured once
 *   (sample) before the replicas go down again; a scale-up's count still holds the stabilisation
 *   window for k·D (a recorded change recommends its count, `recommendationOf`), so no up → down
 *   reversal comes within the flap window;
 * - `scaleUp.cooldownSeconds` = sample + reaction: one fresh reading after a change before the next
 *   scale-up (replicas still starting count in the replicas, so a scale-up is not repeated for
 *   them: `PodsStarting`, the headroom rule).
 * k = {@link LOOP_WINDOW_MULTIPLE} (2.5). The loop's windows stand in for the policy's as a set,
 * and only for a loop whose delay fits {@link LOOP_GATE_MULTIPLE} (3) times into the policy's
 * scale-down stabilisation window (3·D below it): a slower loop is the minute-scale loop the
 * policy's windows are set for, and they stand, every one. At today's replay delays (15 + 30 + 60
 * = 105 s) 3·D is 315 s, above the default 300 s, so the default windows stand; a 5 s
 * event-driven loop with 30 s start-ups gets 100 s, its scale-down cooldown 45 s. Untouched: the
 * peak window (the load's own period, not the loop's), `podStartupSeconds`, the averaging and
 * staleness windows. The guarantees hold at every D: never below `minReplicas` (the limits are not
 * windows), scale-down only on complete, fresh data (the `InsufficientSamples` and staleness rules
 * are not windows either) and no reversal within the flap window, which is the derived
 * stabilisation window.
 */
import type { Policy } from '../definitions/index.js';

/** The loop's delays (seconds). */
export interface LoopDelays {
  /** Age of the signal when read. */
  sampleSeconds: number;
  /** From a crossing sample to the pass that acts on it. */
  reactionSeconds: number;
  /** The algorithm's observed start-up (created → Ready); null: not observed yet. */
  startupSeconds: number | null;
}

/** The loop's own part of the delays (seconds), the same for every algorithm of a pass. */
export type LoopTiming = Omit<LoopDelays, 'startupSeconds'>;

/** Loop delays per window: k of {@link loopWindows} (the scale-down stabilisation window and the flap hold). */
export const LOOP_WINDOW_MULTIPLE = 2.5;

/**
 * Loop delays the policy's scale-down stabilisation window must hold, more than, for the loop's
 * windows to stand in for the policy's ({@link loopWindows}): a slower loop keeps the policy's.
 */
export const LOOP_GATE_MULTIPLE = 3;

/** The windows a policy's scaling rules run with (seconds). */
export interface RuleWindows {
  scaleDownStabilizationSeconds: number;
  scaleDownCooldownSeconds: number;
  scaleUpCooldownSeconds: number;
  flapHoldSeconds: number;
}

/**
 * The windows for `delays` under `policy` (each the derived value, at most the policy's own; a
 * policy window of 0 stays off), whole seconds rounded up. Null when the start-up is not
 * observed, a delay is not a finite number ≥ 0, or the loop is too slow for its own windows
 * (3·D at or above the policy's scale-down stabilisation window, {@link LOOP_GATE_MULTIPLE}):
 * the policy's windows stand.
 */
export function loopWindows(policy: Policy, delays: LoopDelays): RuleWindows | null {
  const { sampleSeconds: s, reactionSeconds: r, startupSeconds: u } = delays;
  if (u === null || ![s, r, u].every((x) => Number.isFinite(x) && x >= 0)) return null;
  const sc = policy.spec.scaling;
  const d = s + r + u;
  if (LOOP_GATE_MULTIPLE * d >= sc.scaleDown.stabilizationWindowSeconds && d > 0) return null;
  const loop = Math.ceil(LOOP_WINDOW_MULTIPLE * d);
  return {
    scaleDownStabilizationSeconds: Math.min(sc.scaleDown.stabilizationWindowSeconds, loop),
    scaleDownCooldownSeconds: Math.min(sc.scaleDown.cooldownSeconds, Math.ceil(d + s)),
    scaleUpCooldownSeconds: Math.min(sc.scaleUp.cooldownSeconds, Math.ceil(s + r)),
    flapHoldSeconds: Math.min(sc.headroomFlapHoldSeconds, loop),
  };
}

const derived = new WeakMap<Policy, Map<string, Policy>>();

/**
 * `policy` with its windows replaced by {@link loopWindows}' (the same object when they are
 * null or equal the policy's). The same delays give the same object each time (kept per policy),
 * so a remembered decision, whose policy is compared by identity, is still reused.
 */
export function withLoopWindows(policy: Policy, delays: LoopDelays | undefined): Policy {
  const w = delays ? loopWindows(policy, delays) : null;
  if (w === null) return policy;
  const sc = policy.spec.scaling;
  if (
    w.scaleDownStabilizationSeconds === sc.scaleDown.stabilizationWindowSeconds &&
    w.scaleDownCooldownSeconds === sc.scaleDown.cooldownSeconds &&
    w.scaleUpCooldownSeconds === sc.scaleUp.cooldownSeconds &&
    w.flapHoldSeconds === sc.headroomFlapHoldSeconds
  )
    return policy;
  const key = `${w.scaleDownStabilizationSeconds}/${w.scaleDownCooldownSeconds}/${w.scaleUpCooldownSeconds}/${w.flapHoldSeconds}`;
  let byKey = derived.get(policy);
  if (!byKey) derived.set(policy, (byKey = new Map()));
  let p = byKey.get(key);
  if (!p) {
    p = {
      ...policy,
      spec: {
        ...policy.spec,
        scaling: {
          ...sc,
          headroomFlapHoldSeconds: w.flapHoldSeconds,
          scaleUp: { ...sc.scaleUp, cooldownSeconds: w.scaleUpCooldownSeconds },
          scaleDown: {
            ...sc.scaleDown,
            stabilizationWindowSeconds: w.scaleDownStabilizationSeconds,
            cooldownSeconds: w.scaleDownCooldownSeconds,
          },
        },
      },
    };
    byKey.set(key, p);
  }
  return p;
}
