/**
 * The reads a reconciler's memory spares a pass (`ReconcilerMemory`), so a pass at 10,000 nodes
 * reads only what moved: the stored benchmark runs (read again only when the database's
 * `benchmarkRunsVersion` moves: a run recorded by this pass or by any other process), and the
 * utilisation samples the last pass stored (a sample read again is not stored again; a set is
 * stored once per interval of history). The recorded decisions the scaling windows read back are
 * `remembered-decisions.ts`'s. An empty memory (a one-shot command's) reads and stores everything.
 */
import { specHash, summarizeRuns } from '../benchmark/index.js';
import type { ResolvedAlgorithm } from '../definitions/index.js';
import type { BenchmarkOutcome } from '../placement/index.js';
import type { ReconcilerMemory, RememberedRuns } from '../plan/index.js';
import type { BenchmarkRun, Store, UtilizationSampleRecord } from '../store/index.js';
import { SAMPLE_INTERVAL_SECONDS } from './history-prune.js';

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
 * Stores the samples of a pass at `nowMs` (ms since the epoch) when `intervalMs` has passed since
 * the last samples this reconciler stored (`memory.samplesStoredAtMs`; none yet, or a clock that
 * went back: store), leaving out those the last stored set held (a source answer read twice gives
 * the same samples), then remembers the set and its time in `memory`. A pass sooner than that
 * stores none and leaves the memory as it is. The store then holds at most one sample set per
 * interval ({@link SAMPLE_INTERVAL_SECONDS} by default), however often passes run.
 * @throws what `saveSamples` throws (the memory is then unchanged)
 */
export async function saveNewSamples(
  store: Pick<Store, 'saveSamples'>,
  samples: UtilizationSampleRecord[],
  memory: Pick<ReconcilerMemory, 'samples' | 'samplesStoredAtMs'>,
  nowMs: number,
  intervalMs: number = SAMPLE_INTERVAL_SECONDS * 1000,
): Promise<void> {
  const last = memory.samplesStoredAtMs;
  if (last !== undefined && nowMs >= last && nowMs - last < intervalMs) return;
  const fresh = newSamples(samples, memory.samples);
  if (fresh.length === 0) return;
  await store.saveSamples(fresh);
  memory.samples = samples.slice();
  memory.samplesStoredAtMs = nowMs;
}

/**
 * `samples` without those `last` holds (same {@link sampleKey}), in order. A sample at a time no
 * sample of `last` has is new without a look-up: `last` is indexed (by pod) only when some
 * sample's time is one of `last`'s (an answer read twice), where a steady pass, whose samples are
 * all at a newer time, indexes none. The look-up compares the key's fields one by one, without
 * building the key (its string per sample was most of this function's time and garbage).
 */
export function newSamples(
  samples: UtilizationSampleRecord[],
  last: readonly UtilizationSampleRecord[],
): UtilizationSampleRecord[] {
  if (last.length === 0) return samples.slice();
  const lastAts = new Set<string>();
  for (const l of last) lastAts.add(l.at);
  let byPod: Map<string, UtilizationSampleRecord[]> | undefined;
  const fresh: UtilizationSampleRecord[] = [];
  for (const s of samples) {
    if (lastAts.has(s.at)) {
      byPod ??= samplesByPod(last);
      if (byPod.get(s.pod)?.some((l) => sameSample(l, s))) continue;
    }
    fresh.push(s);
  }
  return fresh;
}

/** `samples` by pod name (several per pod where a pod has several algorithms' or times' samples). */
function samplesByPod(samples: readonly UtilizationSampleRecord[]): Map<string, UtilizationSampleRecord[]> {
  const byPod = new Map<string, UtilizationSampleRecord[]>();
  for (const s of samples) {
    const list = byPod.get(s.pod);
    if (list) list.push(s);
    else byPod.set(s.pod, [s]);
  }
  return byPod;
}

/**
 * Whether two samples have the same {@link sampleKey}: the same algorithm, namespace, pod and
 * time, and values whose text is the same (`String(NaN)` equals itself; 0 and -0 both read `0`).
 * Kubernetes names hold no `/`, so equal fields and an equal key are the same thing.
 */
function sameSample(a: UtilizationSampleRecord, b: UtilizationSampleRecord): boolean {
  const u = a.utilization;
  const v = b.utilization;
  return (
    a.at === b.at &&
    a.algorithm === b.algorithm &&
    a.namespace === b.namespace &&
    a.pod === b.pod &&
    (u === v || (u !== u && v !== v))
  );
}
