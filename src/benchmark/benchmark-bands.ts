/**
 * The bands of a pass's algorithms with `scaling.targets: fromBenchmark` (pure): what their
 * benchmarks recorded (`signal-at-load.ts`) through the rule of `band-proposal.ts`, and the
 * algorithms with each proposed band in place of the spec's or policy's, so every decision, the
 * status page and the placement pull request judge the same band.
 */
import type { Policy, ResolvedAlgorithm } from '../definitions/index.js';
import { fromBenchmarkRule } from '../definitions/index.js';
import type { BenchmarkSignalSample, BenchmarkRun } from '../store/index.js';
import {
  explicitBand,
  isProposal,
  proposeBand,
  type BandNotProposed,
  type BandProposal,
} from './band-proposal.js';
import { signalAtLoad } from './signal-at-load.js';
import { sampleSignalKey } from './signal-sample.js';

/** The proposal (or why none) of each algorithm that asks for one, by name. */
export type BandProposals = Map<string, BandProposal | BandNotProposed>;

/** True when the spec asks gpuops to propose its band from its benchmark. */
export function wantsBenchmarkBand(a: Pick<ResolvedAlgorithm, 'spec'>): boolean {
  return a.spec.scaling?.targets === 'fromBenchmark';
}

/**
 * The proposals for `algorithms` from the runs and signal samples at their current spec hash (by
 * algorithm name). An algorithm that does not ask for one has no entry.
 */
export function benchmarkBands(
  algorithms: readonly ResolvedAlgorithm[],
  policy: Policy,
  runs: ReadonlyMap<string, readonly Pick<BenchmarkRun, 'run' | 'status'>[]>,
  samples: ReadonlyMap<string, readonly BenchmarkSignalSample[]>,
): BandProposals {
  const rule = fromBenchmarkRule(policy);
  const out: BandProposals = new Map();
  for (const a of algorithms.filter(wantsBenchmarkBand)) {
    const recorded = signalAtLoad(samples.get(a.name) ?? [], runs.get(a.name) ?? [], sampleSignalKey(a));
    out.set(
      a.name,
      proposeBand({
        recorded,
        explicit: explicitBand(a),
        resolved: a.scaling.utilization,
        rule,
        percent: a.signal?.kind !== 'serviceMetric',
      }),
    );
  }
  return out;
}

/** `algorithms` with each proposed band in place (new objects where one changes; the others as given). */
export function withProposedBands(
  algorithms: readonly ResolvedAlgorithm[],
  proposals: ReadonlyMap<string, BandProposal | BandNotProposed> | undefined,
): ResolvedAlgorithm[] {
  return algorithms.map((a) => {
    const p = proposals?.get(a.name);
    if (!p || !isProposal(p)) return a;
    return { ...a, scaling: { ...a.scaling, utilization: { min: p.min.value, max: p.max.value } } };
  });
}
