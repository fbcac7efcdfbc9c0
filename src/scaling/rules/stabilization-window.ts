import { recommendationOf } from '../history.js';
import { changesAt, hold, type Facts, type Target, type Verdict } from './facts.js';
import { sourceWindow } from './source-window.js';
import { isoMs } from '../iso-ms.js';

/**
 * The HPA's stabilisation window (https://kubernetes.io/docs/tasks/run-application/horizontal-pod-autoscale/#stabilization-window):
 * the most cautious recommendation of the last `seconds` wins — the highest for a scale-down
 * (`scaleDown.stabilizationWindowSeconds`, the HPA's default 300 s), the lowest for a scale-up
 * (`scaleUp.stabilizationWindowSeconds`, default 0). A scale-down is judged from the source's own
 * samples when it sent them (`sourceWindow`), else here from the recorded passes.
 */
export function stabilise(f: Facts, direction: 'up' | 'down', t: Target, why: string): Verdict | Target {
  return (direction === 'down' ? sourceWindow(f, t, why) : null) ?? recordedWindow(f, direction, t, why);
}

/**
 * Stabilisation over the recorded passes (`recommendationOf` re-derives what each recommended).
 * The target moves to the window's most cautious recommendation, never beyond `t.to`; when that is
 * the current count or less cautious than staying → `hold StabilizationWindow`. Evidence must span
 * the window: one recorded pass at least `seconds` old (exactly `seconds` counts, one second less
 * does not; records after now never do); without one → hold, naming one instant as no evidence
 * when the source sent no history either. A record exactly now is inside the window. 0 seconds:
 * off (the target passes unchanged).
 */
export function recordedWindow(f: Facts, direction: 'up' | 'down', t: Target, why: string): Verdict | Target {
  const seconds =
    direction === 'up'
      ? f.scaling.scaleUp.stabilizationWindowSeconds
      : f.scaling.scaleDown.stabilizationWindowSeconds;
  if (seconds <= 0) return t;
  f.clock.readsHolds = true;
  const start = f.nowMs - seconds * 1000;
  let reaches = false;
  let to = t.to;
  for (const r of f.records) {
    const at = isoMs(r.at);
    if (at > f.nowMs) continue;
    if (at <= start) {
      reaches = true;
      continue;
    }
    // Inside the window until it is `seconds` old; from then on it only says the window is reached.
    changesAt(f, at + seconds * 1000);
    const rec = recommendationOf(r, f.bounds);
    if (rec === null) continue;
    to = direction === 'down' ? Math.max(to, rec) : Math.min(to, rec);
  }
  if (!reaches) {
    const instant = !f.sampled.some((x) => x.window);
    return hold(
      f,
      'StabilizationWindow',
      `${why}; ` +
        (instant
          ? `one instant is no evidence over the ${seconds}s scale-${direction} stabilisation window, and `
          : '') +
        `no recorded pass reaches back the ${seconds}s scale-${direction} stabilisation window yet`,
    );
  }
  if (direction === 'down' ? to >= f.from : to <= f.from) {
    return hold(
      f,
      'StabilizationWindow',
      `${why}; the ${direction === 'down' ? 'highest' : 'lowest'} recommendation in the last ${seconds}s is ${to}`,
    );
  }
  return to === t.to ? t : { to };
}
