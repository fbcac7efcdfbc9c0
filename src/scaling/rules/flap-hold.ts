import { changesAt, everyPass, hold, type Facts, type Target, type Verdict } from './facts.js';
import { isoMs } from '../iso-ms.js';

/** The newest recorded scale-down at or before `nowMs`: its time (ms) and counts, or null. */
function lastScaleDown(f: Facts): { atMs: number; from: number; to: number } | null {
  let last: { atMs: number; from: number; to: number } | null = null;
  for (const r of f.records) {
    if (r.replicasFrom === null || r.replicasTo === null || r.replicasTo >= r.replicasFrom) continue;
    const atMs = isoMs(r.at);
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

/**
 * The flap hold's guard on a repeated scale-down (headroom sizing): within
 * `scaling.headroomFlapHoldSeconds` of a recorded scale-down, a further scale-down removes one
 * replica at most (`to` raised to `from − 1`, with a note saying why). Why: a scale-down renews
 * the flap hold, so two in a row inside one hold leave the load on far fewer replicas while no
 * scale-up may follow but a saturated one; on the bundled trace's fast loop every flap the
 * scale-down window's load reading added (`recommendationOf`) was such a pair, 11 → 8 → 3 within
 * 60 s, reversed by the next spike. The hold's edges as {@link flapHold}'s: a scale-down exactly
 * `seconds` ago is out of it, one second less is in; records after now never count; 0 s: off.
 * `to` as it is when the guard does not bind.
 */
export function repeatedScaleDown(f: Facts, to: number): Target {
  const seconds = f.scaling.headroomFlapHoldSeconds;
  if (seconds <= 0 || to >= f.from - 1) return { to };
  const last = lastScaleDown(f);
  if (last === null || f.nowMs - last.atMs >= seconds * 1000) return { to };
  changesAt(f, last.atMs + seconds * 1000);
  return {
    to: f.from - 1,
    note: ` (not ${to}: one replica at a time within ${seconds}s of the scale-down ${last.from} → ${last.to}, headroomFlapHoldSeconds)`,
  };
}
