/**
 * The benchmark runner's read-only entry (`storedOutcome`). The work is
 * level-triggered and split in small steps: `classify.ts` (pure: one observation of a Job → where
 * the run stands), `step.ts` (one pass: observe → record the ends → create the Jobs that are
 * missing, never waiting), and `wait.ts` (`gpuops benchmark`: the same step in a loop with the
 * clock). Its shared shapes are in `types.ts`.
 */
import type { BenchmarkOutcome } from '../placement/index.js';
import type { ResolvedAlgorithm } from '../definitions/index.js';
import type { BenchmarkRun, Store } from '../store/index.js';
import { specHash } from './spec-hash.js';
import { summarizeRuns } from './summary.js';

export type {
  BenchmarkPhase,
  BenchmarkProgress,
  BenchmarkResult,
  RunnerDeps,
  TestCapacity,
} from './types.js';

/** The benchmark outcome the stored runs give for an algorithm's current spec (for `plan` from the database), with those runs (oldest first). */
export async function storedOutcome(
  alg: ResolvedAlgorithm,
  store: Pick<Store, 'benchmarkRuns'>,
  startRetryBackoffSeconds?: number,
): Promise<BenchmarkOutcome & { specHash: string; runs: BenchmarkRun[] }> {
  const hash = specHash(alg.spec, alg.annotations);
  const runs = await store.benchmarkRuns(alg.name, hash);
  const s = summarizeRuns(runs, alg.benchmark.runs, startRetryBackoffSeconds);
  return { status: s.status, medianSeconds: s.medianSeconds, message: s.message, specHash: hash, runs };
}

export { stepBenchmarks } from './step.js';
export { waitForBenchmark } from './wait.js';
