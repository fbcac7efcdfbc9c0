/** The demo scenario and its simulated or real backends. */
// Re-exports written by scripts/faces.ts from what the other folders import (run it; do not edit the list).
export { DEMO_FLEET_DIR } from './cluster.js';
export type { DemoCluster } from './cluster.js';
export { buildDemoDeps } from './deps.js';
export { createOrigin, mergeBranch, syncCheckout } from './git-origin.js';
export { createPrinter, formatSummary } from './print.js';
export { realDemo, scaledExamples } from './real-backend.js';
export { EXAMPLES_DIR, runDemo } from './scenario.js';
