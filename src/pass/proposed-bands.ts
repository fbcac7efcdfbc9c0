/**
 * The bands a pass proposes from benchmarks (`benchmark/benchmark-bands.ts`): the signal samples
 * of each spec with `scaling.targets: fromBenchmark`, read at its current spec hash, through the
 * proposal rule; and the world with those bands in place.
 */
import {
  benchmarkBands,
  wantsBenchmarkBand,
  withProposedBands,
  type BandProposals,
  specHash,
} from '../benchmark/index.js';
import type { Policy, ResolvedAlgorithm } from '../definitions/index.js';
import type { BenchmarkRun, BenchmarkSignalSample, Store } from '../store/index.js';
import type { PassBenchmarks, World } from './world.js';

/**
 * The proposals of the pass (empty when no spec asks for one; one read per spec that does).
 * @throws StoreError when a read fails
 */
export async function proposedBands(
  store: Pick<Store, 'benchmarkSignalSamples'>,
  repo: { algorithms: readonly ResolvedAlgorithm[]; policy: Policy },
  runs: ReadonlyMap<string, readonly BenchmarkRun[]>,
): Promise<BandProposals> {
  const asking = repo.algorithms.filter(wantsBenchmarkBand);
  if (asking.length === 0) return new Map();
  const samples = new Map<string, BenchmarkSignalSample[]>();
  await Promise.all(
    asking.map(async (a) => {
      const read = (await store.benchmarkSignalSamples?.(a.name, specHash(a.spec, a.annotations))) ?? [];
      samples.set(a.name, read);
    }),
  );
  return benchmarkBands(asking, repo.policy, runs, samples);
}

/** `world` with the proposed bands in its algorithms (the same world when none is proposed). */
export function worldWithBands(world: World, benchmarks: PassBenchmarks): World {
  if (!benchmarks.bands || benchmarks.bands.size === 0) return world;
  return {
    ...world,
    repo: { ...world.repo, algorithms: withProposedBands(world.repo.algorithms, benchmarks.bands) },
  };
}
