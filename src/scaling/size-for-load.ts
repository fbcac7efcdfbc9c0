/**
 * Sizing by the replicas the load needs (pure), as the Kubernetes HPA sizes
 * (https://kubernetes.io/docs/tasks/run-application/horizontal-pod-autoscale/#algorithm-details):
 * `ceil(pods × utilisation / target)`, where `pods` are the Ready pods whose samples gave the
 * utilisation and the target is `scaling.targetUtilization`, by default the middle of the
 * algorithm's band, `(min + max) / 2`, so that one decision lands inside the band with room on
 * both sides. A load that jumps from 1 to 10 GPUs is
 * met in one decision, not in nine cooldowns of one step.
 *
 * It only sets how far a decision goes once the rules of `decideOne` chose to move: above max it
 * goes up at least `step`, below min it goes down at least `step` (and never below what the load
 * needs); bounds `minReplicas..maxReplicas` always hold. A utilisation of exactly the target asks
 * for exactly the current pods.
 */

/** Inputs of {@link sizeForLoad}: percent, replica counts. */
export interface SizeInput {
  direction: 'up' | 'down';
  /** Replicas in Git now. */
  from: number;
  /** Ready pods whose samples make up `utilization` (≥ 1). */
  pods: number;
  /** Mean utilisation of those pods (percent, 0..100). */
  utilization: number;
  min: number;
  max: number;
  step: number;
  minReplicas: number;
  maxReplicas: number;
  /** Target utilisation (percent); absent: the middle of min and max. */
  target?: number;
}

/** The replicas the load needs at the band's middle, before bounds: `ceil(pods × u / target)`. */
export function replicasNeeded(
  pods: number,
  utilization: number,
  min: number,
  max: number,
  targetPercent?: number,
): number {
  const target = targetPercent ?? (min + max) / 2;
  if (!(target > 0)) return pods;
  // Tolerate float noise: 3 pods at exactly 55 % with a target of 55 need 3, not 4.
  return Math.max(0, Math.ceil((pods * utilization) / target - 1e-9));
}

/**
 * The replica count a scale-up (`direction: up`) or scale-down goes to; see the module comment.
 * Up: `max(from + step, needed)`; down: `min(from − step, max(needed, 1))`; then clamped to
 * `minReplicas..maxReplicas`.
 */
export function sizeForLoad(i: SizeInput): number {
  const step = Math.max(1, i.step);
  const needed = replicasNeeded(Math.max(1, i.pods), i.utilization, i.min, i.max, i.target);
  const to =
    i.direction === 'up' ? Math.max(i.from + step, needed) : Math.min(i.from - step, Math.max(1, needed));
  return Math.min(i.maxReplicas, Math.max(i.minReplicas, to));
}
