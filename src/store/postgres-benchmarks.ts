/**
 * Benchmark records on PostgreSQL: runs, benchmark Job uids and benchmark signal samples. Each
 * exported function is the `Store` method of its name (types.ts documents it) on a PgSession.
 */
import {
  benchmarkSignalCells,
  benchmarkSignalFromRow,
  INSERT_BENCHMARK_SIGNAL_SAMPLE,
  SELECT_BENCHMARK_SIGNAL_SAMPLES,
  TRIM_BENCHMARK_SIGNAL_SAMPLES,
  type BenchmarkSignalSample,
} from './benchmark-signals.js';
import {
  BENCHMARK_JOB_UID_RETENTION_MS,
  BENCHMARK_JOB_UIDS_MIGRATION,
  SELECT_BENCHMARK_JOB_OWNER,
  TRIM_BENCHMARK_JOB_UIDS,
  UPSERT_BENCHMARK_JOB_UID,
  type BenchmarkJobOwner,
  type BenchmarkJobUid,
} from './benchmark-job-uids.js';
import { numbered } from './pushed-commits.js';
import {
  BENCHMARK_COLUMNS,
  benchmarkCells,
  benchmarkFromRow,
  groupBy,
  BENCHMARK_RUNS_VERSION_SQL,
  toMs,
} from './rows.js';
import type { BenchmarkRun, BenchmarkRunKey } from './types.js';
import { insertSql, type PgSession } from './postgres-session.js';

/** `Store.recordBenchmarkRun` (types.ts) on PostgreSQL; a failure rejects with a StoreError naming `recordBenchmarkRun`. */
export async function recordBenchmarkRun(s: PgSession, run: BenchmarkRun): Promise<void> {
  await s.query('recordBenchmarkRun', insertSql('benchmark_runs', BENCHMARK_COLUMNS), benchmarkCells(run));
}

/** `Store.benchmarkRuns` (types.ts) on PostgreSQL; a failure rejects with a StoreError naming `benchmarkRuns`. */
export async function benchmarkRuns(
  s: PgSession,
  algorithm: string,
  specHash: string,
): Promise<BenchmarkRun[]> {
  const rows = await s.query(
    'benchmarkRuns',
    `SELECT * FROM benchmark_runs WHERE algorithm = $1 AND spec_hash = $2 ORDER BY started_at_ms, run, id`,
    [algorithm, specHash],
  );
  return rows.map(benchmarkFromRow);
}

/** `Store.benchmarkRunsFor` (types.ts) on PostgreSQL; a failure rejects with a StoreError naming `benchmarkRunsFor`. */
export async function benchmarkRunsFor(
  s: PgSession,
  keys: readonly BenchmarkRunKey[],
): Promise<Map<string, BenchmarkRun[]>> {
  // One round trip for every pair: two text arrays (one bound parameter each) unnested and joined.
  const pairs = new Map(keys.map((k) => [k.algorithm, k.specHash]));
  const rows = await s.query(
    'benchmarkRunsFor',
    `SELECT b.* FROM UNNEST($1::text[], $2::text[]) AS k(algorithm, spec_hash)
       JOIN benchmark_runs AS b ON b.algorithm = k.algorithm AND b.spec_hash = k.spec_hash
     ORDER BY b.started_at_ms, b.run, b.id`,
    [[...pairs.keys()], [...pairs.values()]],
  );
  return groupBy(rows.map(benchmarkFromRow), (r) => r.algorithm);
}

/** `Store.benchmarkRunsVersion` (types.ts) on PostgreSQL; a failure rejects with a StoreError naming `benchmarkRunsVersion`. */
export async function benchmarkRunsVersion(s: PgSession): Promise<string> {
  const row = (await s.query('benchmarkRunsVersion', BENCHMARK_RUNS_VERSION_SQL))[0]!;
  return `${Number(row.n)}/${Number(row.last)}`;
}

/** `Store.recordBenchmarkJobUid` (types.ts) on PostgreSQL; a failure rejects with a StoreError naming `recordBenchmarkJobUid`. */
export async function recordBenchmarkJobUid(s: PgSession, r: BenchmarkJobUid): Promise<void> {
  const ms = toMs('recordBenchmarkJobUid', 'at', r.at);
  await s.transaction('recordBenchmarkJobUid', async (c) => {
    await c.query(numbered(UPSERT_BENCHMARK_JOB_UID), [r.namespace, r.jobName, r.uid, r.at, ms]);
    await c.query(numbered(TRIM_BENCHMARK_JOB_UIDS), [ms - BENCHMARK_JOB_UID_RETENTION_MS]);
  });
}

/** `Store.recordBenchmarkSignalSample` (types.ts) on PostgreSQL; a failure rejects with a StoreError naming `recordBenchmarkSignalSample`. */
export async function recordBenchmarkSignalSample(
  s: PgSession,
  sample: BenchmarkSignalSample,
): Promise<void> {
  const ms = toMs('recordBenchmarkSignalSample', 'at', sample.at);
  await s.transaction('recordBenchmarkSignalSample', async (c) => {
    await c.query(numbered(INSERT_BENCHMARK_SIGNAL_SAMPLE), benchmarkSignalCells(sample, ms));
    await c.query(numbered(TRIM_BENCHMARK_SIGNAL_SAMPLES), [sample.algorithm, sample.specHash]);
  });
}

/** `Store.benchmarkSignalSamples` (types.ts) on PostgreSQL; a failure rejects with a StoreError naming `benchmarkSignalSamples`. */
export async function benchmarkSignalSamples(
  s: PgSession,
  algorithm: string,
  specHash: string,
): Promise<BenchmarkSignalSample[]> {
  const rows = await s.query('benchmarkSignalSamples', numbered(SELECT_BENCHMARK_SIGNAL_SAMPLES), [
    algorithm,
    specHash,
  ]);
  return rows.map(benchmarkSignalFromRow);
}

/** `Store.benchmarkJobOwner` (types.ts) on PostgreSQL; a failure rejects with a StoreError naming `benchmarkJobOwner`. */
export async function benchmarkJobOwner(
  s: PgSession,
  namespace: string,
  jobName: string,
): Promise<BenchmarkJobOwner> {
  const [row] = await s.query('benchmarkJobOwner', numbered(SELECT_BENCHMARK_JOB_OWNER), [
    namespace,
    jobName,
    BENCHMARK_JOB_UIDS_MIGRATION,
  ]);
  return {
    uid: (row?.uid as string | null) ?? null,
    recordingSince: (row?.recording_since as string | null) ?? null,
  };
}
