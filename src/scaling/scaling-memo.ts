/**
 * Memo tables of the scaling step that a long-running reconciler keeps from pass to pass (pure:
 * every entry is a function's result for the same input, so a hit changes no decision). The
 * watch-driven cache hands out the same arrays while nothing changed (`ClusterCache.snapshot`),
 * so the indexes over them are keyed by the arrays themselves and built again only when the cache
 * hands out a new one. Weak keys: an array no pass holds any more is dropped with its index.
 */
import { ownerIndex, type OwnerIndex } from '../cluster/owners.js';
import type { NodeInfo, PodInfo, ReplicaSetInfo, Snapshot } from '../cluster/types.js';
import { nodeCapacity } from './capacity.js';
import { createDecisionMemo, sameItems, type DecisionMemo } from './decision-memo.js';
import type { LayoutMemo } from './pod-layout.js';
import type { NodeCapacity } from './types.js';

/** See the module comment. */
export interface ScalingMemo {
  /** Pod → ReplicaSet → Deployment, by the snapshot's ReplicaSets array. */
  owners: WeakMap<readonly ReplicaSetInfo[], OwnerIndex>;
  /** Pods by `namespace/name`, by pods array. */
  podIndex: WeakMap<readonly PodInfo[], ReadonlyMap<string, PodInfo>>;
  /** Each Deployment's pods (`namespace/deployment`), by pods array and the owner index used. */
  podsByDeployment: WeakMap<readonly PodInfo[], { owners: OwnerIndex; pods: Map<string, PodInfo[]> }>;
  /** Each observed node with the pool Git gives it (`planPools`), by the observed node object. */
  overlays: WeakMap<NodeInfo, NodeInfo>;
  /** Each of those nodes with the pool this pass's assignment gives it, when that differs (`withAnswers`). */
  answers: WeakMap<NodeInfo, NodeInfo>;
  /** The decisions kept for the algorithms whose inputs did not move (`decideInTurn`). */
  decisions: DecisionMemo;
  /** The last pass's pod layout for the placers (`layoutOf`). */
  layout: LayoutMemo;
  /** The last `nodeCapacity`: its pods array, its nodes (compared one by one) and the answer. */
  capacity?: { pods: readonly PodInfo[]; nodes: readonly NodeInfo[]; out: readonly NodeCapacity[] };
}

/** Empty memo tables. */
export function createScalingMemo(): ScalingMemo {
  return {
    owners: new WeakMap(),
    podIndex: new WeakMap(),
    podsByDeployment: new WeakMap(),
    overlays: new WeakMap(),
    answers: new WeakMap(),
    decisions: createDecisionMemo(),
    layout: { built: 0 },
  };
}

/** `ownerIndex(replicaSets)`, kept per array when `memo` is given. */
export function ownersOf(replicaSets: readonly ReplicaSetInfo[] | undefined, memo?: ScalingMemo): OwnerIndex {
  if (!memo || !replicaSets) return ownerIndex(replicaSets);
  let index = memo.owners.get(replicaSets);
  if (!index) memo.owners.set(replicaSets, (index = ownerIndex(replicaSets)));
  return index;
}

/** Pods by `namespace/name` (the last of a repeated key wins), kept per array when `memo` is given. */
export function podIndexOf(pods: readonly PodInfo[], memo?: ScalingMemo): ReadonlyMap<string, PodInfo> {
  let index = memo?.podIndex.get(pods);
  if (index) return index;
  const built = new Map<string, PodInfo>();
  for (const p of pods) built.set(`${p.namespace}/${p.name}`, p);
  memo?.podIndex.set(pods, built);
  return (index = built);
}

/**
 * The pods of each Deployment, keyed `namespace/deployment`, in snapshot order: the managed pods
 * its own ReplicaSets own (`owners.deploymentOf`), whatever labels other pods carry; pods that no
 * Deployment owns are left out. Kept per pods array and owner index when `memo` is given.
 */
export function podsByDeployment(
  pods: readonly PodInfo[],
  owners: OwnerIndex,
  memo?: ScalingMemo,
): ReadonlyMap<string, readonly PodInfo[]> {
  const kept = memo?.podsByDeployment.get(pods);
  if (kept?.owners === owners) return kept.pods;
  const out = new Map<string, PodInfo[]>();
  for (const p of pods) {
    const deployment = p.managed ? owners.deploymentOf(p) : null;
    if (deployment === null) continue;
    const key = `${p.namespace}/${deployment}`;
    const list = out.get(key);
    if (list) list.push(p);
    else out.set(key, [p]);
  }
  memo?.podsByDeployment.set(pods, { owners, pods: out });
  return out;
}

/**
 * `nodeCapacity` of the snapshot, kept while the pods array and every node object are the same
 * as last time (the caller never changes the answer's records: `decideInTurn` copies them).
 */
export function capacityOf(
  snapshot: Pick<Snapshot, 'nodes' | 'pods'>,
  memo?: ScalingMemo,
): readonly NodeCapacity[] {
  const last = memo?.capacity;
  if (last && last.pods === snapshot.pods && sameItems(last.nodes, snapshot.nodes)) return last.out;
  const out = nodeCapacity(snapshot);
  if (memo) memo.capacity = { pods: snapshot.pods, nodes: snapshot.nodes, out };
  return out;
}
