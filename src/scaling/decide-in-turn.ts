import type { Pool, Policy } from '../definitions/types.js';
import { afterClaim, claimsOf, type Claim } from './claims.js';
import { decideOne, decideOneTimed } from './decide-one.js';
import {
  nextLog,
  ownRecords,
  poolDigests,
  reusable,
  type DecisionEntry,
  type DecisionMemo,
} from './decision-memo.js';
import { sampledLoadGpus } from './rules/headroom.js';
import { scalingFacts } from './rules/facts.js';
import type { NodeCapacity, ScalingDecision, ScalingInput } from './types.js';

/**
 * Decides for many algorithms in one pass against one shared view of capacity (pure): sorted by
 * name, each decision's new and not-yet-bound pods take their GPUs, cpu, memory and pod slots
 * (`claimsOf`) and relabelled
 * nodes join the pool before the next algorithm is decided, so two algorithms never claim the same
 * GPUs or the same unused node. `capacity` is every GPU node (see `nodeCapacity`); the inputs'
 * `poolNodes`/`unusedNodes` are filled from it; with a required GPU product (`products.required`:
 * the Deployment's node affinity) only the pool's nodes of those products are its `poolNodes`, as
 * its pods can run nowhere else. The caller's `capacity` is not changed.
 *
 * With `scaling.sizing: headroom` the headroom is shared across each pool: every algorithm's
 * `poolLoadGpus` is the summed sampled load of the algorithms pinned to its pool (see
 * `poolLoads`), so the pool carries β·√(sum) spare rather than the sum of β·√(each).
 *
 * With `memo` (a long-running reconciler's, `createDecisionMemo()`), an algorithm whose inputs and
 * view of capacity did not move since its kept decision, and whose time-based rules have not
 * expired, gets that decision again and its claims are taken again (`decision-memo.ts`); the
 * answer is the same as without a memo (`decision-memo.test.ts`).
 */
export function decideInTurn(
  inputs: readonly Omit<ScalingInput, 'poolNodes' | 'unusedNodes'>[],
  capacity: readonly NodeCapacity[],
  policy: Policy,
  now: Date,
  memo?: DecisionMemo,
): ScalingDecision[] {
  const nowMs = now.getTime();
  // With a memo: each pool's capacity as the pass began, and every claim or move made on it since.
  const digests = memo ? poolDigests(memo, capacity) : null;
  const logs = new Map<Pool | null, string>();
  const log = (pool: Pool | null, what: string) => logs.set(pool, nextLog(logs.get(pool) ?? '', what));
  const room = (pool: Pool | null) =>
    `${digests!.get(pool) ?? ''}|${logs.get(pool) ?? ''}\n${digests!.get('unused') ?? ''}|${logs.get('unused') ?? ''}`;
  const kept = new Map<string, DecisionEntry>();
  let reused = 0;
  const ledger = new Map<string, NodeCapacity>();
  const byPool = new Map<Pool | null, NodeCapacity[]>();
  for (const n of capacity) {
    const copy = { ...n };
    ledger.set(n.node, copy);
    const list = byPool.get(n.pool);
    if (list) list.push(copy);
    else byPool.set(n.pool, [copy]);
  }
  const loads = policy.spec.scaling.sizing === 'headroom' ? poolLoads(inputs, policy, now) : null;
  const sorted = [...inputs].sort((a, b) => (a.algorithm.name < b.algorithm.name ? -1 : 1));
  const out: ScalingDecision[] = [];
  // The pool's nodes of a product set, shared by the algorithms asking for the same (the same
  // objects as `byPool`'s, so claims show through); rebuilt after a relabel moves a node.
  const onPool = new Map<string, NodeCapacity[]>();
  const poolNodesOf = (pool: Pool | null, products: ScalingInput['products']): NodeCapacity[] => {
    if (pool === null) return [];
    const nodes = byPool.get(pool) ?? [];
    if (!products?.required) return nodes;
    const key = `${pool}\0${products.products.join('\0')}`;
    let list = onPool.get(key);
    if (list === undefined) onPool.set(key, (list = onProducts(nodes, products)));
    return list;
  };
  for (const partial of sorted) {
    const input: ScalingInput = {
      ...partial,
      poolNodes: poolNodesOf(partial.pool, partial.products),
      unusedNodes: byPool.get('unused') ?? [],
      ...(loads !== null && partial.pool !== null ? { poolLoadGpus: loads.get(partial.pool) ?? 0 } : {}),
    };
    let decision: ScalingDecision;
    let claims: Claim[];
    if (memo) {
      const name = partial.algorithm.name;
      const o = { room: room(partial.pool), records: ownRecords(partial.recent, name) };
      const last = memo.decisions.get(name);
      if (reusable(last, input, { ...o, policy, nowMs })) {
        ({ decision, claims } = last);
        kept.set(name, last);
        reused++;
      } else {
        const timed = decideOneTimed(input, policy, now);
        decision = timed.decision;
        claims = claimsOf(input, decision);
        const { algorithm, pods } = partial;
        kept.set(name, {
          ...o,
          input: {
            ...partial,
            ...(input.poolLoadGpus !== undefined ? { poolLoadGpus: input.poolLoadGpus } : {}),
          },
          policy,
          algorithm,
          pods,
          decision,
          claims,
          decidedAtMs: nowMs,
          clock: timed.clock,
        });
      }
    } else {
      decision = decideOne(input, policy, now);
      claims = claimsOf(input, decision);
    }
    if (decision.action === 'relabel' && partial.pool !== null) {
      onPool.clear();
      for (const name of decision.nodes) {
        const n = ledger.get(name)!;
        if (memo) {
          log('unused', `-${name}`);
          log(partial.pool, `+${name}`);
        }
        byPool.set(
          'unused',
          byPool.get('unused')!.filter((x) => x !== n),
        );
        n.pool = partial.pool;
        byPool.set(partial.pool, [...(byPool.get(partial.pool) ?? []), n]);
      }
    }
    for (const c of claims) {
      const n = ledger.get(c.node)!;
      if (memo) log(n.pool, `${c.node}:${c.pods}x${JSON.stringify(c.request)}`);
      Object.assign(n, afterClaim(n, c));
    }
    out.push(decision);
  }
  if (memo) Object.assign(memo, { decisions: kept, reused });
  return out;
}

/**
 * The summed sampled load (GPUs) of the algorithms pinned to each pool, as headroom sizing reads
 * each one's (`sampledLoadGpus`: Σ utilisation / 100 × GPUs per pod of its sampled Ready pods).
 * Algorithms not placed (pool null) share with no one.
 */
export function poolLoads(
  inputs: readonly Omit<ScalingInput, 'poolNodes' | 'unusedNodes'>[],
  policy: Policy,
  now: Date,
): Map<Pool, number> {
  const out = new Map<Pool, number>();
  for (const i of inputs) {
    if (i.pool === null) continue;
    const f = scalingFacts({ ...i, poolNodes: [], unusedNodes: [] }, policy, now);
    out.set(i.pool, (out.get(i.pool) ?? 0) + sampledLoadGpus(f));
  }
  return out;
}

/** The nodes its pods may run on: with a required product only those of it (same objects), else all. */
function onProducts(nodes: NodeCapacity[], products: ScalingInput['products']): NodeCapacity[] {
  if (!products?.required) return nodes;
  const allowed = new Set(products.products);
  return nodes.filter((n) => n.gpuProduct !== null && allowed.has(n.gpuProduct));
}
