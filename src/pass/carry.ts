/**
 * What the long-running controller (`gpuops run`) keeps from one pass to the next because it does
 * not change between them, so a pass at 10,000 nodes reads and decides only what moved: the stored
 * benchmark runs (read again only when the database's `benchmarkRunsVersion` moves: a run recorded
 * by this pass or by any other process), the keys of the utilisation samples the last pass stored
 * (a sample read again is not stored again), and the scaling step's memo tables (`ScalingMemo`:
 * indexes over the cache's arrays, the decisions whose inputs did not move). One-shot commands
 * (`plan`, `reconcile --once`) have no carry and read everything, as before. One carry per
 * reconciler, never per module.
 */
import { specHash } from '../benchmark/spec-hash.js';
import { summarizeRuns } from '../benchmark/summary.js';
import type { ResolvedAlgorithm } from '../definitions/types.js';
import type { BenchmarkOutcome } from '../placement/types.js';
import { createScalingMemo, type ScalingMemo } from '../scaling/scaling-memo.js';
import type { LoopTiming } from '../scaling/loop-windows.js';
import type { BenchmarkRun, Store, UtilizationSampleRecord } from '../store/types.js';

/** One algorithm's stored runs at one spec hash, and their summary at a number of runs. */
interface KeptRuns {
  runs: BenchmarkRun[];
  summary?: { wanted: number; outcome: BenchmarkOutcome | null };
}

/** See the module comment. */
export interface PassCarry {
  /** The runs as of `version`, by `algorithm\0specHash` (only the keys the last pass asked for). */
  benchmarks?: { version: string; byKey: Map<string, KeptRuns> };
  /** Spec hashes by algorithm object (an unchanged repo keeps its objects, `PassCaches.specs`). */
  specHashes: WeakMap<ResolvedAlgorithm, string>;
  /** Keys of the samples the last stored pass held (`sampleKey`). */
  samples: Set<string>;
  scaling: ScalingMemo;
  /**
   * The loop's delays (`gpuops run` sets them: its signal's interval and its reaction, the crossing
   * trigger's interval or the pass interval); the scaling windows follow them. Absent: the policy's.
   */
  loop?: LoopTiming;
}

/** An empty carry for one reconciler. */
export function createPassCarry(): PassCarry {
  return { specHashes: new WeakMap(), samples: new Set(), scaling: createScalingMemo() };
}

/**
 * The outcomes and runs `storedBenchmarks` gives, from what `carry` kept: one version query, and
 * `benchmarkRunsFor` only for the algorithms whose key (name, spec hash) it does not hold; every
 * key again when the version moved. Without `benchmarkRunsVersion` every pass reads all.
 * @throws what the store's reads throw
 */
export async function carriedBenchmarks(
  algorithms: readonly ResolvedAlgorithm[],
  store: Pick<Store, 'benchmarkRunsFor' | 'benchmarkRunsVersion'>,
  carry: PassCarry,
): Promise<{ outcomes: Map<string, BenchmarkOutcome>; runs: Map<string, BenchmarkRun[]> }> {
  const version = store.benchmarkRunsVersion ? await store.benchmarkRunsVersion() : null;
  const kept = version !== null && carry.benchmarks?.version === version ? carry.benchmarks.byKey : null;
  const keys = algorithms.map((a) => {
    let hash = carry.specHashes.get(a);
    if (hash === undefined) carry.specHashes.set(a, (hash = specHash(a.spec, a.annotations)));
    return { algorithm: a.name, specHash: hash, key: `${a.name}\0${hash}` };
  });
  const missing = keys.filter((k) => !kept?.has(k.key));
  const read = missing.length > 0 ? await store.benchmarkRunsFor(missing) : new Map<string, BenchmarkRun[]>();
  const byKey = new Map<string, KeptRuns>();
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
  if (version !== null) carry.benchmarks = { version, byKey };
  return { outcomes, runs };
}

/** The identity of a stored sample: algorithm, pod, time and value. */
export function sampleKey(s: UtilizationSampleRecord): string {
  return `${s.algorithm}\0${s.namespace}/${s.pod}\0${s.at}\0${s.utilization}`;
}

/**
 * Stores the samples of a pass that the last stored pass did not hold (a source answer read twice
 * gives the same samples), then remembers this pass's. With no carry, stores them all.
 * @throws what `saveSamples` throws (the carry is then unchanged)
 */
export async function saveNewSamples(
  store: Pick<Store, 'saveSamples'>,
  samples: UtilizationSampleRecord[],
  carry: PassCarry | undefined,
): Promise<void> {
  if (!carry) return store.saveSamples(samples);
  const keys = samples.map(sampleKey);
  const fresh = samples.filter((_, i) => !carry.samples.has(keys[i]!));
  if (fresh.length > 0) await store.saveSamples(fresh);
  carry.samples = new Set(keys);
}
