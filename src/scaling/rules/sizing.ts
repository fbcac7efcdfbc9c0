import { sizeForLoad } from '../size-for-load.js';
import type { Facts } from './facts.js';
import { headroomTarget } from './headroom.js';

/**
 * How far a decision goes once a rule chose to move (`scaling.sizing`), before stabilisation and
 * capacity bound it:
 * - `step`: `step` replicas, within `minReplicas..maxReplicas`;
 * - `load`: the replicas the load needs at the target, `ceil(pods × utilisation / target)` as the
 *   HPA sizes, at least `step` (see `sizeForLoad`). Up it counts the sampled pods (a Ready pod
 *   without a sample adds no load: the HPA's 0 % for missing metrics on a scale-up); down every
 *   Ready pod has a sample (the scale-down rule demands it).
 * - `headroom`: the same count both ways, `headroomTarget` (see `headroom-replicas.ts`).
 * Needs a utilisation (the callers run after `noData`).
 */
export function desiredReplicas(f: Facts, direction: 'up' | 'down'): number {
  if (f.scaling.sizing === 'headroom') return headroomTarget(f);
  if (f.scaling.sizing !== 'load') {
    return direction === 'up'
      ? Math.min(f.maxReplicas, f.from + f.step)
      : f.from - Math.min(f.step, f.from - f.minReplicas);
  }
  return sizeForLoad({
    direction,
    from: f.from,
    pods: direction === 'up' ? f.sampled.length : f.ready.length,
    utilization: f.utilization!,
    min: f.min,
    max: f.max,
    step: f.step,
    minReplicas: f.minReplicas,
    maxReplicas: f.maxReplicas,
    target: f.bounds.target,
  });
}
