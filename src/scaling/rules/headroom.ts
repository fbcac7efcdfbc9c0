import { peakWindow } from './peak-window.js';
import { cooldown } from './cooldown.js';
import { scaleUpOnCapacity } from './above-max.js';
import { stabilise } from './stabilization-window.js';
import { headroomReplicas } from '../headroom-replicas.js';
import { hold, isVerdict, round1, type Facts, type Verdict } from './facts.js';

/** The offered load of the sampled pods (GPUs): Σ utilisation / 100 × GPUs per pod. */
export function sampledLoadGpus(f: Facts): number {
  return f.sampled.reduce((a, x) => a + x.utilization, 0) * (f.gpus / 100);
}

/** The replicas {@link headroomReplicas} asks for on the facts' sampled load and the policy's β. */
export function headroomTarget(f: Facts): number {
  return headroomReplicas(
    sampledLoadGpus(f),
    f.scaling.headroomFactor,
    f.gpus,
    f.max,
    f.minReplicas,
    f.maxReplicas,
  );
}

/** The replicas the load and headroom need before `minReplicas..maxReplicas`. */
function unbounded(f: Facts): number {
  return headroomReplicas(sampledLoadGpus(f), f.scaling.headroomFactor, f.gpus, f.max, 0, Infinity);
}

/**
 * "load 7.2 GPU(s) over 9 of 9 Ready pod(s) + 1×√7.2 headroom needs 13 replica(s) at max 80%":
 * what opens every message; the count is before the replica limits.
 */
export function headroomText(f: Facts): string {
  const l = sampledLoadGpus(f);
  return `load ${round1(l)} GPU(s) ${f.over} + ${f.scaling.headroomFactor}×√${round1(l)} headroom needs ${unbounded(f)} replica(s) at max ${f.max}%`;
}

/**
 * Decides by headroom (after `noData`, so with a utilisation): the same target up and down, so
 * no separate peak rule is needed for a stable load.
 * - target = replicas → `hold WithinRange`, or `AtMaxReplicas` / `AtMinReplicas` when the load
 *   asks for more / fewer than the limit the replicas sit at;
 * - target > replicas → scale-up cooldown, scale-up stabilisation, then capacity (free GPUs of
 *   the pool, else unused nodes moved in), reason `HeadroomShort`. Replicas still starting count
 *   in `replicas`, so a scale-up is not repeated while they start (their load is not seen yet);
 * - target < replicas → never on partial data (`InsufficientSamples`, as the HPA never scales
 *   down on missing metrics), then the peak window, cooldown and the scale-down stabilisation
 *   window (the highest recommendation of the window wins), reason `HeadroomSpare`. The target
 *   keeps the load at or below `max` per replica (L ≤ target × max), so a scale-down never puts
 *   it above max at once: the no-flap guarantee of `belowMin`'s `WouldFlap` holds by construction.
 */
export function headroom(f: Facts): Verdict {
  const to = headroomTarget(f);
  const why = headroomText(f);
  if (to === f.from) {
    const raw = unbounded(f);
    if (raw > f.from)
      return hold(f, 'AtMaxReplicas', `${why}, but replicas ${f.from} are at maxReplicas ${f.maxReplicas}`);
    if (raw < f.from)
      return hold(f, 'AtMinReplicas', `${why}, but replicas ${f.from} are at minReplicas ${f.minReplicas}`);
    return hold(f, 'WithinRange', `${why}; replicas stay at ${f.from}`);
  }
  if (to > f.from) {
    const held = cooldown(f, 'up', why);
    if (held) return held;
    const stable = stabilise(f, 'up', { to }, why);
    return isVerdict(stable) ? stable : scaleUpOnCapacity(f, stable.to, why, 'HeadroomShort');
  }
  if (!f.complete) {
    return hold(
      f,
      'InsufficientSamples',
      `${why}, but only ${f.sampled.length} of ${f.ready.length} Ready pod(s) have a sample${f.droppedNote}; never scale down on partial data (the HPA never scales down on missing metrics)`,
    );
  }
  const bounded = peakWindow(f, { to }, why);
  if (isVerdict(bounded)) return bounded;
  const stable = cooldown(f, 'down', why) ?? stabilise(f, 'down', bounded, why);
  if (isVerdict(stable)) return stable;
  return {
    action: 'scale-down',
    to: stable.to,
    reason: 'HeadroomSpare',
    message: `${why}${stable.because ?? ''}; scaling ${f.from} → ${stable.to}${stable.note ?? ''}`,
  };
}
