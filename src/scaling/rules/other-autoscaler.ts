import { hold, type Facts, type Verdict } from './facts.js';

/**
 * Another autoscaler scales the algorithm's Deployment → `hold OtherAutoscaler`, whatever the
 * utilisation: an HPA gpuops did not write, or the HPA a KEDA ScaledObject made, targets it
 * (`spec.scaleTargetRef`), and two writers of `spec.replicas` undo each other on every sync. One
 * owner of `spec.replicas`, always: gpuops stays out (no scale-up, scale-down, node move, nor the
 * move back inside min..maxReplicas) and names the other owner until it is gone. Null when none.
 */
export function otherAutoscaler(f: Facts): Verdict | null {
  const others = f.input.otherAutoscalers ?? [];
  if (others.length === 0) return null;
  return hold(
    f,
    'OtherAutoscaler',
    `${others.join(', ')} scales Deployment ${f.input.algorithm.namespace}/${f.name}; gpuops leaves its replicas (${f.from}) to it, one owner of spec.replicas, until that autoscaler is removed`,
  );
}
