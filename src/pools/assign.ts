import { migSingleProfile } from '../cluster/mig.js';
import { gpuSharing } from '../cluster/snapshot.js';
import type { GpuSharing, NodeInfo } from '../cluster/index.js';
import type { Pool, PolicySpec } from '../definitions/index.js';
import { ineligibility, isHealthy, migOnlyMessage, unhealthyState } from './eligibility.js';
import type { PoolAssignment } from './types.js';
import { vendorById } from '../util/index.js';

/** The part of the policy pools depend on (any `Policy` fits). */
export interface PoolPolicy {
  spec: { pools: PolicySpec['pools'] };
}

/** Options of {@link assignPools}. */
export interface AssignOptions {
  /** Names of nodes running a benchmark now (from the benchmark runner); such test nodes are never released. */
  runningBenchmarks?: string[];
}

/** Group key of nodes without their vendor's product label when the policy asks for one test node per product. */
export const UNKNOWN_PRODUCT = '(unknown product)';

/**
 * Decides the desired pool of every node of the snapshot (pure, deterministic; ties by node name;
 * reads its nodes alone).
 * Returns one {@link PoolAssignment} per node, in snapshot order, each with a machine reason and a
 * human message. The rules (docs/design.md, "The method", step 1; the traps of real clusters,
 * `test/fixtures/cluster-mixed/README.md`):
 *
 * - A node without a pool joins one only when eligible (see `ineligibility`): otherwise `to: null`
 *   with `NoGPU`, `MIGOnly`, `NoAllocatableGPU`, `NotReady`, `Cordoned`, `Leaving` (Cluster
 *   Autoscaler / Karpenter remove it), `Tainted` or `ForeignWorkload`. A node of `unused` that is
 *   leaving or tainted stays `unused` (`KeepPool`) with no capacity: never a test node, never moved.
 * - A node whose device plugin runs MIG's single strategy (`migSingleProfile`: its `nvidia.com/gpu`
 *   are MIG devices) is in no pool: a benchmark on a slice is no run time for whole-GPU placement,
 *   and a whole-GPU pod selecting the pool would get a slice there. One already in a pool leaves it
 *   (`MIGOnly`) once no benchmark or gpuops pod runs there (`InUse` until then). A node with the
 *   mixed strategy keeps its whole GPUs (`nvidia.com/gpu` beside the `nvidia.com/mig-*` resources).
 * - A node whose GPUs are shared (time-slicing / MPS, see `gpuSharing`) is never a test node: a run
 *   time measured on a shared GPU is no measurement. It can be `unused` and move into a task pool.
 *   An idle shared test node goes back to `unused` (`SharedGPU`). Its entry carries `shared`.
 * - Membership is stable: a node keeps its pool while NotReady, cordoned or without allocatable
 *   GPUs (`KeepPool`), offering no capacity meanwhile; labels are never churned.
 * - `test` / `unused` nodes whose GPUs are held by pods gpuops does not manage leave the pool
 *   (`ForeignWorkload`), unless gpuops pods run there (`InUse`).
 * - The test pool holds `pools.test.size` healthy nodes of each GPU vendor (`NodeInfo.vendor`: a
 *   benchmark asking `amd.com/gpu` runs only on an AMD node), or one per GPU product with
 *   `pools.test.perGPUProduct`; messages name the vendor when the fleet has more than one. Missing test nodes come from eligible, idle unlabelled or `unused`
 *   nodes, by name (`TestPool`, or `ReplacedTestNode` when an unhealthy test node is being
 *   replaced). Surplus healthy test nodes that run no benchmark and no gpuops pod go back to
 *   `unused` (`SurplusTestNode`); busy ones stay (`InUse`).
 * - `long-task` / `short-task` nodes keep their pool (`KeepPool`): a node running gpuops pods is
 *   never taken from its pool.
 * - Every other eligible node is `unused` (`Unused`).
 */
