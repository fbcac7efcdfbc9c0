/**
 * The benchmark Jobs gpuops created (migration 10), as both stores read and write them: the
 * `metadata.uid` the API server gave each Job gpuops's create made. A Job under gpuops's name is
 * gpuops's only when its uid is the one recorded here: labels and the spec-hash annotation are
 * text anyone with Job rights in the namespace can copy (`benchmark/job-owner.ts`).
 */

/** One Job gpuops's create made. */
export interface BenchmarkJobUid {
  namespace: string;
  /** The Job's `metadata.name`. */
  jobName: string;
  /** The Job's `metadata.uid`, as the create's answer gave it. */
  uid: string;
  /** ISO-8601 time of the record. */
  at: string;
}

/** What the store knows of one Job name: see `Store.benchmarkJobOwner`. */
export interface BenchmarkJobOwner {
  /** The uid recorded for (namespace, name), or null when none is. */
  uid: string | null;
  /**
   * ISO-8601 time the table was made (migration 10's `applied_at`): a Job created before it may be
   * gpuops's without a record; one created after it never is. Null when the migration is not recorded.
   */
  recordingSince: string | null;
}

/**
 * How long a record is kept (ms): 90 days, far past the longest benchmark run a policy allows, so a
 * Job is always followed before its record goes. Older records go with every new one.
 */
export const BENCHMARK_JOB_UID_RETENTION_MS = 90 * 24 * 3600 * 1000;

/** The id of the migration that made the table. */
export const BENCHMARK_JOB_UIDS_MIGRATION = 10;

/** Insert or replace the record of (namespace, job_name) (placeholders `?`; PostgreSQL numbers them). */
export const UPSERT_BENCHMARK_JOB_UID = `INSERT INTO benchmark_job_uids (namespace, job_name, uid, at, at_ms) VALUES (?, ?, ?, ?, ?)
  ON CONFLICT (namespace, job_name) DO UPDATE SET uid = excluded.uid, at = excluded.at, at_ms = excluded.at_ms`;

/** Delete the records made before a time (placeholder: epoch ms). */
export const TRIM_BENCHMARK_JOB_UIDS = 'DELETE FROM benchmark_job_uids WHERE at_ms < ?';

/** The uid of one Job and the table's making, in one row (placeholders: namespace, job name, migration id). */
export const SELECT_BENCHMARK_JOB_OWNER = `SELECT
  (SELECT uid FROM benchmark_job_uids WHERE namespace = ? AND job_name = ?) AS uid,
  (SELECT applied_at FROM schema_migrations WHERE id = ?) AS recording_since`;
