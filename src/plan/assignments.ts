/**
 * Every node's pool assignment of a pass (pure): `assignPools` on the nodes with Git's pools, then
 * a test node for each GPU product a due benchmark names (`coverTestProducts`). What `planPools`
 * assigns; apart so a reconciler can keep it (`keptAssignments` in `kept-steps.ts`).
 */
import type { NodeInfo } from '../cluster/index.js';
import { assignPools, coverTestProducts, type PoolAssignment, type ProductNeed } from '../pools/index.js';
import type { Policy } from '../definitions/index.js';

/** What {@link poolAssignments} reads, and nothing else (no clock, no pods). */
export interface AssignmentsInput {
  /** The snapshot's nodes with the pool Git gives them (`planPools`). */
  nodes: readonly NodeInfo[];
  /** The policy's `spec.pools`. */
  pools: Policy['spec']['pools'];
  /** Test nodes running a benchmark now (never released from `test`). */
  runningBenchmarks: readonly string[];
  /** Algorithms with `spec.gpu.product` whose benchmark is due (`productNeeds`). */
  productNeeds: readonly ProductNeed[];
}

/** One assignment per node, in `nodes`' order (`assignPools`, then `coverTestProducts`). */
export function poolAssignments(input: AssignmentsInput): PoolAssignment[] {
  const { nodes, pools, runningBenchmarks, productNeeds } = input;
  return coverTestProducts(
    assignPools({ nodes }, { spec: { pools } }, { runningBenchmarks: [...runningBenchmarks] }),
    nodes,
    productNeeds,
    pools.labelKey,
    runningBenchmarks,
  );
}
