/**
 * The pools step (pure): the cluster as Git wants it labelled, then every node's desired pool.
 */
import type { NodeInfo, Snapshot } from '../cluster/index.js';
import type { ProductNeed, PoolAssignment } from '../pools/index.js';
import type { Policy } from '../definitions/index.js';
import { plainLookups, type PlanLookups } from './lookups.js';
import type { GitModel } from './git-model.js';

/** Result of {@link planPools}. */
export interface PoolsStep {
  /** The snapshot's nodes with the pool Git gives them (Git is the desired state). */
  nodes: NodeInfo[];
  /** The snapshot with those nodes: what the later steps judge capacity on. */
  snapshot: Snapshot;
  /** One assignment per node of the snapshot (`assignPools`). */
  pools: PoolAssignment[];
  /**
   * The snapshot with this pass's answer for every node: the pool its assignment gives it (`to`;
   * null: none). What every later rule of the pass judges capacity on, so a node this pass takes
   * out of `unused` (a foreign workload, a new test node) is never also the unused node a
   * scale-up moves.
   */
  decided: Snapshot;
}

/**
 * Overlays the pool label of each node manifest in Git on the observed nodes (a relabel merged
 * but not yet applied is not proposed back), then assigns pools, and adds a test node of each GPU
 * product an algorithm with a due benchmark names (`coverTestProducts`).
 * @param runningBenchmarks test nodes running a benchmark now (never released from `test`)
 * @param productNeeds algorithms with `spec.gpu.product` whose benchmark is due
 * @param lookups `overlay` and `answer` give a node its pool (a reconciler's: the same object pass to
 *   pass while its pool stays, so indexes over it stay); `assignments` assigns them
 *   (`poolAssignments`; a reconciler's keeps the answer while its input stays)
 */
export function planPools(
  observed: Snapshot,
  git: Pick<GitModel, 'nodePools'>,
  policy: Policy,
  runningBenchmarks: readonly string[] = [],
  productNeeds: readonly ProductNeed[] = [],
  lookups: Pick<PlanLookups, 'overlay' | 'answer' | 'assignments'> = plainLookups,
): PoolsStep {
  const nodes = observed.nodes.map((n) => {
    const pool = git.nodePools.get(n.name);
    if (pool === undefined) return n;
    return lookups.overlay(n, pool);
  });
  const snapshot: Snapshot = { ...observed, nodes };
  const pools = lookups.assignments({ nodes, pools: policy.spec.pools, runningBenchmarks, productNeeds });
  return { nodes, snapshot, pools, decided: withAnswers(snapshot, pools, lookups) };
}

/**
 * The snapshot whose nodes carry the pool of their assignment (`to`): one answer per node for the
 * whole pass. A node whose answer is its pool already is the same object (indexes over it stay);
 * a changed node is `lookups.answer`'s.
 */
export function withAnswers(
  snapshot: Snapshot,
  pools: readonly PoolAssignment[],
  lookups: Pick<PlanLookups, 'answer'> = plainLookups,
): Snapshot {
  const to = new Map(pools.map((a) => [a.node, a.to]));
  let changed = false;
  const nodes = snapshot.nodes.map((n) => {
    const pool = to.get(n.name);
    if (pool === undefined || pool === n.pool) return n;
    changed = true;
    return lookups.answer(n, pool);
  });
  return changed ? { ...snapshot, nodes } : snapshot;
}
