import type { Placement, PlacementInput } from './types.js';

function fmt(seconds: number): string {
  return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
}

/**
 * Places one algorithm by its median benchmark run time (docs/design.md, "The method", step 3):
 *
 * | situation                                   | pool         | reason             |
 * |---------------------------------------------|--------------|--------------------|
 * | benchmark Failed / TimedOut / Unschedulable | null         | `BenchmarkFailed`  |
 * | `spec.placement.pool` names a pool          | that pool    | `Pinned`           |
 * | no benchmark yet, or still running          | null         | `BenchmarkPending` |
 * | median > threshold (strictly)               | `long-task`  | `AboveThreshold`   |
 * | median ≤ threshold                          | `short-task` | `BelowThreshold`   |
 *
 * A failed benchmark blocks even a pinned algorithm: a workload whose test run fails is not
 * rolled out. A pinned one does not wait for its benchmark otherwise.
 *
 * @param thresholdSeconds policy `placement.longTaskThresholdSeconds` (seconds)
 */
export function place(input: PlacementInput, thresholdSeconds: number): Placement {
  const { algorithm, pinned, benchmark } = input;
  const median = benchmark?.status === 'Succeeded' ? benchmark.medianSeconds : null;
  if (benchmark && benchmark.status !== 'Succeeded' && benchmark.status !== 'Pending') {
    return {
      algorithm,
      pool: null,
      runTimeSeconds: null,
      reason: 'BenchmarkFailed',
      message: `benchmark ended ${benchmark.status}${benchmark.message ? `: ${benchmark.message}` : ''}; not placed until the spec changes${benchmark.status === 'TimedOut' ? ' (benchmark.timeoutSeconds, in the spec or the policy, is the time a run may take)' : ''}`,
    };
  }
  if (pinned !== 'auto') {
    return {
      algorithm,
      pool: pinned,
      runTimeSeconds: median,
      reason: 'Pinned',
      message: `spec.placement.pool pins it to ${pinned}${median === null ? '' : ` (median run time ${fmt(median)})`}`,
    };
  }
  if (median === null || !Number.isFinite(median)) {
    return {
      algorithm,
      pool: null,
      runTimeSeconds: null,
      reason: 'BenchmarkPending',
      message: benchmark?.message
        ? `benchmark pending: ${benchmark.message}`
        : 'no benchmark result yet at this spec',
    };
  }
  if (median > thresholdSeconds) {
    return {
      algorithm,
      pool: 'long-task',
      runTimeSeconds: median,
      reason: 'AboveThreshold',
      message: `median run time ${fmt(median)} > long-task threshold ${fmt(thresholdSeconds)}`,
    };
  }
  return {
    algorithm,
    pool: 'short-task',
    runTimeSeconds: median,
    reason: 'BelowThreshold',
    message: `median run time ${fmt(median)} ≤ long-task threshold ${fmt(thresholdSeconds)}`,
  };
}
