import { hold, round1, type Facts, type Target, type Verdict } from './facts.js';
import { partialData } from './partial-data.js';
import { desiredReplicas } from './sizing.js';

/** "utilisation 12% over 3 of 3 Ready pod(s) < min 30%": what opens every scale-down message. */
export function belowText(f: Facts): string {
  return `utilisation ${f.u} ${f.over} < min ${f.min}%`;
}

/**
 * Utilisation below `min`: whether to scale down, and to how many (before the peak window,
 * cooldown and stabilisation have their say). In order:
 * - at or below `minReplicas` → `hold AtMinReplicas`;
 * - an answer the metrics store called partial → `hold PartialData` (`partial-data.ts`);
 * - a Ready pod without a sample → `hold InsufficientSamples`: the HPA never scales down on
 *   missing metrics (it assumes 100 % for pods without one,
 *   https://kubernetes.io/docs/tasks/run-application/horizontal-pod-autoscale/#algorithm-details);
 * - the utilisation predicted on the smaller count, `util × n / min(n, to)` (n = Ready pods: the
 *   load they carry spreads over fewer), strictly above `max` → `hold WouldFlap`; exactly `max` is
 *   in band after the change, so it scales.
 * Else the target of `desiredReplicas(down)`. Call with a utilisation below min.
 */
export function belowMin(f: Facts): Verdict | Target {
  const below = belowText(f);
  if (f.from <= f.minReplicas) {
    return hold(f, 'AtMinReplicas', `${below}, but replicas ${f.from} are at minReplicas ${f.minReplicas}`);
  }
  const partial = partialData(f, below, 'scale down');
  if (partial) return partial;
  if (!f.complete) {
    return hold(
      f,
      'InsufficientSamples',
      `${below}, but only ${f.sampled.length} of ${f.ready.length} Ready pod(s) have a sample${f.droppedNote}; never scale down on partial data (the HPA never scales down on missing metrics)`,
    );
  }
  const desired = desiredReplicas(f, 'down');
  const predicted = predictedAt(f, desired);
  if (predicted > f.max) {
    return hold(
      f,
      'WouldFlap',
      `${below}, but ${f.from} → ${desired} would put it at ${round1(predicted)}% > max ${f.max}%`,
    );
  }
  return { to: desired };
}

/** The scale-down to a target that every rule let through (`scale-down BelowMin`). */
export function scaledDown(f: Facts, t: Target): Verdict {
  return {
    action: 'scale-down',
    to: t.to,
    reason: 'BelowMin',
    message: `${belowText(f)}${t.because ?? ''}; scaling ${f.from} → ${t.to}${t.note ?? ''} (predicted ${round1(predictedAt(f, t.to))}%)`,
  };
}

/** Utilisation of the Ready pods' load spread over `to` of them (percent). */
function predictedAt(f: Facts, to: number): number {
  const n = f.ready.length;
  return (f.utilization! * n) / Math.min(n, to);
}
