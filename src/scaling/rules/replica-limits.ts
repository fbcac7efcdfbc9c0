import type { Facts, Verdict } from './facts.js';

/**
 * A count outside `minReplicas..maxReplicas` comes back inside at once, with or without metrics
 * (`scale-up BelowMinReplicas` / `scale-down AboveMaxReplicas`): the HPA clamps to its limits the
 * same way ("Current number of replicas below Spec.MinReplicas" / "above Spec.MaxReplicas",
 * https://kubernetes.io/docs/tasks/run-application/horizontal-pod-autoscale/). No cooldown: the
 * limits are the spec, not a recommendation. The limits themselves are inside (null: decided by
 * the other rules). With engine hpa the HPA clamps its own replicas.
 */
export function replicaLimits(f: Facts): Verdict | null {
  if (f.scaling.engine === 'hpa') return null;
  if (f.from < f.minReplicas) {
    return {
      action: 'scale-up',
      to: f.minReplicas,
      reason: 'BelowMinReplicas',
      message: `replicas ${f.from} in Git are below minReplicas ${f.minReplicas}; scaling ${f.from} → ${f.minReplicas} (utilisation ${f.u})`,
    };
  }
  if (f.from > f.maxReplicas) {
    return {
      action: 'scale-down',
      to: f.maxReplicas,
      reason: 'AboveMaxReplicas',
      message: `replicas ${f.from} in Git are above maxReplicas ${f.maxReplicas}; scaling ${f.from} → ${f.maxReplicas} (utilisation ${f.u})`,
    };
  }
  return null;
}
