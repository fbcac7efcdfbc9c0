/**
 * The reads a reconciler's memory spares a pass (`ReconcilerMemory`), so a pass at 10,000 nodes
 * reads only what moved: the stored benchmark runs (read again only when the database's
 * `benchmarkRunsVersion` moves: a run recorded by this pass or by any other process), and the
 * utilisation samples the last pass stored (a sample read again is not stored again). An empty
 * memory (a one-shot command's) reads and stores everything.
 */
import { specHash, summarizeRuns } from '../benchmark/index.js';
import type { ResolvedAlgorithm } from '../definitions/index.js';
import type { BenchmarkOutcome } from '../placement/index.js';
import type { ReconcilerMemory, RememberedRuns } from '../plan/index.js';
import type { BenchmarkRun, Store, UtilizationSampleRecord } from '../store/index.js';

/**
 * The outcomes and runs `storedBenchmarks` gives, from what `memory` kept: one version query, and
 * `benchmarkRunsFor` only for the algorithms whose key (name, spec hash) it does not hold; every
 * key again when the version moved. Without `benchmarkRunsVersion` every pass reads all.
 * @throws what the store's reads throw
 */
export async function rememberedBenchmarks(
  algorithms: readonly ResolvedAlgorithm[],
  store: Pick<Store, 'benchmarkRunsFor' | 'benchmarkRunsVersion'>,
  memory: Pick<ReconcilerMemory, 'benchmarks' | 'specHashes'>,
): Promise<{ outcomes: Map<string, BenchmarkOutcome>; runs: Map<string, BenchmarkRun[]> }> {
  const version = store.benchmarkRunsVersion ? await store.benchmarkRunsVersion() : null;
  const kept = version !== null && memory.benchmarks?.version === version ? memory.benchmarks.byKey : null;
  const keys = algorithms.map((a) => {
    let hash = memory.specHashes.get(a);
    if (hash === undefined) memory.specHashes.set(a, (hash = specHash(a.spec, a.annotations)));
    return { algorithm: a.name, specHash: hash, key: `${a.name}\0${hash}` };
  });
  const missing = keys.filter((k) => !kept?.has(k.key));
  const read = missing.length > 0 ? await store.benchmarkRunsFor(missing) : new Map<string, BenchmarkRun[]>();
  const byKey = new Map<string, RememberedRuns>();
  const outcomes = new Map<string, BenchmarkOutcome>();
  const runs = new Map<string, BenchmarkRun[]>();
  for (const [i, alg] of algorithms.entries()) {
    const k = keys[i]!;
    const entry = kept?.get(k.key) ?? { runs: read.get(alg.name) ?? [] };
    if (entry.summary?.wanted !== alg.benchmark.runs) {
      const s = summarizeRuns(entry.runs, alg.benchmark.runs);
      entry.summary = {
        wanted: alg.benchmark.runs,
        outcome:
          s.status === 'Pending'
            ? null
            : { status: s.status, medianSeconds: s.medianSeconds, message: s.message },
      };
    }
    byKey.set(k.key, entry);
    if (entry.summary.outcome) outcomes.set(alg.name, entry.summary.outcome);
    runs.set(alg.name, entry.runs);
  }
  if (version !== null) memory.benchmarks = { version, byKey };
  return { outcomes, runs };
}

/** The identity of a stored sample: algorithm, pod, time and value. */
export function sampleKey(s: UtilizationSampleRecord): string {
  return `${s.algorithm}\0${s.namespace}/${s.pod}\0${s.at}\0${s.utilization}`;
}

/**
 * Stores the samples of a pass that the last stored pass did not hold (a source answer read twice
 * gives the same samples), then remembers this pass's in `memory`.
 * @throws what `saveSamples` throws (the memory is then unchanged)
 */
export async function saveNewSamples(
  store: Pick<Store, 'saveSamples'>,
  samples: UtilizationSampleRecord[],
  memory: Pick<ReconcilerMemory, 'samples'>,
): Promise<void> {
  const keys = samples.map(sampleKey);
  const fresh = samples.filter((_, i) => !memory.samples.has(keys[i]!));
  if (fresh.length > 0) await store.saveSamples(fresh);
  memory.samples = new Set(keys);
}
