/**
 * The crossing trigger of the replay's model (pure): what `gpuops run`'s trigger
 * (`controller/crossing-trigger.ts`) does, on the model's ticks. At every tick it asks
 * `crossingSide` on which side of its band the algorithm is on what gpuops reads; it fires on the
 * crossing (inside at the previous tick, outside now), on a change of side (below → above, above
 * → saturated, …: saturated Ready pods pass the flap hold) and again while outside once the hold
 * that the last pass decided can change (the decision's clock, `DecisionClock.actionUntilMs`), so a
 * pass held by a cooldown or the flap hold is made again when that hold ends, not at the next
 * periodic pass.
 */
import type { Policy } from '../definitions/index.js';
import { crossingSide, type BandView, type CrossingSide } from '../scaling/index.js';

const START = Date.parse('2026-01-01T00:00:00Z');

/** The trigger of one modelled algorithm (1 GPU per pod, `minReplicas` 1, limits of `s`). */
export interface ModelTrigger {
  /** Whether a pass starts at `t` (seconds): call once per tick, before deciding. */
  crossed(t: number, replicas: number, ready: number, utilization: number): boolean;
  /** The pass made at this tick holds its action until `untilMs` (ms since the epoch; Infinity: until its inputs change). */
  decided(untilMs: number): void;
}

/** A trigger under `policy`'s sizing and the band `s.min..s.max`. */
export function modelTrigger(
  policy: Policy,
  s: { min: number; max: number; maxReplicas: number },
): ModelTrigger {
  const sc = policy.spec.scaling;
  const view = (replicas: number): BandView => ({
    sizing: sc.sizing,
    min: s.min,
    max: s.max,
    replicas,
    minReplicas: 1,
    maxReplicas: s.maxReplicas,
    gpus: 1,
    headroomFactor: sc.headroomFactor,
    headroomDownMargin: sc.headroomDownMargin,
  });
  let outside: CrossingSide | null = null;
  let heldUntilMs = Infinity;
  return {
    crossed(t, replicas, ready, utilization) {
      const side = ready > 0 ? crossingSide(view(replicas), utilization, ready) : null;
      const fire = side !== null && (side !== outside || START + t * 1000 >= heldUntilMs);
      outside = side;
      return fire;
    },
    decided(untilMs) {
      heldUntilMs = untilMs;
    },
  };
}
