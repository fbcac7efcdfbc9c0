import { hold, type Facts, type Verdict } from './facts.js';

/**
 * A scale-down or a node move on an answer the metrics store called partial → `hold PartialData`
 * (null on a whole answer). Prometheus, Thanos, Mimir and Cortex answer `status: success` with
 * `warnings` when some stores or shards did not answer, and do not say which series are missing:
 * any algorithm's pods, GPUs or history may be among them, so a low reading may be half the pods
 * or the quiet half of a window. As the HPA never scales down on missing metrics
 * (https://kubernetes.io/docs/tasks/run-application/horizontal-pod-autoscale/#algorithm-details),
 * nothing scales down or moves a node on it; a scale-up onto free GPUs of the pool still may
 * (what the answer shows is load that exists), and the warning is named in every decision.
 * `why` opens the message ("utilisation 12% over 3 of 3 Ready pod(s) < min 30%").
 */
export function partialData(f: Facts, why: string, what: 'scale down' | 'move a node'): Verdict | null {
  const partial = f.input.partialData;
  if (!partial) return null;
  return hold(f, 'PartialData', `${why}, but ${partial}; never ${what} on a partial answer`);
}
