/**
 * The world one pass decides on, and the sources it is read from. `readWorld` (read-world.ts)
 * fills a {@link World} from {@link WorldSources}; `gpuops reconcile`, `gpuops run`, `gpuops plan`
 * and the replay all read it the same way, so `plan` decides exactly as `reconcile` would.
 */
import type { BandProposals } from '../benchmark/index.js';
import type { ClusterSource, JobApi, Snapshot } from '../cluster/index.js';
import type { LoadedRepo, Policy, SpecError } from '../definitions/index.js';
import type { UtilizationReading, UtilizationSource } from '../metrics/index.js';
import type { BenchmarkOutcome } from '../placement/index.js';
import type { ReconcilerMemory, GitModel, FillFailure, FillHold, FillStates } from '../plan/index.js';
import type { DecisionRecord, HpaState } from '../scaling/index.js';
import type { BenchmarkRun, Store } from '../store/index.js';

/** The specs and the generated files, read at one point in time (the base branch head, or a folder). */
export interface SpecsRead {
  repo: LoadedRepo;
  /** Files under `clusters/<cluster>/`: repo-relative path → content. */
  base: Map<string, string>;
}

/**
 * Where specs come from: the working copy at the base branch head (`workingCopySpecs`, after a
 * fetch) or a local folder (`directorySpecs`, `gpuops plan --repo DIR`).
 */
export interface SpecsSource {
  /**
   * Reads `algorithms/`, `policies/` and `clusters/<cluster>/`; a bad spec is an error in
   * `repo.errors`, never a throw.
   * @throws when the repo cannot be fetched or read (the pass is retried)
   */
  read(
    cluster: string,
    defaults: Policy,
    memory: Pick<ReconcilerMemory, 'specs' | 'misplaced'>,
  ): Promise<SpecsRead>;
}

/** The stored state a pass reads: benchmark runs, scaling decisions, node activity. */
export type WorldStore = Pick<
  Store,
  | 'benchmarkRunsFor'
  | 'benchmarkRunsVersion'
  | 'decisionsSince'
  | 'decisionsMark'
  | 'nodeEmptiness'
  | 'benchmarkSignalSamples'
>;

/** Everything `readWorld` reads from. None of these is written to while the world is read. */
export interface WorldSources {
  /** Cluster name: the folder under `clusters/`. */
  cluster: string;
  specs: SpecsSource;
  /** The cluster read: lists (`listingSource`) or the watch-driven cache (`cacheSource`). */
  clusterRead: ClusterSource;
  /** The database; null when there is none yet (no benchmark, no decision, no node history). */
  store: WorldStore | null;
  /** The GPU utilisation source; null: none configured (every reading is "no data"). */
  metrics: UtilizationSource | null;
  /** The shipped default policy (`policies/default.yaml`). */
  defaults: Policy;
  /** What the reconciler remembers from its last pass (`createReconcilerMemory()`; empty: read all). */
  memory: ReconcilerMemory;
  /** Recorded run times (`gpuops plan --benchmarks FILE`): used instead of the stored runs. */
  recordedBenchmarks?: ReadonlyMap<string, BenchmarkOutcome>;
  /** Reads the model cache fill Jobs (`model-cache-fills.ts`); absent: none is read (none Complete). */
  jobs?: Pick<JobApi, 'listJobs'>;
}

/** Benchmark outcome (at each algorithm's current spec) and the runs behind it, by algorithm. */
export interface PassBenchmarks {
  outcomes: Map<string, BenchmarkOutcome>;
  runs: Map<string, BenchmarkRun[]>;
  /** The band proposed from its benchmark (or why none) of each spec with `scaling.targets: fromBenchmark`. */
  bands?: BandProposals;
}

/** What one pass read, once, before it decides anything. */
export interface World {
  /** The time the pass judges everything at (the snapshot's `takenAt`). */
  now: Date;
  cluster: string;
  repo: LoadedRepo;
  /** The read model of `clusters/<cluster>/` at the base branch head (`git.files`). */
  git: GitModel;
  /** Algorithms whose spec fails validation, with their errors (reported to their pull requests). */
  invalid: { algorithm: string; errors: SpecError[] }[];
  /** Algorithm folders whose generated files stay because a spec of theirs is broken. */
  kept: string[];
  snapshot: Snapshot;
  /** Stored (or recorded) benchmark outcomes at each algorithm's current spec; absent: none yet. */
  benchmarks: PassBenchmarks;
  /** Recorded scaling decisions since `historySince(policy, now)` (cooldown, stabilisation). */
  recent: DecisionRecord[];
  /** The pass's one utilisation reading (no data is `{ ok: false }`, never 0 %). */
  reading: UtilizationReading;
  /** Test nodes that run a benchmark pod now (never released from the test pool). */
  runningBenchmarks: string[];
  /** With `scaling.engine: hpa`: each generated HPA's status, by algorithm. */
  hpa?: Map<string, HpaState>;
  /**
   * Since when each node gpuops moved has held no GPU pod (ISO-8601): stored node activity plus
   * this snapshot (`emptinessWith`); absent when no node was moved or there is no database.
   */
  emptySince?: Map<string, string>;
  /** The model cache fill Jobs read this pass (`model-cache-fills.ts`); absent: none read. */
  modelCacheFills?: FillStates;
  /** The fill Jobs of `modelCacheFills` that failed, with why (`model-cache-fills.ts`), by the same key. */
  modelCacheFailures?: ReadonlyMap<string, FillFailure>;
  /** The fill Jobs of `modelCacheFills` read `Unknown`, with why (`plan/fill-hold.ts`), by the same key. */
  modelCacheHolds?: ReadonlyMap<string, FillHold>;
}
