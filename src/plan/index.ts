/** The pure plan of a pass (`planDesiredState`): from the world to files and change sets, and the reconciler memory. */
// Re-exports written by scripts/faces.ts from what the other folders import (run it; do not edit the list).
export { planDesiredState } from './desired-state.js';
export type { DesiredState, PlanOutput } from './desired-state.js';
export {
  failedCondition,
  fillFailureText,
  heldByFailedFills,
  newFillFailures,
  recordedFillFailures,
} from './fill-failure.js';
export type { FillFailure } from './fill-failure.js';
export { heldByFillHolds, listFailureHolds, newFillHolds, unlabelledHold } from './fill-hold.js';
export type { FillHold, ListError } from './fill-hold.js';
export type { GitModel } from './git-model.js';
export { invalidAlgorithms, keptForInvalidSpecs } from './invalid-specs.js';
export { createReconcilerMemory, rememberedLookups } from './memory.js';
export type { ReconcilerMemory, RememberedDecisions, RememberedRuns } from './memory.js';
export { fillKey, readsFill } from './model-cache.js';
export type { FillState, FillStates } from './model-cache.js';
export { returnIdlePools } from './pool-changes.js';
