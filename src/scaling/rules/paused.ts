import { hold, type Facts, type Verdict } from './facts.js';

/**
 * A Deployment a person scaled to zero is paused (`hold ScaledToZero`): `replicas: 0` in Git with
 * `minReplicas` ≥ 1, engine gpuops. The HPA stops adjusting a target whose replicas are 0 while
 * its minimum is above 0 (https://kubernetes.io/docs/tasks/run-application/horizontal-pod-autoscale/#implicit-maintenance-mode-deactivation),
 * and so does gpuops; no metrics are needed and nothing is written. 1 replica is the neighbour,
 * decided normally; so is 0 with `minReplicas: 0` (nothing says a person paused it). With engine
 * hpa replicas are the HPA's business. Null when the rule does not apply.
 */
export function paused(f: Facts): Verdict | null {
  if (f.scaling.engine === 'hpa' || f.from !== 0 || f.minReplicas < 1) return null;
  return hold(
    f,
    'ScaledToZero',
    `replicas are 0 in Git (minReplicas ${f.minReplicas}): a Deployment scaled to zero is paused by a person, as the HPA treats it; scaling resumes once replicas are above 0`,
  );
}
