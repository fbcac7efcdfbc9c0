/**
 * The benchmark runner's shared shapes (pure types): where a run is, the runner's dependencies,
 * the test pool's capacity and the result of one step. `runner.ts`, `step.ts` and `wait.ts` import
 * them from here, so none of the three imports another for a type.
 */
import type { JobApi } from '../cluster/index.js';
import type { WorkloadTemplates } from '../manifests/index.js';
import type { BenchmarkOutcome } from '../placement/index.js';
import type { PolicySpec, ResolvedAlgorithm } from '../definitions/index.js';
import type { BenchmarkRun, Store } from '../store/index.js';
import type { RunnerClock } from './clock.js';
import type { BenchmarkSignalReader } from './signal-sample.js';

/** Where one benchmark run is. */
export type BenchmarkPhase = 'cached' | 'queued' | 'scheduling' | 'running' | 'succeeded' | 'failed';

/** A progress report: the CLI and the demo print these. */
export interface BenchmarkProgress {
  algorithm: string;
  /** 1-based run being done (successful runs so far + 1), of `runs`. */
  run: number;
  runs: number;
  phase: BenchmarkPhase;
  /** Seconds since this run's Job was created (0 before it exists). */
  elapsedSeconds: number;
  jobName: string | null;
  message: string;
}

/** What the runner needs; all injected (no module-level state). */
export interface RunnerDeps {
  jobs: JobApi;
  /**
   * With `recordBenchmarkJobUid` and `benchmarkJobOwner`, a Job is followed only when its uid is
   * the one recorded at its create; without them, by its marks only.
   */
  store: Pick<
    Store,
    | 'recordBenchmarkRun'
    | 'benchmarkRuns'
    | 'recordBenchmarkJobUid'
    | 'benchmarkJobOwner'
    | 'recordBenchmarkSignalSample'
  >;
  /** `now` for every judgement; `sleep` only between retries of a failed API call. */
  clock: RunnerClock;
  policy: PolicySpec;
  templates: WorkloadTemplates;
  /** Called for every algorithm on every step, and for every run recorded. */
  onProgress?: (p: BenchmarkProgress) => void;
  /** Attempts of one API call on transient errors (network, 429, 5xx), with doubling waits from 1 s. Default 3. */
  apiAttempts?: number;
  /** The GPU product to pin an algorithm's benchmark to (with `pools.test.perGPUProduct`), or null. */
  gpuProduct?: (algorithm: ResolvedAlgorithm) => string | null;
  /**
   * `nvidia.com/gpu.product` of a node by name (null: no label), so a recorded run carries the
   * product it was measured on (`BenchmarkRun.gpuProduct`); absent: recorded as not known.
   */
  productOfNode?: (node: string) => string | null;
  /**
   * Reads the algorithm's scaling signal for a benchmark pod (`signal-sample.ts`); with the store's
   * `recordBenchmarkSignalSample`, each step that sees a run Running records one sample. Absent:
   * none is taken (no metrics source).
   */
  readSignal?: BenchmarkSignalReader;
  /** Observe and report only: create, delete and record nothing. */
  dryRun?: boolean;
  /**
   * The stored runs of each algorithm at its current spec hash, when the caller read them already
   * (the reconcile pass reads them all in one query): the step does not read them again.
   */
  storedRuns?: ReadonlyMap<string, readonly BenchmarkRun[]>;
}

/** GPUs of the test pool as the pass sees them (whole GPUs). */
export interface TestCapacity {
  /** Free GPUs on Ready, schedulable test nodes (allocatable minus the requests of bound pods). */
  free: number;
  /** Allocatable GPUs of those nodes. */
  total: number;
  /** Why nothing can start, when `total` is 0 (e.g. no node carries the test label yet). */
  noCapacityMessage?: string;
}

/** The benchmark of one algorithm at its current spec hash after one step. */
export interface BenchmarkResult extends BenchmarkOutcome {
  algorithm: string;
  specHash: string;
  /** True when the stored runs already decided it before this step (no Job read or created). */
  cached: boolean;
  /** True when no more runs are needed at this spec hash (see `summarizeRuns`). */
  final: boolean;
  /** The Job of the run in flight (created before or by this step), or null. */
  inFlight: string | null;
  /** Successful run times counted so far (seconds), oldest first. */
  durations: number[];
  /** Runs recorded by this step. */
  recorded: BenchmarkRun[];
}
