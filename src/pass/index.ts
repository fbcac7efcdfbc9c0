/** One reconcile pass (`reconcileOnce`), its steps, what it reports and the write fence it calls. */
// Re-exports written by scripts/faces.ts from what the other folders import (run it; do not edit the list).
export { planWorld } from './plan.js';
export { readWorld } from './read-world.js';
export type { JudgeAt } from './read-world.js';
export { reconcileOnce } from './reconcile.js';
export type { ReconcileDeps, Reconciler, WriteFence } from './reconcile.js';
export { readWatchSignals } from './signal-readings.js';
export { directorySpecs } from './specs.js';
export { formatStandbyOutcomes } from './standby.js';
export { readBenchmarksFile, unknownRecordedNames } from './stored-inputs.js';
export type { PassResult, PassSummary } from './summary.js';
export type { WorldSources } from './world.js';
