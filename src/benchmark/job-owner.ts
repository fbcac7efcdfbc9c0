/**
 * Whether a benchmark Job found under gpuops's name is one gpuops rendered (pure): a tenant with
 * Job rights in the namespace can create a Job of that predictable name first and make it report
 * any run time. gpuops follows a Job only when it carries what `renderBenchmarkJob` writes: the
 * `app.kubernetes.io/managed-by: gpuops`, `gpuops.dev/algorithm` and `gpuops.dev/benchmark-job`
 * labels and the full spec hash in the `gpuops.dev/spec-hash` annotation. Someone able to copy all
 * of them (the spec hash follows from the spec in Git) still passes: this check stops a Job made
 * without gpuops's shape, not a careful forger (see docs/security.md).
 */
import type { JobView } from '../cluster/jobs.js';
import { BENCHMARK_JOB_LABEL, SPEC_HASH_ANNOTATION } from '../manifests/benchmark-job.js';
import { GPUOPS, MANAGED_BY } from '../util/vocabulary.js';

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
