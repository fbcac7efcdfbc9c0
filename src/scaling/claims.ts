/**
 * What a decision takes from the shared view of capacity (pure): the GPUs, cpu, memory and pod
 * slots its replicas not bound to a node yet will take, per node, so that `decideInTurn` deducts them
 * before the next algorithm is decided and two algorithms never count on the same free room.
 */
import { replicaRequest } from './capacity.js';
import { boundAndUnboundSurge } from './counted-pods.js';
import { replicasThatFit, takeRoom, type PodRequest } from './fit.js';
import type { NodeCapacity, ScalingDecision, ScalingInput } from './types.js';

/** Replicas claimed on one node: how many, of what request, and the GPUs they hold in all. */
export interface Claim {
  node: string;
  /** Whole GPUs (`pods × request.gpus`). */
  gpus: number;
  pods: number;
  request: PodRequest;
}

/**
 * The claims of `decision` for `input`: the replicas in Git not bound to a node yet, a rollout's
 * surge pods not bound yet (`surgePods`: they take a free GPU when one is there), plus the ones
 * it adds (`to − from`, never less than 0: a scale-down frees room only once its pods are gone),
 * each of the replica's request (`replicaRequest`), placed on the pool's nodes and the unused
 * nodes it moves in (`decision.nodes`) as the default scheduler scores nodes (LeastAllocated):
 * most free GPUs first, ties by name, never on a node where the whole request does not fit
 * (`replicasThatFit`), and with a placer (`input.placer`) only where kube-scheduler's filters
 * would put them. Pods that fit nowhere claim nothing.
 */
export function claimsOf(input: ScalingInput, decision: ScalingDecision): Claim[] {
  const request = replicaRequest(input);
  const from = decision.replicas.from;
  const { bound, unboundSurge: surging } = boundAndUnboundSurge(
    input.pods,
    from,
    input.currentReplicaSet ?? null,
  );
  const outstanding = Math.max(0, from - bound);
  const added = Math.max(0, decision.replicas.to - from);
  const count = added + outstanding + surging;
  // Most decisions in a pass place nothing: no copy of the pool's nodes for them.
  if (count === 0) return [];
  // Most claims move no node: the pool's nodes as they are, not a copy or a scan of every unused one.
  const nodes =
    decision.nodes.length === 0
      ? input.poolNodes
      : [...input.poolNodes, ...input.unusedNodes.filter((n) => decision.nodes.includes(n.node))];
  if (!input.placer) return place(nodes, request, count);
  const placed = input.placer.place(nodes, input.pool, count);
  return [...placed].map(([node, pods]) => ({ node, gpus: pods * request.gpus, pods, request }));
}

/** Predicted placement of `count` replicas of `request`: most free GPUs first, ties by name. */
export function place(nodes: readonly NodeCapacity[], request: PodRequest, count: number): Claim[] {
  const rooms = new Map(nodes.map((n) => [n.node, n as NodeCapacity]));
  const taken = new Map<string, number>();
  for (let i = 0; i < count; i++) {
    let best: NodeCapacity | null = null;
    for (const n of rooms.values()) {
      if (replicasThatFit(n, request) < 1) continue;
      if (
        best === null ||
        n.freeGpus > best.freeGpus ||
        (n.freeGpus === best.freeGpus && n.node < best.node)
      ) {
        best = n;
      }
    }
    if (best === null) break;
    rooms.set(best.node, takeRoom(best, request, 1));
    taken.set(best.node, (taken.get(best.node) ?? 0) + 1);
  }
  return [...taken].map(([node, pods]) => ({ node, gpus: pods * request.gpus, pods, request }));
}

/** The room left on `node` once `claim` is taken (a new object; `node` is not changed). */
export function afterClaim(node: NodeCapacity, claim: Claim): NodeCapacity {
  return takeRoom(node, claim.request, claim.pods);
}
