/**
 * Migration 1, the initial schema, in its table groups: snapshots with their nodes and pods,
 * benchmark runs with utilization samples, decisions with pull requests. The groups join into the
 * one text the migration has always run (its text must never change once shipped).
 */
import type { Migration, Types } from './migration-types.js';

/** Snapshots and the nodes and pods of each. */
function snapshotTables(t: Types): string {
  return `
CREATE TABLE snapshots (
  id ${t.id},
  taken_at TEXT NOT NULL,
  taken_at_ms ${t.ms} NOT NULL
);
CREATE INDEX snapshots_taken_at ON snapshots (taken_at_ms, id);

CREATE TABLE snapshot_nodes (
  snapshot_id INTEGER NOT NULL REFERENCES snapshots (id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  name TEXT NOT NULL,
  labels ${t.json} NOT NULL,
  ready ${t.bool} NOT NULL,
  cordoned ${t.bool} NOT NULL,
  schedulable ${t.bool} NOT NULL,
  gpu_product TEXT,
  gpu_capacity INTEGER NOT NULL,
  gpu_allocatable INTEGER NOT NULL,
  mig_allocatable INTEGER NOT NULL,
  gpu_requested INTEGER NOT NULL,
  foreign_gpu_requested INTEGER NOT NULL,
  managed_pods INTEGER NOT NULL,
  pool TEXT,
  taints ${t.json} NOT NULL,
  PRIMARY KEY (snapshot_id, position)
);

CREATE TABLE snapshot_pods (
  snapshot_id INTEGER NOT NULL REFERENCES snapshots (id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  namespace TEXT NOT NULL,
  name TEXT NOT NULL,
  uid TEXT NOT NULL,
  labels ${t.json} NOT NULL,
  node_name TEXT,
  phase TEXT NOT NULL,
  ready ${t.bool} NOT NULL,
  terminating ${t.bool} NOT NULL,
  gpu_request INTEGER NOT NULL,
  managed ${t.bool} NOT NULL,
  algorithm TEXT,
  owner_kind TEXT,
  owner_name TEXT,
  unschedulable ${t.bool} NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (snapshot_id, position)
);
`;
}

/** Benchmark runs and the utilization samples scaling reads. */
function benchmarkTables(t: Types): string {
  return `
CREATE TABLE benchmark_runs (
  id ${t.id},
  algorithm TEXT NOT NULL,
  spec_hash TEXT NOT NULL,
  run INTEGER NOT NULL,
  status TEXT NOT NULL,
  duration_seconds ${t.double},
  node TEXT,
  job_name TEXT NOT NULL,
  started_at TEXT NOT NULL,
  started_at_ms ${t.ms} NOT NULL,
  finished_at TEXT,
  message TEXT NOT NULL
);
CREATE INDEX benchmark_runs_algorithm ON benchmark_runs (algorithm, spec_hash, started_at_ms);

CREATE TABLE utilization_samples (
  id ${t.id},
  algorithm TEXT NOT NULL,
  namespace TEXT NOT NULL,
  pod TEXT NOT NULL,
  utilization ${t.double} NOT NULL,
  at TEXT NOT NULL,
  at_ms ${t.ms} NOT NULL
);
CREATE INDEX utilization_samples_algorithm_at ON utilization_samples (algorithm, at_ms);
CREATE INDEX utilization_samples_at ON utilization_samples (at_ms);
`;
}

/** Scaling decisions and the pull requests gpuops opened. */
function decisionTables(t: Types): string {
  return `
CREATE TABLE decisions (
  id ${t.id},
  kind TEXT NOT NULL,
  subject TEXT NOT NULL,
  action TEXT NOT NULL,
  reason TEXT NOT NULL,
  message TEXT NOT NULL,
  replicas_from INTEGER,
  replicas_to INTEGER,
  utilization ${t.double},
  at TEXT NOT NULL,
  at_ms ${t.ms} NOT NULL
);
CREATE INDEX decisions_subject_at ON decisions (subject, at_ms);

CREATE TABLE pull_requests (
  id ${t.id},
  cluster TEXT NOT NULL,
  branch TEXT NOT NULL,
  kind TEXT NOT NULL,
  subject TEXT NOT NULL,
  title TEXT NOT NULL,
  body TEXT NOT NULL,
  desired_hash TEXT NOT NULL,
  number INTEGER,
  url TEXT,
  state TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  updated_at_ms ${t.ms} NOT NULL,
  UNIQUE (cluster, branch)
);
CREATE INDEX pull_requests_cluster_updated ON pull_requests (cluster, updated_at_ms);
`;
}

/** Migration 1: the snapshot, benchmark and decision table groups (see the module comment). */
export const INITIAL_MIGRATION: Migration = {
  id: 1,
  name: 'initial schema',
  sql: (t) => snapshotTables(t) + benchmarkTables(t) + decisionTables(t),
};
