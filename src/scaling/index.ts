/** The scaling decision: signals, bands, headroom and fit, node choice, decisions in turn and their records. */
// Re-exports written by scripts/faces.ts from what the other folders import (run it; do not edit the list).
export { crossingSide } from './band-crossing.js';
export type { BandView, CrossingSide } from './band-crossing.js';
export { podSlots } from './capacity.js';
export { claimDecider } from './claim-decider.js';
export { claimsOf } from './claims.js';
export { watchJudgeOf, watchReading } from './crossing-watch.js';
export type { WatchedAlgorithm, Watchlist, WatchState } from './crossing-watch.js';
export { decideInTurn } from './decide-in-turn.js';
export type { Decide } from './decide-in-turn.js';
export { decideOneTimed } from './decide-one.js';
export { decideScaling } from './decide-scaling.js';
export type { AlgorithmState, DecideScalingResult } from './decide-scaling.js';
export { heldUntilMs } from './decision-memo.js';
export { toDecisionRecord } from './decision-record.js';
export { effectiveGpus, specRequest, templateRequest } from './fit.js';
export type { PodRequest } from './fit.js';
export { historySince } from './history.js';
export { podsJudged } from './judged-over.js';
export { plainLookups } from './lookups.js';
export type { ScalingLookups } from './lookups.js';
export { loopWindows } from './loop-windows.js';
export type { LoopDelays, LoopTiming } from './loop-windows.js';
export type { MetricsReport } from './metrics-report.js';
export { observedStartup } from './observed-startup.js';
export { placementPending } from './placement-pending.js';
export { claimedByAlgorithm, planStandby } from './rules/claim-actions.js';
export type { StandbyAction } from './rules/claim-actions.js';
export { gitReplicas, standbyHoldSeconds, standbyReplicas } from './rules/claim.js';
export type { StandbyOffer } from './rules/claim.js';
export { createScalingMemo, rememberedScaling, samePooled } from './scaling-memo.js';
export type { ScalingMemo } from './scaling-memo.js';
export { workloadPod } from './series-identity.js';
export { mainSignalKey, signalKey, signalOf } from './signal-reading.js';
export type {
  AlgorithmSample,
  DecisionRecord,
  HpaState,
  NodeCapacity,
  PodSample,
  ScalingDecision,
  ScalingInput,
} from './types.js';
