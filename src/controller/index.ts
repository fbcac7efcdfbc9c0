/** The runtime that runs passes: the loop, leader election and its write fence, health and metrics. */
// Re-exports written by scripts/faces.ts from what the other folders import (run it; do not edit the list).
export { createLogger } from './log.js';
export { createControllerMetrics, registerFleetGauges } from './metrics.js';
export { loggableSettings, runDefaults, startController } from './run-controller.js';
export type { RunningController } from './run-controller.js';
export { createLeaderFence, fencedHost, fencedJobs, fencedPatcher } from './write-fence.js';
