/** The database: `openStore(url)` and the record types. */
// Re-exports written by scripts/faces.ts from what the other folders import (run it; do not edit the list).
export type { BenchmarkSignalSample } from './benchmark-signals.js';
export { connectionError } from './connect-error.js';
export { decisionAsStored } from './decision-rows.js';
export { redactUrl } from './errors.js';
export { MIGRATIONS } from './migrations.js';
export { openStore } from './open-store.js';
export type { OpenStoreOptions } from './open-store.js';
export type { PushedCommit } from './pushed-commits.js';
export { statusStoreOf } from './status-store.js';
export type {
  BenchmarkRun,
  DecisionRecord,
  FleetStatusRecord,
  GitWriteRefusalRecord,
  NodeEmptiness,
  PoolTaintRecord,
  PullRequestCycle,
  PullRequestRecord,
  StatusAlgorithmEntry,
  StatusStore,
  Store,
  UtilizationSampleRecord,
} from './types.js';
