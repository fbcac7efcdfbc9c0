/**
 * The signal samples of benchmark runs (migration 11), as both stores write and read them: while a
 * benchmark Job's pod runs, each pass reads the algorithm's signal for that pod from the same
 * metrics source the scaler uses and records the value, or why there was none
 * (`benchmark/signal-sample.ts`). What a run's samples say is decided by
 * `benchmark/signal-at-load.ts`, never here.
 */

/** One reading of an algorithm's signal on its benchmark pod. */
export interface BenchmarkSignalSample {
  algorithm: string;
  /** The spec hash the benchmark ran at (as in `BenchmarkRun.specHash`). */
  specHash: string;
  /** The 1-based run the Job is (as in `BenchmarkRun.run`). */
  run: number;
  jobName: string;
  /** The benchmark pod the value was read for. */
  pod: string;
  /** The signal key read: `gpuUtil`, `gpuEngineActive`, `gpuMemory` or `serviceMetric:<name>`. */
  signal: string;
  /** `%` for the GPU signals, the service metric's unit otherwise. */
  unit: string;
  /** ISO-8601 time of the read. */
  at: string;
  /** The pod's value in `unit`, or null when the source had none (then `reason` says why). */
  value: number | null;
  reason: string | null;
}

/** Columns in insert order (placeholders `?`; PostgreSQL numbers them). */
export const INSERT_BENCHMARK_SIGNAL_SAMPLE = `INSERT INTO benchmark_signal_samples
  (algorithm, spec_hash, run, job_name, pod, signal, unit, at, at_ms, value, reason)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/**
 * Drops an algorithm's samples of every spec hash but the one being written (placeholders:
 * algorithm, spec hash), run with each insert. A benchmark records samples only at the algorithm's
 * current spec hash (`benchmark/step.ts` hashes the spec it runs), and a band is proposed only from
 * the samples of the current hash (`pass/proposed-bands.ts`), so older hashes' samples are never
 * read again; without this a long-running controller kept a few dozen rows per benchmark forever.
 * Every sample of the written hash stays.
 */
export const TRIM_BENCHMARK_SIGNAL_SAMPLES = `DELETE FROM benchmark_signal_samples
  WHERE algorithm = ? AND spec_hash <> ?`;

/** The samples of one algorithm at one spec hash, oldest first (placeholders: algorithm, spec hash). */
export const SELECT_BENCHMARK_SIGNAL_SAMPLES = `SELECT * FROM benchmark_signal_samples
  WHERE algorithm = ? AND spec_hash = ? ORDER BY at_ms, id`;

/** The cells of {@link INSERT_BENCHMARK_SIGNAL_SAMPLE} for a sample; `atMs` is `at` in epoch ms. */
export function benchmarkSignalCells(s: BenchmarkSignalSample, atMs: number): (string | number | null)[] {
  return [s.algorithm, s.specHash, s.run, s.jobName, s.pod, s.signal, s.unit, s.at, atMs, s.value, s.reason];
}

/** A stored row as a sample (both dialects: PostgreSQL numbers may come back as text). */
export function benchmarkSignalFromRow(r: Record<string, unknown>): BenchmarkSignalSample {
  return {
    algorithm: String(r.algorithm),
    specHash: String(r.spec_hash),
    run: Number(r.run),
    jobName: String(r.job_name),
    pod: String(r.pod),
    signal: String(r.signal),
    unit: String(r.unit),
    at: String(r.at),
    value: r.value === null || r.value === undefined ? null : Number(r.value),
    reason: r.reason === null || r.reason === undefined ? null : String(r.reason),
  };
}
