/**
 * Whether an algorithm has left its band (pure): the cheap test the crossing trigger of
 * `gpuops run` (`controller/crossing-trigger.ts`) and the replay's event-driven model make on every
 * signal sample, so that a pass starts as soon as a decision could change rather than at the next
 * periodic pass. It is the first test of the rules themselves, never a decision: a pass it starts
 * may still hold (a cooldown, the flap hold, a stabilisation window).
 *
 * - `step` and `load` sizing: the band is `utilization.min..max` (both ends in band, as
 *   `rules/within-band.ts` has it): above `max` → `up`, below `min` → `down`.
 * - `headroom` sizing (`rules/headroom.ts`): the load L (GPUs) asks for more replicas than run at
 *   β (`headroomReplicas(L, β) > replicas`) → `up`; for fewer at the scale-down's target
 *   (β + `headroomDownMargin` at or above `min`, below it at most the band's edge:
 *   `downReplicas`) → `down`.
 * A replica count at `maxReplicas` never crosses up, at `minReplicas` never down (the limits clamp
 * the count). A pool's shared headroom (`poolLoadGpus`) is left out: alone, an algorithm carries
 * its own β·√L, never less than its share of the pool's, so the test errs towards a pass.
 */
import { downReplicas } from './history.js';
import { headroomReplicas } from './headroom-replicas.js';
import { SATURATED_PERCENT } from './rules/flap-hold.js';

/** What the test reads of one algorithm: its band, sizing, limits and replicas in Git. */
export interface BandView {
  sizing: 'step' | 'load' | 'headroom';
  /** The band (percent). */
  min: number;
  max: number;
  /** Replicas in Git: starting ones count, as they do for the rules. */
  replicas: number;
  minReplicas: number;
  maxReplicas: number;
  /** GPUs per pod (≥ 1). */
  gpus: number;
  /** `scaling.headroomFactor` and `scaling.headroomDownMargin` (headroom sizing). */
  headroomFactor: number;
  headroomDownMargin: number;
}

/**
 * The direction the algorithm left its band in, or null while inside it.
 * @param utilization mean utilisation of its Ready pods (percent)
 * @param readyPods how many Ready pods that mean covers (its load is `utilization × readyPods × gpus / 100` GPUs)
 */
export function bandCrossing(v: BandView, utilization: number, readyPods: number): 'up' | 'down' | null {
  if (!Number.isFinite(utilization)) return null;
  if (v.sizing !== 'headroom') {
    if (utilization > v.max && v.replicas < v.maxReplicas) return 'up';
    if (utilization < v.min && v.replicas > v.minReplicas) return 'down';
    return null;
  }
  const load = (utilization * readyPods * Math.max(1, v.gpus)) / 100;
  const at = (beta: number) => headroomReplicas(load, beta, v.gpus, v.max, v.minReplicas, v.maxReplicas);
  if (at(v.headroomFactor) > v.replicas) return 'up';
  const { min, max, minReplicas, maxReplicas, gpus, headroomFactor, headroomDownMargin } = v;
  const bounds = { min, max, minReplicas, maxReplicas, step: 1, gpus, headroomFactor, headroomDownMargin };
  if (downReplicas(load, utilization, bounds) < v.replicas) return 'down';
  return null;
}

/**
 * The side of its band the crossing trigger watches an algorithm on: `down`, `up`, or `saturated`
 * (up, and the mean utilisation of its Ready pods at or above `SATURATED_PERCENT`, 99 %: exactly
 * 99 is saturated); null inside the band (see {@link bandCrossing}). Saturation is a side of its
 * own because it changes what a pass may do without the clock moving: the flap hold
 * (`rules/flap-hold.ts`) keeps a scale-up waiting after a scale-down until the pods saturate, and
 * lets it through then; a trigger that only watched "outside" would wait for the next periodic
 * pass (up to `--interval`) while the load beyond the pods goes unserved.
 */
export type CrossingSide = 'up' | 'down' | 'saturated';

/** {@link CrossingSide} of one reading (arguments as {@link bandCrossing}'s). */
export function crossingSide(v: BandView, utilization: number, readyPods: number): CrossingSide | null {
  const side = bandCrossing(v, utilization, readyPods);
  return side === 'up' && utilization >= SATURATED_PERCENT ? 'saturated' : side;
}
