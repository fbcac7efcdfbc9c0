/** Node pools: which nodes are eligible, how they are assigned to pools, capacity, idle nodes returned. */
// Re-exports written by scripts/faces.ts from what the other folders import (run it; do not edit the list).
export { assignPools } from './assign.js';
export { freeGpus, freeWholeGpus, nodeCapacities } from './capacity.js';
export { ineligibility } from './eligibility.js';
export { desiredPoolTaint, poolTaintChanges } from './pool-taint.js';
export { coverTestProducts } from './product-test-nodes.js';
export type { ProductNeed } from './product-test-nodes.js';
export { emptySinceOf, returnIdleNodes } from './return-idle.js';
export type { PoolAssignment } from './types.js';
