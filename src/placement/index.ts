/** Placement of algorithms on pools: GPU products and the placement decision. */
// Re-exports written by scripts/faces.ts from what the other folders import (run it; do not edit the list).
export { algorithmProducts, describeProducts } from './gpu-products.js';
export type { AlgorithmProducts, RunOnNode } from './gpu-products.js';
export { place } from './place.js';
export type { BenchmarkOutcome, Placement } from './types.js';
