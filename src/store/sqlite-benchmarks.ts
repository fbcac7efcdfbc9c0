/**
 * Benchmark records on SQLite: runs, benchmark Job uids and benchmark signal samples. Each exported
 * function is the `Store` method of its name (types.ts documents it) on a SqliteSession.
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
import {
  BENCHMARK_COLUMNS,
  benchmarkCells,
  benchmarkFromRow,
  groupBy,
  BENCHMARK_RUNS_VERSION_SQL,
  toMs,
} from './rows.js';
import type { BenchmarkRun, BenchmarkRunKey } from './types.js';
import { bind, insertSql, type Row, type SqliteSession } from './sqlite-session.js';

/** `Store.recordBenchmarkRun` (types.ts) on SQLite; a failure rejects with a StoreError naming `recordBenchmarkRun`. */
export function recordBenchmarkRun(s: SqliteSession, run: BenchmarkRun): Promise<void> {
  return s.run('recordBenchmarkRun', () => {
    s.prepare(insertSql('benchmark_runs', BENCHMARK_COLUMNS)).run(...bind(benchmarkCells(run)));
  });
}

/** `Store.benchmarkRuns` (types.ts) on SQLite; a failure rejects with a StoreError naming `benchmarkRuns`. */
export function benchmarkRuns(
  s: SqliteSession,
  algorithm: string,
  specHash: string,
): Promise<BenchmarkRun[]> {
  return s.run('benchmarkRuns', () =>
    (
      s
        .prepare(
          `SELECT * FROM benchmark_runs WHERE algorithm = ? AND spec_hash = ?
           ORDER BY started_at_ms, run, id`,
        )
        .all(algorithm, specHash) as Row[]
    ).map(benchmarkFromRow),
  );
}

/** `Store.benchmarkRunsFor` (types.ts) on SQLite; a failure rejects with a StoreError naming `benchmarkRunsFor`. */
export function benchmarkRunsFor(
  s: SqliteSession,
  keys: readonly BenchmarkRunKey[],
): Promise<Map<string, BenchmarkRun[]>> {
  // One statement for every pair: the pairs go in as one JSON parameter (json_each), so the
  // count never meets SQLite's bound-parameter limit; the (algorithm, spec_hash) index serves it.
  const pairs = [...new Map(keys.map((k) => [k.algorithm, k.specHash]))];
  return s.run('benchmarkRunsFor', () =>
    groupBy(
      (
        s
          .prepare(
            `SELECT b.* FROM json_each(?) AS k
             JOIN benchmark_runs AS b
               ON b.algorithm = json_extract(k.value, '$[0]') AND b.spec_hash = json_extract(k.value, '$[1]')
           ORDER BY b.started_at_ms, b.run, b.id`,
          )
          .all(JSON.stringify(pairs)) as Row[]
      ).map(benchmarkFromRow),
      (r) => r.algorithm,
    ),
  );
}

/** `Store.benchmarkRunsVersion` (types.ts) on SQLite; a failure rejects with a StoreError naming `benchmarkRunsVersion`. */
export function benchmarkRunsVersion(s: SqliteSession): Promise<string> {
  return s.run('benchmarkRunsVersion', () => {
    const row = s.prepare(BENCHMARK_RUNS_VERSION_SQL).get() as Row;
    return `${Number(row.n)}/${Number(row.last)}`;
  });
}

/** `Store.recordBenchmarkJobUid` (types.ts) on SQLite; a failure rejects with a StoreError naming `recordBenchmarkJobUid`. */
export function recordBenchmarkJobUid(s: SqliteSession, r: BenchmarkJobUid): Promise<void> {
  return s.run('recordBenchmarkJobUid', () => {
    const ms = toMs('recordBenchmarkJobUid', 'at', r.at);
    s.db
      .transaction(() => {
        s.prepare(UPSERT_BENCHMARK_JOB_UID).run(r.namespace, r.jobName, r.uid, r.at, ms);
        s.prepare(TRIM_BENCHMARK_JOB_UIDS).run(ms - BENCHMARK_JOB_UID_RETENTION_MS);
      })
      .immediate();
  });
}

/** `Store.recordBenchmarkSignalSample` (types.ts) on SQLite; a failure rejects with a StoreError naming `recordBenchmarkSignalSample`. */
export function recordBenchmarkSignalSample(s: SqliteSession, sample: BenchmarkSignalSample): Promise<void> {
  return s.run('recordBenchmarkSignalSample', () => {
    const ms = toMs('recordBenchmarkSignalSample', 'at', sample.at);
    s.db
      .transaction(() => {
        s.prepare(INSERT_BENCHMARK_SIGNAL_SAMPLE).run(...benchmarkSignalCells(sample, ms));
        s.prepare(TRIM_BENCHMARK_SIGNAL_SAMPLES).run(sample.algorithm, sample.specHash);
      })
      .immediate();
  });
}

/** `Store.benchmarkSignalSamples` (types.ts) on SQLite; a failure rejects with a StoreError naming `benchmarkSignalSamples`. */
export function benchmarkSignalSamples(
  s: SqliteSession,
  algorithm: string,
  specHash: string,
): Promise<BenchmarkSignalSample[]> {
  return s.run('benchmarkSignalSamples', () =>
    (s.prepare(SELECT_BENCHMARK_SIGNAL_SAMPLES).all(algorithm, specHash) as Row[]).map(
      benchmarkSignalFromRow,
    ),
  );
}

/** `Store.benchmarkJobOwner` (types.ts) on SQLite; a failure rejects with a StoreError naming `benchmarkJobOwner`. */
export function benchmarkJobOwner(
  s: SqliteSession,
  namespace: string,
  jobName: string,
): Promise<BenchmarkJobOwner> {
  return s.run('benchmarkJobOwner', () => {
    const row = s
      .prepare(SELECT_BENCHMARK_JOB_OWNER)
      .get(namespace, jobName, BENCHMARK_JOB_UIDS_MIGRATION) as Row;
    return {
      uid: (row.uid as string | null) ?? null,
      recordingSince: (row.recording_since as string | null) ?? null,
    };
  });
}
