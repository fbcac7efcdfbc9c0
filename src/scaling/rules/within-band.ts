import { hold, type Facts, type Verdict } from './facts.js';

/** What {@link withinBand} reads of the facts (the kept in-band hold builds only these: `inBandAgain`). */
export type BandFacts = Pick<Facts, 'utilization' | 'min' | 'max' | 'u' | 'over' | 'from'>;

/**
 * `min` ≤ utilisation ≤ `max` → `hold WithinRange`. Both ends are in band: the band is gpuops'
 * form of the HPA's tolerance (no action while the usage ratio is within 10 % of the target,
 * https://kubernetes.io/docs/tasks/run-application/horizontal-pod-autoscale/#algorithm-details),
 * and the HPA acts only when the ratio is strictly outside it; so exactly `min` or exactly `max`
 * holds, 29.9 and 80.1 (with 30/80) do not. Null outside the band or without a utilisation.
 */
export function withinBand(f: BandFacts): Verdict | null {
  const u = f.utilization;
  if (u === null || u < f.min || u > f.max) return null;
  return hold(
    f,
    'WithinRange',
    `utilisation ${f.u} ${f.over} is within ${f.min}–${f.max}%; replicas stay at ${f.from}`,
  );
}