export function assignPools(
  snapshot: { readonly nodes: readonly NodeInfo[] },
  policy: PoolPolicy,
  opts: AssignOptions = {},
): PoolAssignment[] {
  const running = new Set(opts.runningBenchmarks);
  const decided = new Map<string, PoolAssignment>();
  const ctx: AssignContext = {
    labelKey: policy.spec.pools.labelKey,
    busy: (n) => running.has(n.name) || n.managedPods > 0,
    set: (n, to, reason, message) => {
      const shared = gpuSharing(n);
      decided.set(n.name, { node: n.name, from: n.pool, to, reason, message, ...(shared ? { shared } : {}) });
    },
    isDecided: (n) => decided.has(n.name),
  };

  // 1. Nodes outside the test pool's arithmetic; collect candidates and test nodes per group.
  const { perGPUProduct, size } = policy.spec.pools.test;
  // Test nodes are counted per vendor: a benchmark asking `amd.com/gpu` runs only on an AMD test node.
  const groupOf = (n: NodeInfo) =>
    perGPUProduct ? (n.gpuProduct ?? UNKNOWN_PRODUCT) : vendorById(n.vendor).displayName;
  const groups = new Map<string, TestGroup>();
  const group = (key: string) => {
    let g = groups.get(key);
    if (!g) {
      g = { target: perGPUProduct ? 1 : size, test: [], candidates: [] };
      groups.set(key, g);
    }
    return g;
  };

  // Node names are unique in a cluster: no tie to break.
  const nodes = [...snapshot.nodes].sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const n of nodes) {
    const role = sortNode(n, ctx);
    if (role === 'test') group(groupOf(n)).test.push(n);
    else if (role === 'candidate') group(groupOf(n)).candidates.push(n);
  }

  // 2. The test pool, group by group.
  // Groups are independent of each other: any order gives the same decisions.
  const vendors = new Set(nodes.filter((n) => n.gpuAllocatable > 0).map((n) => vendorById(n.vendor)));
  for (const [key, g] of groups) {
    assignTestGroup(g, perGPUProduct || vendors.size > 1 ? ` for ${key}` : '', ctx);
  }

  return snapshot.nodes.map((n) => decided.get(n.name)!);
}

/** What the helpers of {@link assignPools} share: the policy's label key, who is busy, and the decision sink. */
interface AssignContext {
  /** The policy's pool label key (`pools.labelKey`). */
  labelKey: string;
  /** True when a benchmark or a gpuops pod runs on the node: such a node is never taken from its pool. */
  busy: (n: NodeInfo) => boolean;
  /** Records the node's decision (the last one recorded wins). */
  set: (n: NodeInfo, to: Pool | null, reason: PoolAssignment['reason'], message: string) => void;
  /** True once the node has a decision. */
  isDecided: (n: NodeInfo) => boolean;
}

/** Nodes of one test-pool group (one vendor, or one GPU product): how many test nodes it wants, and who could be one. */
interface TestGroup {
  /** Test nodes wanted in this group: `pools.test.size`, or 1 per GPU product. */
  target: number;
  /** Nodes labelled `test` now, healthy or not. */
  test: NodeInfo[];
  /** Eligible nodes (unlabelled, or idle `unused`) that may become test nodes; the rest end `unused`. */
  candidates: NodeInfo[];
}

const sharedNote = (n: NodeInfo, s: GpuSharing) =>
  `shared GPUs (${s.strategy}, ${s.physicalGpus} physical advertised as ${n.gpuAllocatable})`;

/**
 * Step 1 for one node: decides it now (ineligible, leaving its pool, or keeping a task pool), or
 * leaves it to its group's test-pool arithmetic as a current test node (`'test'`) or a possible
 * one (`'candidate'`).
 */
function sortNode(n: NodeInfo, ctx: AssignContext): 'decided' | 'test' | 'candidate' {
  const why = ineligibility(n, ctx.labelKey);
  if (n.pool === null) {
    if (!why) return 'candidate';
    ctx.set(n, null, why.reason, why.message);
    return 'decided';
  }
  if (leavesPool(n, ctx)) return 'decided';
  if (n.pool === 'test') return 'test';
  if (n.pool === 'unused' && !why && !ctx.busy(n)) return 'candidate';
  const state = unhealthyState(n, ctx.labelKey);
  ctx.set(n, n.pool, 'KeepPool', `stays ${n.pool}${state ? `; ${state}, offers no capacity` : ''}`);
  return 'decided';
}

/**
 * Decides a labelled node that no longer belongs in its pool: a `test` / `unused` node whose GPUs
 * are held by foreign pods (`ForeignWorkload`), a node whose GPUs are MIG slices (`MIGOnly`), a test
 * node whose GPUs are shared (`SharedGPU`) — each `InUse` instead while a benchmark or gpuops pod
 * runs there. Returns true when it decided the node.
 */
