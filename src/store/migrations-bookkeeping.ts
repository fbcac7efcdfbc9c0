/**
 * Migrations 9–11: the controller's own bookkeeping — pushed commits, benchmark Job uids and
 * benchmark signal samples.
 */
import type { Migration } from './migration-types.js';

/** Migrations 9–11, in id order (see the module comment). */
export const BOOKKEEPING_MIGRATIONS: readonly Migration[] = [
  {
    id: 9,
    name: 'pushed commits',
    // pushed_commits: the commits gpuops built and pushed to its own branches (pull-request mode),
    // recorded before each push. A commit on a gpuops branch is gpuops's when it is recorded here
    // (or is an ancestor of one that is), never by its author e-mail, which anyone who can push
    // may set (src/working-copy/commit-ledger.ts). The newest few per branch are kept.
    sql: (t) => `
CREATE TABLE pushed_commits (
  sha TEXT PRIMARY KEY,
  branch TEXT NOT NULL,
  at TEXT NOT NULL,
  at_ms ${t.ms} NOT NULL
);
CREATE INDEX pushed_commits_branch ON pushed_commits (branch, at_ms);
`,
  },
  {
    id: 10,
    name: 'benchmark job uids',
    // benchmark_job_uids: the metadata.uid of each benchmark Job gpuops's create made, by
    // (namespace, Job name). A later pass follows a Job of that name only when its uid is this one:
    // its labels and spec-hash annotation can be copied by anyone with Job rights in the namespace
    // (src/benchmark/job-owner.ts). A Job made again under the same name replaces the record;
    // records older than 90 days go (src/store/benchmark-job-uids.ts).
    sql: (t) => `
CREATE TABLE benchmark_job_uids (
  namespace TEXT NOT NULL,
  job_name TEXT NOT NULL,
  uid TEXT NOT NULL,
  at TEXT NOT NULL,
  at_ms ${t.ms} NOT NULL,
  PRIMARY KEY (namespace, job_name)
);
CREATE INDEX benchmark_job_uids_at ON benchmark_job_uids (at_ms);
`,
  },
  {
    id: 11,
    name: 'benchmark signal samples',
    // benchmark_signal_samples: the algorithm's scaling signal read for its benchmark pod while the
    // run's Job runs (one row per pass that saw it running), from the metrics source the scaler
    // uses; value NULL with the reason when the source had none. A spec with
    // `scaling.targets: fromBenchmark` gets its band proposed from them (src/benchmark/signal-at-load.ts).
    sql: (t) => `
CREATE TABLE benchmark_signal_samples (
  id ${t.id},
  algorithm TEXT NOT NULL,
  spec_hash TEXT NOT NULL,
  run INTEGER NOT NULL,
  job_name TEXT NOT NULL,
  pod TEXT NOT NULL,
  signal TEXT NOT NULL,
  unit TEXT NOT NULL,
  at TEXT NOT NULL,
  at_ms ${t.ms} NOT NULL,
  value ${t.double},
  reason TEXT
);
CREATE INDEX benchmark_signal_samples_spec ON benchmark_signal_samples (algorithm, spec_hash, at_ms);
`,
  },
];
