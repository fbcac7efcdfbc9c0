/**
 * One sample of a running benchmark's signal (the step's adapter part): while a run's benchmark
 * container runs, each step reads the algorithm's signal for its pod (`signal-sample.ts`) and
 * records it beside the run (`Store.recordBenchmarkSignalSample`), so the value the benchmark's
 * load drove is kept with the benchmark result (`signal-at-load.ts` sums them up).
 */
import type { ResolvedAlgorithm } from '../definitions/index.js';
import type { RunState } from './classify.js';
import type { RunnerDeps } from './types.js';

/**
 * Samples the signal when `state` is a running pod, a reader and a recording store are given, and
 * this is not a dry run. A read that fails is recorded as no value with the reason (the reader
 * never throws).
 * @throws StoreError when the record fails: the step reports it as it does a failed run record
 */
export async function sampleSignal(
  deps: RunnerDeps,
  alg: ResolvedAlgorithm,
  run: { hash: string; run: number; jobName: string },
  state: RunState,
  now: Date,
): Promise<void> {
  const record = deps.store.recordBenchmarkSignalSample?.bind(deps.store);
  if (!record || !deps.readSignal || deps.dryRun) return;
  if (state.kind !== 'active' || state.phase !== 'running' || !state.pod) return;
  const read = await deps.readSignal(alg, state.pod);
  await record({
    algorithm: alg.name,
    specHash: run.hash,
    run: run.run,
    jobName: run.jobName,
    pod: state.pod,
    signal: read.signal,
    unit: read.unit,
    at: now.toISOString(),
    value: read.value,
    reason: read.reason,
  });
}
