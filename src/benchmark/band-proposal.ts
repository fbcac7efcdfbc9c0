/**
 * The band gpuops proposes from a benchmark (pure), for a spec with `scaling.targets:
 * fromBenchmark`. The benchmark Job drives the algorithm at full load, so the signal its pod showed
 * (`signal-at-load.ts`) is where one replica saturates. The rule, with the policy's
 * `scaling.fromBenchmark` numbers (defaults in `definitions/rules/benchmark-targets.ts`):
 *
 *   max = saturation × (1 − headroom)        (percent signals: at most 100)
 *   min = max × bandRatio
 *
 * so a replica is added before it saturates (the headroom, 15 % by default, is the share of a
 * replica's capacity kept spare, as a `targetUtilization` below 100 keeps it for the HPA), and the
 * band is wide enough that one replica more or less does not cross both bounds (min at half of max
 * by default: one of two replicas removed doubles the others' load, which stays below max).
 * Percent bounds are rounded to one decimal, a service metric's to three significant digits.
 *
 * A person's explicit bound always wins: a bound the spec sets is kept, and `min` is derived from
 * the band's final `max`. Nothing is proposed without a recorded value, from a saturation of 0 (no
 * band below 0 can be judged), or when the result would not have min < max.
 */
import type { ResolvedAlgorithm } from '../definitions/index.js';
import type { SignalAtLoad, SignalAtLoadResult } from './signal-at-load.js';

/** Where one bound of the band came from. */
export type BoundSource =
  { from: 'benchmark'; value: number } | { from: 'spec'; value: number } | { from: 'policy'; value: number };

/** A band proposed from a benchmark, with the provenance of each bound and the rule's numbers. */
export interface BandProposal {
  min: BoundSource;
  max: BoundSource;
  unit: string;
  recorded: SignalAtLoad;
  headroom: number;
  bandRatio: number;
}

/** Why nothing was proposed for a spec that asked for it (the band stays the spec's or policy's). */
export interface BandNotProposed {
  reason: string;
}

/** The spec's own bounds of the band its signal is judged on (undefined: not set). */
export interface ExplicitBand {
  min?: number;
  max?: number;
}

/** The bounds the spec itself sets: `utilization.min/max`, or its service metric's band. */
export function explicitBand(alg: Pick<ResolvedAlgorithm, 'spec' | 'signal'>): ExplicitBand {
  const s = alg.spec.scaling;
  if (alg.signal?.kind === 'serviceMetric') return { min: s?.serviceMetric?.min, max: s?.serviceMetric?.max };
  return { min: s?.utilization?.min, max: s?.utilization?.max };
}

function rounded(x: number, percent: boolean): number {
  if (percent) return Math.round(x * 10) / 10;
  return x === 0 ? 0 : Number(x.toPrecision(3));
}

/**
 * The band proposed from `recorded` for a spec with these `explicit` bounds over the `resolved`
 * band (the spec's, else the policy's), or why none is.
 */
export function proposeBand(input: {
  recorded: SignalAtLoadResult;
  explicit: ExplicitBand;
  resolved: { min: number; max: number };
  rule: { headroom: number; bandRatio: number };
  percent: boolean;
}): BandProposal | BandNotProposed {
  const { recorded, explicit, resolved, rule, percent } = input;
  if (explicit.min !== undefined && explicit.max !== undefined)
    return { reason: 'the spec sets both min and max: a person\u2019s bounds win' };
  if (!recorded.ok) return { reason: `no value recorded by the benchmark: ${recorded.reason}` };
  if (!(recorded.value > 0))
    return {
      reason: `the benchmark recorded ${recorded.value} ${recorded.unit}: no band below 0 can be judged`,
    };
  const fromRun = rounded(Math.min(percent ? 100 : Infinity, recorded.value * (1 - rule.headroom)), percent);
  const max: BoundSource =
    explicit.max !== undefined
      ? { from: 'spec', value: explicit.max }
      : { from: 'benchmark', value: fromRun };
  const min: BoundSource =
    explicit.min !== undefined
      ? { from: 'spec', value: explicit.min }
      : { from: 'benchmark', value: rounded(max.value * rule.bandRatio, percent) };
  if (!(min.value < max.value)) {
    return {
      reason: `the proposed band ${min.value}..${max.value} ${recorded.unit} would not have min below max (the spec's ${min.from === 'spec' ? 'min' : 'max'} wins); the band stays ${resolved.min}..${resolved.max}`,
    };
  }
  return { min, max, unit: recorded.unit, recorded, headroom: rule.headroom, bandRatio: rule.bandRatio };
}

/** True when the answer is a proposal. */
export function isProposal(x: BandProposal | BandNotProposed): x is BandProposal {
  return 'max' in x;
}
