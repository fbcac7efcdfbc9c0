/** Benchmarks: classifying products, the benchmark Jobs and their runs, measured bands and their summaries. */
// Re-exports written by scripts/faces.ts from what the other folders import (run it; do not edit the list).
export type { BandNotProposed, BandProposal } from './band-proposal.js';
export { benchmarkBands, wantsBenchmarkBand, withProposedBands } from './benchmark-bands.js';
export type { BandProposals } from './benchmark-bands.js';
export { systemClock } from './clock.js';
export type { RunnerClock } from './clock.js';
export { loadWorkloadTemplates } from './load-templates.js';
export { benchmarkSignalReader } from './signal-sample.js';
export { specHash } from './spec-hash.js';
export { stepBenchmarks } from './step.js';
export { summarizeRuns } from './summary.js';
export type { BenchmarkProgress, TestCapacity } from './types.js';
export { waitForBenchmark } from './wait.js';
