/** The replay of a serving trace against the method, and its reports. */
// Re-exports written by scripts/faces.ts from what the other folders import (run it; do not edit the list).
export { formatAnalysis } from './analysis-text.js';
export { formatTable } from './figures.js';
export { podGroupServices, shiftedServices } from './fleet-model.js';
export type { FleetFigures } from './fleet-model.js';
export { FLEET_ENGINES, fleetText, runFleet } from './fleet-replay.js';
export type { FleetEngine, FleetNodeOptions, FleetRun } from './fleet-replay.js';
export { fleetVerdicts } from './fleet-text.js';
export { fleetEndSeconds, fleetTimelines } from './fleet-timeline.js';
export { formatLoops } from './loop-text.js';
export { progressReporter } from './progress.js';
export { DEFAULT_REPLAY_SETTINGS } from './replay-settings.js';
export type { ReplaySettings } from './replay-settings.js';
export { renderFleetReport } from './report-fleet.js';
export { renderReport } from './report.js';
export { ENGINES, runReplay } from './run-replay.js';
export type { Engine, EngineRun, ReplayResult } from './run-replay.js';
export { DEFAULT_SCORED_RESOURCES, parseScoredResources } from './scheduler-score.js';
export type { ScoredResource } from './scheduler-score.js';
export { parseServiceCsv, withServiceSeries } from './service-series.js';
export { formatSignals } from './signal-compare.js';
export { parseLatencyCsv } from './startup-latency.js';
export { syntheticDayCsv, syntheticName } from './synthetic-day.js';
export { formatVerdicts } from './targets.js';
export { groupLabels, parsePrometheusGroups } from './trace-groups.js';
export { parseTrace, sliceTrace, traceSpanSeconds } from './trace.js';
export type { Trace } from './trace.js';
export { formatVerdict } from './verdict.js';
