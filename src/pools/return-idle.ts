import { gpuSharing } from '../cluster/snapshot.js';
import type { NodeInfo } from '../cluster/index.js';
import type { Pool } from '../definitions/index.js';
import { isHealthy } from './eligibility.js';
import type { PoolAssignment } from './types.js';

/** The task pools a node can be moved into by a scale-up, and returned from. */
const TASK_POOLS: readonly Pool[] = ['long-task', 'short-task'];

/** Input of {@link returnIdleNodes}. Times are ISO-8601; counts are whole GPUs. */
export interface ReturnIdleInput {
  /** The pass's pool decisions (from `assignPools`), one per node. */
  assignments: readonly PoolAssignment[];
  /** The snapshot's nodes (with the pools Git holds): what runs on each node now. */
  nodes: readonly NodeInfo[];
  /** Nodes gpuops moved into a task pool → when (the Node manifest's `gpuops.dev/moved-at`). */
  moved: ReadonlyMap<string, string>;
  /**
   * Since when each node has held no GPU pod, from the stored snapshots (the first snapshot after
   * the last one that saw a GPU pod there, or the oldest stored snapshot when none did). A node
   * without an entry has no known empty history: it is not returned.
   */
  emptySince: ReadonlyMap<string, string>;
  /** Whole GPUs the pods of each pool need: Σ over its algorithms of replicas × GPUs per replica. */
  demandGpus: Partial<Record<Pool, number>>;
  /** Pools for which this pass decided a scale-up or a node move: they return nothing now. */
  scalingUp: ReadonlySet<Pool>;
  /** Policy `pools.returnAfterSeconds`. */
  returnAfterSeconds: number;
  /**
   * Why this pass's metrics may lack series (a partial answer from the store), or null: then no
   * node returns, as no algorithm scales down on such an answer (a pool's load may be hidden).
   */
  partialData?: string | null;
  now: Date;
}

/**
 * Pools shrink as well as grow (docs/design.md, "The method", step 4): else every spike ratchets
 * GPUs away from the rest of the fleet. A node of `long-task` or `short-task` goes back to `unused`
 * (`ReturnedIdle`, with `emptySeconds`) when all of these hold:
 * - gpuops moved it there (`moved`): a node a person labelled stays where they put it;
 * - it holds no GPU pod now and has held none for at least `returnAfterSeconds`, counted from the
 *   later of the move and `emptySince`. Exactly at `returnAfterSeconds` it returns (the node has
 *   then held no pod for the whole period the policy names; one second less, it stays);
 * - no scale-up or node move was decided for its pool in this pass (a pending scale-up counts on
 *   the pool's free GPUs), and the metrics store's answer was whole (`partialData`), and
 * - the pool keeps at least `demandGpus[pool]` whole GPUs on its healthy nodes without it (shared
 *   GPUs count per physical GPU).
 * Several idle nodes of one pool return longest-empty first (then by name) while the pool keeps
 * enough. A node that is empty long enough but must stay says why (`KeepPool`). Every other
 * assignment is returned unchanged. Pure: `now` is an argument.
 */
export function returnIdleNodes(input: ReturnIdleInput): PoolAssignment[] {
  const { now, returnAfterSeconds } = input;
  const byName = new Map(input.nodes.map((n) => [n.name, n]));
  const out = input.assignments.map((a) => ({ ...a }));
  const wholeGpus = (n: NodeInfo) => (isHealthy(n) ? (gpuSharing(n)?.physicalGpus ?? n.gpuAllocatable) : 0);

  for (const pool of TASK_POOLS) {
    const members = out.filter((a) => a.to === pool);
    let capacity = members.reduce(
      (sum, a) => sum + (byName.has(a.node) ? wholeGpus(byName.get(a.node)!) : 0),
      0,
    );
    const demand = input.demandGpus[pool] ?? 0;
    const idle: { a: PoolAssignment; node: NodeInfo; seconds: number; since: string }[] = [];
    for (const a of members) {
      const node = byName.get(a.node);
      const movedAt = input.moved.get(a.node);
      const empty = input.emptySince.get(a.node);
      // KeepPool: the node stays where Git has it (a node moved in this pass is not idle).
      if (!node || a.reason !== 'KeepPool') continue;
      if (node.gpuRequested > 0 || node.managedPods > 0) continue;
      // No move by gpuops, no known empty history, or a malformed time: NaN, the node stays.
      const sinceMs = Math.max(Date.parse(movedAt ?? ''), Date.parse(empty ?? ''));
      if (Number.isNaN(sinceMs)) continue;
      const seconds = Math.floor((now.getTime() - sinceMs) / 1000);
      if (seconds < returnAfterSeconds) continue;
      idle.push({ a, node, seconds, since: new Date(sinceMs).toISOString() });
    }
    idle.sort((x, y) => y.seconds - x.seconds || (x.a.node < y.a.node ? -1 : 1));
    for (const { a, node, seconds, since } of idle) {
      const empty = `no GPU pod for ${seconds} s (since ${since}; pools.returnAfterSeconds ${returnAfterSeconds})`;
      if (input.partialData) {
        a.message = `stays ${pool}: ${empty}, but ${input.partialData}: no node returns on a partial answer`;
        continue;
      }
      if (input.scalingUp.has(pool)) {
        a.message = `stays ${pool}: ${empty}, but a scale-up in ${pool} counts on its GPUs`;
        continue;
      }
      const left = capacity - wholeGpus(node);
      if (left < demand) {
        a.message = `stays ${pool}: ${empty}, but the pool's pods need ${demand} GPU(s) and ${left} would be left`;
        continue;
      }
      capacity = left;
      a.to = 'unused';
      a.reason = 'ReturnedIdle';
      a.emptySeconds = seconds;
      a.message = `${empty}; gpuops moved it into ${pool} at ${input.moved.get(a.node)}: back to unused`;
    }
  }
  return out;
}

/**
 * Since when each node that holds no GPU pod now has held none, from what the stored snapshots
 * say (`Store.nodeEmptiness`, same shape): the first snapshot after the last one that saw a GPU
 * pod there, else when the node was first seen (`firstSeen`), else the oldest stored snapshot (the
 * history reaches no further back, so the empty time is at least that). Nodes busy now, or busy
 * in the newest stored snapshot, get no entry.
 */
export function emptySinceOf(
  nodes: readonly NodeInfo[],
  history: {
    oldest: string | null;
    emptyAfterBusy: ReadonlyMap<string, string | null>;
    firstSeen?: ReadonlyMap<string, string>;
  },
): Map<string, string> {
  const out = new Map<string, string>();
  for (const n of nodes) {
    if (n.gpuRequested > 0 || n.managedPods > 0) continue;
    const since = history.emptyAfterBusy.has(n.name)
      ? history.emptyAfterBusy.get(n.name)!
      : (history.firstSeen?.get(n.name) ?? history.oldest);
    if (since !== null) out.set(n.name, since);
  }
  return out;
}
