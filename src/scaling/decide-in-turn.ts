import type { Pool, Policy } from '../definitions/index.js';
import { afterClaim, claimsOf, type Claim } from './claims.js';
import { decideOne } from './decide-one.js';
import { sampledLoadGpus } from './rules/headroom.js';
import { sampledFacts } from './rules/ready-samples.js';
import type { NodeCapacity, ScalingDecision, ScalingInput } from './types.js';

/** One algorithm's decision and the claims it makes on its nodes (`claimsOf`). */
export interface Decided {
  decision: ScalingDecision;
  claims: Claim[];
}

/**
 * Decides one algorithm at its turn in {@link decideInTurn}: called once per algorithm, in name
 * order, with its input as its turn sees capacity. Any `Decide` gives what {@link decideFresh}
 * gives for the same calls; a reconciler's may give a decision it kept (`rememberingDecider`).
 */
export type Decide = (input: ScalingInput, policy: Policy, now: Date) => Decided;

/** Decides afresh (`decideOne`) and takes the decision's claims. */
export const decideFresh: Decide = (input, policy, now) => {
  const decision = decideOne(input, policy, now);
  return { decision, claims: claimsOf(input, decision) };
};

/**
 * Decides for many algorithms in one pass against one shared view of capacity (pure): sorted by
 * name, each decision's new and not-yet-bound pods take their GPUs, cpu, memory and pod slots
 * (`claimsOf`) and relabelled nodes join the pool before the next algorithm is decided, so two
 * algorithms never claim the same GPUs or the same unused node. `capacity` is every GPU node (see
 * `nodeCapacity`); the inputs' `poolNodes`/`unusedNodes` are filled from it; with a required GPU
 * product (`products.required`: the Deployment's node affinity) only the pool's nodes of those
 * products are its `poolNodes`, as its pods can run nowhere else. The caller's `capacity` is not
 * changed.
 *
 * With `scaling.sizing: headroom` the headroom is shared across each pool: every algorithm's
 * `poolLoadGpus` is the summed sampled load of the algorithms pinned to its pool (see
 * `poolLoads`), so the pool carries β·√(sum) spare rather than the sum of β·√(each).
 *
 * `decide` decides each one (default {@link decideFresh}); a long-running reconciler passes one
 * that reuses a decision whose inputs and view of capacity did not move (`rememberingDecider`),
 * whose answer is the same (tested pass by pass against `decideFresh`).
 */
export function decideInTurn(
  inputs: readonly Omit<ScalingInput, 'poolNodes' | 'unusedNodes'>[],
  capacity: readonly NodeCapacity[],
  policy: Policy,
  now: Date,
  decide: Decide = decideFresh,
): ScalingDecision[] {
  const view = sharedView(capacity);
  const { byPool } = view;
  const loads = policy.spec.scaling.sizing === 'headroom' ? poolLoads(inputs) : null;
  const sorted = [...inputs].sort((a, b) => (a.algorithm.name < b.algorithm.name ? -1 : 1));
  const poolNodesOf = productNodes(byPool);
  return sorted.map((partial) => {
    const input: ScalingInput = {
      ...partial,
      poolNodes: poolNodesOf(partial.pool, partial.products),
      unusedNodes: byPool.get('unused') ?? [],
    };
    // Set after the copy, not spread into it: a second spread defines each field one at a time.
    if (loads !== null && partial.pool !== null) input.poolLoadGpus = loads.get(partial.pool) ?? 0;
    const { decision, claims } = decide(input, policy, now);
    if (decision.action === 'relabel' && partial.pool !== null) {
      poolNodesOf.clear();
      for (const name of decision.nodes) view.move(name, partial.pool);
    }
    for (const c of claims) {
      const [was, next] = view.claim(c);
      poolNodesOf.replace(was, next);
    }
    return decision;
  });
}

