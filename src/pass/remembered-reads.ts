/**
 * The reads a reconciler's memory spares a pass (`ReconcilerMemory`), so a pass at 10,000 nodes
 * reads only what moved: the stored benchmark runs (read again only when the database's
 * `benchmarkRunsVersion` moves: a run recorded by this pass or by any other process), and the
 * utilisation samples the last pass stored (a sample read again is not stored again), and the
 * recorded decisions the scaling windows read back (only those from the last stored pass on are
 * read again). An empty memory (a one-shot command's) reads and stores everything.
 */
import { specHash, summarizeRuns } from '../benchmark/index.js';
import type { ResolvedAlgorithm } from '../definitions/index.js';
import type { BenchmarkOutcome } from '../placement/index.js';
import type { ReconcilerMemory, RememberedRuns, RememberedDecisions } from '../plan/index.js';
import type { BenchmarkRun, DecisionRecord, Store, UtilizationSampleRecord } from '../store/index.js';

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
  const fresh = newSamples(samples, memory.samples);
  if (fresh.length > 0) await store.saveSamples(fresh);
  memory.samples = samples.slice();
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

/**
 * What `store.decisionsSince(subjects, since)` gives, reading back only the records from the last
 * pass this reconciler stored on (`since` that pass's time) when `memory` holds the read before
 * it: the kept records from `since` up to that pass, then the records read. Every record of a
 * pass carries the pass's time and only a pass writes records, so the store holds nothing else
 * in that range while this reconciler is the one writer. Read in full instead: with no stored
 * pass kept (a new reconciler, a restart, a dry run, a failed write), a `since` before the kept
 * read's (a longer window), a subject not read then, or a read that finds any record besides
 * the ones that pass stored (another writer: a replica that led meanwhile, a second process).
 * Keeps what it returns in `memory` for the next pass (`rememberStoredDecisions` adds what it stores).
 * @throws what `decisionsSince` throws (the memory is then empty: the next pass reads all)
 */
export async function rememberedDecisions(
  store: Pick<Store, 'decisionsSince'>,
  subjects: readonly string[],
  since: string,
  memory: Pick<ReconcilerMemory, 'decisions'>,
): Promise<Map<string, DecisionRecord[]>> {
  const kept = memory.decisions;
  memory.decisions = undefined;
  const sinceMs = Date.parse(since);
  const read = kept ? await readSinceStored(store, kept, subjects, sinceMs) : null;
  const bySubject = read ?? (await store.decisionsSince(subjects, since));
  memory.decisions = { sinceMs, subjects: new Set(subjects), bySubject };
  return bySubject;
}

/** The records since `sinceMs` from `kept` and a read from its stored pass on; null when they cannot be (see above). */
async function readSinceStored(
  store: Pick<Store, 'decisionsSince'>,
  kept: RememberedDecisions,
  subjects: readonly string[],
  sinceMs: number,
): Promise<Map<string, DecisionRecord[]> | null> {
  const stored = kept.stored;
  if (!stored || !(sinceMs >= kept.sinceMs && sinceMs <= stored.atMs)) return null;
  if (!subjects.every((s) => kept.subjects.has(s))) return null;
  const newer = await store.decisionsSince(subjects, stored.at);
  // Records are only added (pruning takes those before `since`): one more than stored is another writer's.
  for (const s of new Set(subjects))
    if ((newer.get(s)?.length ?? 0) !== (stored.count.get(s) ?? 0)) return null;
  const out = new Map<string, DecisionRecord[]>();
  for (const s of subjects) {
    const before = kept.bySubject.get(s) ?? [];
    // Oldest first: drop those before `since` from the front, stop at the stored pass.
    let from = 0;
    while (from < before.length && Date.parse(before[from]!.at) < sinceMs) from++;
    let to = before.length;
    while (to > from && Date.parse(before[to - 1]!.at) >= stored.atMs) to--;
    const records = [...before.slice(from, to), ...(newer.get(s) ?? [])];
    if (records.length > 0) out.set(s, records);
  }
  return out;
}

/**
 * Notes in `memory` the records a pass stored (after `rememberedDecisions` read the ones before
 * them): all at one time, the pass's. Records of another time, or no read kept, leave no note.
 */
export function rememberStoredDecisions(
  memory: Pick<ReconcilerMemory, 'decisions'>,
  records: readonly DecisionRecord[],
): void {
  const kept = memory.decisions;
  if (!kept || records.length === 0) return;
  const at = records[0]!.at;
  if (records.some((r) => r.at !== at)) return;
  const count = new Map<string, number>();
  for (const r of records) count.set(r.subject, (count.get(r.subject) ?? 0) + 1);
  kept.stored = { atMs: Date.parse(at), at, count };
}
