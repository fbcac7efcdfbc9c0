import { lastChangeMs } from '../history.js';
import { everyPass, hold, type Facts, type Verdict } from './facts.js';

/**
 * The cooldown after a change (`hold CooldownActive`), KEDA's `cooldownPeriod` in spirit: no
 * scale-up within `scaleUp.cooldownSeconds`, no scale-down within `scaleDown.cooldownSeconds`, of
 * the last recorded change (replicas changed or nodes moved; see `lastChangeMs`). The cooldown is
 * a duration that has elapsed at exactly `cooldownSeconds` after the change: then it is over (the
 * rule returns null), one second before it holds. `why` opens the message. 0 seconds: off.
 */
export function cooldown(f: Facts, direction: 'up' | 'down', why: string): Verdict | null {
  const seconds =
    direction === 'up' ? f.scaling.scaleUp.cooldownSeconds : f.scaling.scaleDown.cooldownSeconds;
  const last = lastChangeMs(f.records, f.nowMs);
  // Stryker disable next-line ConditionalExpression,LogicalOperator,EqualityOperator: equivalent for `seconds <= 0` and `last === null`; lastChangeMs gives no time after now, so 0 s or no change (null: now − 0) falls through to the elapsed test, which returns null too
  if (seconds <= 0 || last === null || f.nowMs - last >= seconds * 1000) return null;
  // Active: the message shows its age, so the outcome changes as the clock moves.
  everyPass(f, last + seconds * 1000);
  const ago = Math.round((f.nowMs - last) / 1000);
  return hold(
    f,
    'CooldownActive',
    `${why}; last change ${ago}s ago, scale-${direction} cooldown is ${seconds}s`,
  );
}
