import { hold, round1, type Facts, type Verdict } from './facts.js';

/**
 * Capacity on the way (`hold PodsStarting`): replicas starting — not Ready within
 * `scaling.podStartupSeconds` of their start (`splitUnready`), or not created yet; never
 * `Unschedulable`, terminating, or stuck past that bound (a failing readiness probe or a
 * CrashLoopBackOff holds no scale-up: the decision names it instead) — will take their share of the load. The HPA assumes not-yet-Ready
 * pods use 0 % on a scale-up and holds when that recalculation no longer says up
 * (https://kubernetes.io/docs/tasks/run-application/horizontal-pod-autoscale/#algorithm-details):
 * the utilisation spread over the Ready and the arriving pods, `util × ready / (ready +
 * arriving)`, at most `max` holds (exactly `max` is in band), above it the scale-up goes on. So a
 * scale-up is not repeated while the last one's pods start. `why` opens the message; null when
 * nothing is arriving or the arriving pods do not carry the load.
 */
export function podsStarting(f: Facts, why: string): Verdict | null {
  const arriving = f.starting.length + Math.max(0, f.from - f.counted.length);
  if (arriving === 0) return null;
  const spread = (f.utilization! * f.ready.length) / (f.ready.length + arriving);
  if (spread > f.max) return null;
  return hold(
    f,
    'PodsStarting',
    `${why}, but ${arriving} replica(s) are starting: with them Ready it is ${round1(spread)}% ≤ max ${f.max}%; replicas stay at ${f.from}`,
  );
}
