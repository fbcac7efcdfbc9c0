import type { BenchmarkOutcome } from '../placement/index.js';
import type { BenchmarkRun } from '../store/index.js';

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
   * `Failed` or `TimedOut`, or {@link MAX_DISRUPTED_RUNS} disrupted runs (only a changed spec is
   * benchmarked again). `Unschedulable`, `StartFailed` and `Disrupted` ends are not final:
   * capacity, a registry or a Secret may come back, so a later pass tries again.
   */
  final: boolean;
  /** Not before this time may the next run start (backoff after a failed start), or null. */
  retryAt: Date | null;
}

/** Disrupted runs at one spec hash after which the benchmark ends `Failed` (a node that keeps dying is no place to measure). */
export const MAX_DISRUPTED_RUNS = 5;
/** Longest wait before a run that could not start is tried again (seconds). */
export const MAX_START_RETRY_BACKOFF_SECONDS = 3600;

/**
 * Wait before the next attempt after `failures` consecutive `StartFailed` runs (seconds):
 * `base × 2^(failures − 1)`, at most {@link MAX_START_RETRY_BACKOFF_SECONDS}; 0 without failures.
 */
export function startRetryBackoffSeconds(base: number, failures: number): number {
  if (failures <= 0) return 0;
  return Math.min(MAX_START_RETRY_BACKOFF_SECONDS, base * 2 ** (failures - 1));
}

/**
 * Summarises the stored runs of one algorithm at one spec hash (oldest first) for a benchmark
 * of `wanted` runs. `startRetryBaseSeconds` is policy `benchmark.startRetryBackoffSeconds`. Pure.
 */
export function summarizeRuns(
  runs: readonly BenchmarkRun[],
  wanted: number,
  startRetryBaseSeconds = 300,
): RunsSummary {
  const nextRun = runs.reduce((m, r) => Math.max(m, r.run), 0) + 1;
  const ended = runs.find((r) => r.status === 'Failed' || r.status === 'TimedOut');
  const durations = runs
    .filter((r) => r.status === 'Succeeded' && r.durationSeconds !== null)
    .map((r) => r.durationSeconds!);
  const base = { durations, nextRun, retryAt: null };
  const final = (status: BenchmarkOutcome['status'], medianSeconds: number | null, message: string) => ({
    ...base,
    status,
    medianSeconds,
    message,
    remaining: 0,
    final: true,
  });
  const open = (status: BenchmarkOutcome['status'], message: string, retryAt: Date | null = null) => ({
    ...base,
    status,
    medianSeconds: null,
    message,
    remaining: wanted - durations.length,
    final: false,
    retryAt,
  });
  if (ended) {
    return final(
      ended.status as 'Failed' | 'TimedOut',
      null,
      `run ${ended.run} (Job ${ended.jobName}) ${ended.status}: ${ended.message}`,
    );
  }
  if (durations.length >= wanted) {
    const counted = durations.slice(-wanted);
    return final(
      'Succeeded',
      median(counted),
      `median of ${counted.length} runs: ${counted.map((d) => `${d} s`).join(', ')}`,
    );
  }
  const disrupted = runs.filter((r) => r.status === 'Disrupted');
  if (disrupted.length >= MAX_DISRUPTED_RUNS) {
    const lastD = disrupted[disrupted.length - 1]!;
    return final(
      'Failed',
      null,
      `disrupted ${disrupted.length} times at this spec (limit ${MAX_DISRUPTED_RUNS}); the last, run ${lastD.run} (Job ${lastD.jobName}): ${lastD.message}`,
    );
  }
  const last = runs[runs.length - 1];
  const label = last ? `run ${last.run} (Job ${last.jobName})` : '';
  if (last?.status === 'Unschedulable') {
    return open('Unschedulable', `${label} Unschedulable: ${last.message}`);
  }
  const progress = `${durations.length} of ${wanted} runs done`;
  if (last?.status === 'StartFailed') {
    let failures = 0;
    for (let i = runs.length - 1; i >= 0 && runs[i]!.status === 'StartFailed'; i--) failures++;
    const wait = startRetryBackoffSeconds(startRetryBaseSeconds, failures);
    const endedAt = Date.parse(last.finishedAt ?? last.startedAt);
    const retryAt = new Date((Number.isNaN(endedAt) ? 0 : endedAt) + wait * 1000);
    return open(
      'Pending',
      `${progress}; ${label} StartFailed (${failures} in a row): ${last.message}; tried again from ${retryAt.toISOString()} (backoff ${wait} s)`,
      retryAt,
    );
  }
  if (last?.status === 'Disrupted') {
    return open('Pending', `${progress}; ${label} Disrupted, tried again: ${last.message}`);
  }
  return open('Pending', runs.length === 0 ? 'not benchmarked yet' : progress);
}