/**
 * The pass's view of capacity, copy on write: each pool's nodes are the caller's objects (no node
 * is copied in a pass where no decision claims or moves one), and a node a decision claims room
 * on or moves is replaced by a new object in its pool's list; the caller's nodes and array are
 * never changed. A claim replaces the node in place (the lists given to earlier inputs see it, as
 * they saw the copy changed before); a move takes it out of `unused` into a new list of its pool.
 */
function sharedView(capacity: readonly NodeCapacity[]) {
  const byPool = new Map<Pool | null, NodeCapacity[]>();
  for (const n of capacity) {
    const list = byPool.get(n.pool);
    if (list) list.push(n);
    else byPool.set(n.pool, [n]);
  }
  // Each node as it stands now by name; built at the first claim or move (most passes make none).
  let current: Map<string, NodeCapacity> | null = null;
  const at = (name: string) => (current ??= new Map(capacity.map((n) => [n.node, n]))).get(name)!;
  return {
    byPool,
    /** `claim` taken from its node (`afterClaim`); returns the node as it was and as it is now. */
    claim(c: Claim): [NodeCapacity, NodeCapacity] {
      const n = at(c.node);
      const next = afterClaim(n, c);
      current!.set(c.node, next);
      const list = byPool.get(n.pool)!;
      list[list.indexOf(n)] = next;
      return [n, next];
    },
    /** The unused node `name` moved into `pool`. */
    move(name: string, pool: Pool): void {
      const n = at(name);
      const next = { ...n, pool };
      current!.set(name, next);
      byPool.set(
        'unused',
        byPool.get('unused')!.filter((x) => x !== n),
      );
      byPool.set(pool, [...(byPool.get(pool) ?? []), next]);
    },
  };
}

/**
 * The pool's nodes of a product set, shared by the algorithms asking for the same (the same
 * objects as `byPool`'s); `replace(was, next)` after a claim replaced a node there, `clear()` after
 * a relabel moves a node.
 */
function productNodes(byPool: ReadonlyMap<Pool | null, NodeCapacity[]>) {
  const onPool = new Map<string, NodeCapacity[]>();
  return Object.assign(
    (pool: Pool | null, products: ScalingInput['products']): NodeCapacity[] => {
      if (pool === null) return [];
      const nodes = byPool.get(pool) ?? [];
      if (!products?.required) return nodes;
      const key = `${pool}\0${products.products.join('\0')}`;
      let list = onPool.get(key);
      if (list === undefined) onPool.set(key, (list = onProducts(nodes, products)));
      return list;
    },
    {
      clear: () => onPool.clear(),
      replace: (was: NodeCapacity, next: NodeCapacity) => {
        for (const list of onPool.values()) {
          const i = list.indexOf(was);
          if (i >= 0) list[i] = next;
        }
      },
    },
  );
}

/**
 * The summed sampled load (GPUs) of the algorithms pinned to each pool, as headroom sizing reads
 * each one's (`sampledLoadGpus`: Σ utilisation / 100 × GPUs per pod of its sampled Ready pods,
 * `sampledFacts`: only those facts, not the clock, records and texts the decision builds).
 * Algorithms not placed (pool null) share with no one.
 */
export function poolLoads(
  inputs: readonly Omit<ScalingInput, 'poolNodes' | 'unusedNodes'>[],
): Map<Pool, number> {
  const out = new Map<Pool, number>();
  for (const i of inputs) {
    if (i.pool === null) continue;
    out.set(i.pool, (out.get(i.pool) ?? 0) + sampledLoadGpus(sampledFacts(i)));
  }
  return out;
}

/** The nodes its pods may run on: with a required product only those of it (same objects), else all. */
function onProducts(nodes: NodeCapacity[], products: ScalingInput['products']): NodeCapacity[] {
  if (!products?.required) return nodes;
  const allowed = new Set(products.products);
  return nodes.filter((n) => n.gpuProduct !== null && allowed.has(n.gpuProduct));
}