function leavesPool(n: NodeInfo, ctx: AssignContext): boolean {
  const { busy, set } = ctx;
  if ((n.pool === 'test' || n.pool === 'unused') && n.foreignGpuRequested > 0) {
    const foreign = `${n.foreignGpuRequested} GPUs held by pods gpuops does not manage`;
    if (busy(n)) {
      set(n, n.pool, 'InUse', `${foreign}, but gpuops pods run here: stays ${n.pool} until they finish`);
    } else {
      set(n, null, 'ForeignWorkload', `${foreign}: leaves the ${n.pool} pool`);
    }
    return true;
  }
  if (migSingleProfile(n.labels) !== null) {
    if (busy(n))
      set(
        n,
        n.pool,
        'InUse',
        `${migOnlyMessage(n)}; a benchmark or gpuops pod runs here: stays ${n.pool} until it ends`,
      );
    else set(n, null, 'MIGOnly', `${migOnlyMessage(n)}: leaves the ${n.pool} pool`);
    return true;
  }
  const sharing = gpuSharing(n);
  if (n.pool === 'test' && sharing) {
    if (busy(n))
      set(
        n,
        'test',
        'InUse',
        `${sharedNote(n, sharing)}: no test node, but a benchmark or gpuops pod runs here: stays test until it ends`,
      );
    else
      set(
        n,
        'unused',
        'SharedGPU',
        `${sharedNote(n, sharing)}: a run time measured there is no measurement; back to unused`,
      );
    return true;
  }
  return false;
}

/**
 * Step 2 for one group: keeps up to `target` healthy test nodes (busy ones first), releases idle
 * surplus ones, fills what is missing from idle unshared candidates by name (replacing unhealthy
 * test nodes first), and makes every other candidate `unused`. `scope` is the group's suffix in
 * messages (`" for NVIDIA"`, or empty in a single-vendor fleet).
 */
function assignTestGroup(g: TestGroup, scope: string, ctx: AssignContext): void {
  const { busy, set, labelKey } = ctx;
  const healthy = g.test.filter(isHealthy);
  const unhealthy = g.test.filter((n) => !isHealthy(n));
  const kept = keepTestNodes(healthy, g.target, scope, ctx);
  const missing = Math.max(0, g.target - kept.length);
  const idle = g.candidates.filter((n) => !busy(n) && !gpuSharing(n));
  const chosen = idle.slice(0, missing);
  chosen.forEach((n, i) => {
    const replaced = unhealthy[i];
    if (replaced) {
      set(
        n,
        'test',
        'ReplacedTestNode',
        `becomes test${scope}, replacing ${replaced.name} (${unhealthyState(replaced, labelKey)})`,
      );
    } else {
      set(n, 'test', 'TestPool', `becomes test${scope}: ${kept.length + i + 1} of ${g.target} test nodes`);
    }
  });
  unhealthy.forEach((n, i) => {
    const by = chosen[i];
    const replacement = by ? `, replaced by ${by.name}` : ', no healthy node can replace it';
    set(
      n,
      'test',
      'KeepPool',
      `stays test; ${unhealthyState(n, labelKey)}, offers no capacity${replacement}`,
    );
  });
  for (const n of g.candidates) if (!ctx.isDecided(n)) settleUnused(n, ctx);
}

/**
 * Keeps the first `target` healthy test nodes, busy ones first (the sort is stable, so by name
 * within each: the nodes were taken in name order); a surplus node goes back to `unused`
 * (`SurplusTestNode`) unless busy (`InUse`). Returns the kept nodes.
 */
function keepTestNodes(healthy: NodeInfo[], target: number, scope: string, ctx: AssignContext): NodeInfo[] {
  const { busy, set } = ctx;
  const ordered = [...healthy].sort((a, b) => Number(busy(b)) - Number(busy(a)));
  const kept = ordered.slice(0, target);
  for (const n of kept) set(n, 'test', 'KeepPool', `stays test${scope}`);
  for (const n of ordered.slice(target)) {
    if (busy(n)) {
      set(
        n,
        'test',
        'InUse',
        `surplus test node${scope}, but a benchmark or gpuops pod runs here: stays test`,
      );
    } else {
      set(n, 'unused', 'SurplusTestNode', `surplus test node${scope} (${target} wanted): back to unused`);
    }
  }
  return kept;
}

/** An eligible node not chosen as a test node: stays (`KeepPool`) or becomes (`Unused`) `unused`. */
function settleUnused(n: NodeInfo, ctx: AssignContext): void {
  const sharing = gpuSharing(n);
  const note = sharing ? `; ${sharedNote(n, sharing)}, never a test node` : '';
  if (n.pool === 'unused') ctx.set(n, 'unused', 'KeepPool', `stays unused${note}`);
  else
    ctx.set(
      n,
      'unused',
      'Unused',
      `eligible (${n.gpuAllocatable} GPU${n.gpuAllocatable === 1 ? '' : 's'} allocatable): unused${note}`,
    );
}
