import { everyPass, hold, type Facts, type Verdict } from './facts.js';

/** The newest recorded scale-down at or before `nowMs`: its time (ms) and counts, or null. */
function lastScaleDown(f: Facts): { atMs: number; from: number; to: number } | null {
  let last: { atMs: number; from: number; to: number } | null = null;
  for (const r of f.records) {
    if (r.replicasFrom === null || r.replicasTo === null || r.replicasTo >= r.replicasFrom) continue;
    const atMs = Date.parse(r.at);
    if (atMs <= f.nowMs && (last === null || atMs > last.atMs))
      last = { atMs, from: r.replicasFrom, to: r.replicasTo };
  }
  return last;
}

/**
 * Utilisation (percent) at which the Ready pods are saturated: the load beyond it is not served,
 * so a hold would drop requests, not save a flap.
 */
export const SATURATED_PERCENT = 99;

/**
 * The flap hold of headroom sizing (`scaling.headroomFlapHoldSeconds`, default 300 s: the
 * scale-down stabilisation window, the window within which a reversal counts as a flap): no
 * scale-up within that time of a recorded scale-down → `hold WouldFlap`. The held load rides on
 * the spare the scale-down kept (`headroomDownMargin`). The one exception: Ready pods saturated
 * (utilisation ≥ {@link SATURATED_PERCENT}, exactly 99 % counts) scale up at once — the load is
 * no longer served, and serving it comes before the flap count. A scale-down exactly `seconds` ago is out
 * of the hold (it has elapsed, as a cooldown's has); one second less holds. Records after now never
 * count; 0 seconds: off. Call only for a scale-up; `why` opens the message.
 */
export function flapHold(f: Facts, why: string): Verdict | null {
  const seconds = f.scaling.headroomFlapHoldSeconds;
  // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent; with 0 s the elapsed test below (≥ 0) releases every record at or before now, so this return only says "off" early
  if (seconds <= 0) return null;
  if ((f.utilization ?? 0) >= SATURATED_PERCENT) return null;
  const last = lastScaleDown(f);
  if (last === null || f.nowMs - last.atMs >= seconds * 1000) return null;
  // Active: the message shows its age, so the outcome changes as the clock moves.
  everyPass(f, last.atMs + seconds * 1000);
  const ago = Math.round((f.nowMs - last.atMs) / 1000);
  return hold(
    f,
    'WouldFlap',
    `${why}, but replicas went ${last.from} → ${last.to} ${ago}s ago; no scale-up within ${seconds}s of a scale-down (headroomFlapHoldSeconds: no flap)`,
  );
}
