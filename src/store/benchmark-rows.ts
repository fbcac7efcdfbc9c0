/** Benchmark run rows: cells in column order, and the row read back. */
import { type Cell, fromNum, type Row, toMs } from './row-cells.js';
import type { BenchmarkRun } from './types.js';

/** The count and highest id of `benchmark_runs` (`Store.benchmarkRunsVersion`); the same in both dialects. */
export const BENCHMARK_RUNS_VERSION_SQL = `SELECT count(*) AS n, coalesce(max(id), 0) AS last FROM benchmark_runs`;

/** The columns of `benchmark_runs` gpuops writes, in the order of {@link benchmarkCells}. */
export const BENCHMARK_COLUMNS = [
  'algorithm',
  'spec_hash',
  'run',
  'status',
  'duration_seconds',
  'node',
  'job_name',
  'started_at',
  'started_at_ms',
  'finished_at',
  'message',
  'gpu_product',
] as const;

/**
 * A benchmark run's cells in {@link BENCHMARK_COLUMNS} order (`started_at_ms`: epoch ms).
 * @throws StoreError naming `recordBenchmarkRun` when `startedAt` is not an ISO-8601 time.
 */
export function benchmarkCells(b: BenchmarkRun): Cell[] {
  return [
    b.algorithm,
    b.specHash,
    b.run,
    b.status,
    b.durationSeconds,
    b.node,
    b.jobName,
    b.startedAt,
    toMs('recordBenchmarkRun', 'startedAt', b.startedAt),
    b.finishedAt,
    b.message,
    b.gpuProduct ?? null,
  ];
}

/** A `benchmark_runs` row read back (either dialect) as the run that was recorded. */
export function benchmarkFromRow(r: Row): BenchmarkRun {
  return {
    algorithm: r.algorithm as string,
    specHash: r.spec_hash as string,
    run: Number(r.run),
    status: r.status as BenchmarkRun['status'],
    durationSeconds: fromNum(r.duration_seconds),
    node: (r.node as string | null) ?? null,
    jobName: r.job_name as string,
    startedAt: r.started_at as string,
    finishedAt: (r.finished_at as string | null) ?? null,
    message: r.message as string,
    gpuProduct: (r.gpu_product as string | null) ?? null,
  };
}
