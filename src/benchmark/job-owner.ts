/**
 * Whether a benchmark Job found under gpuops's name is one gpuops created (pure): a tenant with Job
 * rights in the namespace can create a Job of that predictable name first and make it report any
 * run time. Two checks, in order:
 * 1. the marks `renderBenchmarkJob` writes: the `app.kubernetes.io/managed-by: gpuops`,
 *    `gpuops.dev/algorithm` and `gpuops.dev/benchmark-job` labels and the full spec hash in the
 *    `gpuops.dev/spec-hash` annotation ({@link foreignJob}). Anyone can copy them (the spec hash
 *    follows from the spec in Git), so they only turn away a Job made without gpuops's shape;
 * 2. the `metadata.uid` gpuops recorded when its create made the Job (`Store.recordBenchmarkJobUid`):
 *    the API server sets it, so a Job someone else made (first, or after deleting gpuops's) has
 *    another one ({@link judgeJob}). See docs/security.md, "Benchmark Jobs".
 */
import type { JobView } from '../cluster/index.js';
import { BENCHMARK_JOB_LABEL, SPEC_HASH_ANNOTATION } from '../manifests/index.js';
import { GPUOPS, MANAGED_BY } from '../util/index.js';

/** What gpuops wrote on the Job of one run. */
export interface ExpectedJob {
  algorithm: string;
  specHash: string;
  jobName: string;
}

/**
 * Why the Job is not one gpuops created for this run (the first field that differs), or null when
 * it carries every mark gpuops writes.
 */
export function foreignJob(job: JobView, want: ExpectedJob): string | null {
  const labels = job.labels ?? {};
  const checks: [string, string | undefined, string][] = [
    [`label ${MANAGED_BY.key}`, labels[MANAGED_BY.key], MANAGED_BY.value],
    [`label ${GPUOPS.algorithm}`, labels[GPUOPS.algorithm], want.algorithm],
    [`label ${BENCHMARK_JOB_LABEL}`, labels[BENCHMARK_JOB_LABEL], want.jobName],
    [`annotation ${SPEC_HASH_ANNOTATION}`, job.annotations?.[SPEC_HASH_ANNOTATION], want.specHash],
  ];
  for (const [field, got, expected] of checks) {
    if (got !== expected)
      return `${field} is ${got === undefined ? 'missing' : JSON.stringify(got)}, gpuops writes ${JSON.stringify(expected)}`;
  }
  return null;
}

/** The message of a run whose Job gpuops will not follow. */
export function foreignJobMessage(job: JobView, why: string): string {
  return `Job ${job.namespace}/${job.name} exists but gpuops did not create it (${why}); not followed and no run time taken from it: delete it and the next pass creates gpuops's own`;
}

/**
 * What the store knows of a Job name (`Store.benchmarkJobOwner`), with `recordingSince` parsed: the
 * uid gpuops recorded when it created the Job (null: none), and since when gpuops records every
 * Job it creates (null: not known).
 */
export interface RecordedJob {
  uid: string | null;
  recordingSince: Date | null;
}

/**
 * `follow`: the Job is gpuops's; `adopt`: it is known by its marks only (made before gpuops
 * recorded uids), and its uid is to be recorded now so later passes know it by that. `refuse`:
 * never followed nor recorded as a run; `why` names the difference.
 */
export type JobVerdict = { kind: 'follow'; adopt: boolean } | { kind: 'refuse'; why: string };

/**
 * Judges a Job found under gpuops's name for one run. `recorded` null: the store keeps no uids,
 * and the marks alone decide (as before uids were kept). With a record, the Job's uid must be the
 * recorded one. Without one, gpuops did not create it since `recordingSince`: a Job created
 * before then (its `creationTimestamp` earlier, by the API server's clock against gpuops's) may
 * be gpuops's from before the upgrade and is adopted by its marks, once; one created after, or of
 * unknown age, is refused. `creationTimestamp` has whole seconds, so "before" means its whole
 * second ended by `recordingSince`. Pure.
 */
export function judgeJob(job: JobView, want: ExpectedJob, recorded: RecordedJob | null): JobVerdict {
  const marks = foreignJob(job, want);
  if (marks !== null) return { kind: 'refuse', why: marks };
  if (recorded === null) return { kind: 'follow', adopt: false };
  const got = job.uid === undefined ? 'missing' : JSON.stringify(job.uid);
  if (recorded.uid !== null) {
    if (job.uid === recorded.uid) return { kind: 'follow', adopt: false };
    return { kind: 'refuse', why: `metadata.uid is ${got}, gpuops created ${JSON.stringify(recorded.uid)}` };
  }
  const since = recorded.recordingSince;
  // creationTimestamp has whole seconds: the Job was made somewhere in [createdAt, createdAt + 1 s).
  if (
    since !== null &&
    job.uid !== undefined &&
    job.createdAt !== null &&
    job.createdAt.getTime() + 1000 <= since.getTime()
  )
    return { kind: 'follow', adopt: true };
  const made = job.createdAt === null ? 'at an unknown time' : `at ${job.createdAt.toISOString()}`;
  const from = since === null ? '' : ` since ${since.toISOString()}`;
  return {
    kind: 'refuse',
    why: `metadata.uid ${got} is not one gpuops recorded: gpuops records every Job it creates${from}, and this one was created ${made}`,
  };
}
