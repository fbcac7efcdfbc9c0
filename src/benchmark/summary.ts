import type { BenchmarkOutcome } from '../placement/types.js';
import type { BenchmarkRun } from '../store/types.js';

/**
 * Median of `values` (the mean of the two middle ones for an even count).
 * @throws RangeError on an empty list
 */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError('median of no values');
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** What the stored runs of one spec hash say, and what is left to do. */
export interface RunsSummary extends BenchmarkOutcome {
  /** Successful runs so far (seconds each), oldest first. */
  durations: number[];
  /** Runs still needed before the median counts; 0 when done or ended for good. */
  remaining: number;
  /** The next run's 1-based index (stored runs + 1). */
  nextRun: number;
  /**
   * True when no more runs are needed at this spec hash: enough successes, or a run that
   * `Failed` or `TimedOut` (only a changed spec is benchmarked again). An `Unschedulable` end is
   * not final: capacity may come back, so the next pass tries again.
   */
  final: boolean;
}

/**
 * Summarises the stored runs of one algorithm at one spec hash (oldest first) for a benchmark
 * of `wanted` runs. Pure.
 */
export function summarizeRuns(runs: readonly BenchmarkRun[], wanted: number): RunsSummary {
  const nextRun = runs.reduce((m, r) => Math.max(m, r.run), 0) + 1;
  const ended = runs.find((r) => r.status === 'Failed' || r.status === 'TimedOut');
  const durations = runs
    .filter((r) => r.status === 'Succeeded' && r.durationSeconds !== null)
    .map((r) => r.durationSeconds!);
  if (ended) {
    return {
      status: ended.status,
      medianSeconds: null,
      message: `run ${ended.run} (Job ${ended.jobName}) ${ended.status}: ${ended.message}`,
      durations,
      remaining: 0,
      nextRun,
      final: true,
    };
  }
  if (durations.length >= wanted) {
    const counted = durations.slice(-wanted);
    const m = median(counted);
    return {
      status: 'Succeeded',
      medianSeconds: m,
      message: `median of ${counted.length} runs: ${counted.map((d) => `${d} s`).join(', ')}`,
      durations,
      remaining: 0,
      nextRun,
      final: true,
    };
  }
  const last = runs[runs.length - 1];
  if (last?.status === 'Unschedulable') {
    return {
      status: 'Unschedulable',
      medianSeconds: null,
      message: `run ${last.run} (Job ${last.jobName}) Unschedulable: ${last.message}`,
      durations,
      remaining: wanted - durations.length,
      nextRun,
      final: false,
    };
  }
  return {
    status: 'Pending',
    medianSeconds: null,
    message: runs.length === 0 ? 'not benchmarked yet' : `${durations.length} of ${wanted} runs done`,
    durations,
    remaining: wanted - durations.length,
    nextRun,
    final: false,
  };
}
