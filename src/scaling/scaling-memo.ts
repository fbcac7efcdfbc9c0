/**
 * The scaling step's part of a reconciler's memory (pure: every entry is a function's result for
 * the same input, so a hit changes no decision), and the {@link ScalingLookups} built on it. The
 * watch-driven cache hands out the same arrays while nothing changed (`ClusterCache.snapshot`), so
 * the indexes over them are keyed by the arrays themselves and built again only when the cache
 * hands out a new one. Weak keys: an array no pass holds any more is dropped with its index.
 */
import { ownerIndex, type OwnerIndex } from '../cluster/owners.js';
import type { NodeInfo, PodInfo, ReplicaSetInfo, Snapshot } from '../cluster/index.js';
import type { Pool } from '../definitions/index.js';
import { nodeCapacity } from './capacity.js';
import { createDecisionMemo, rememberingDecider, type DecisionMemo } from './decision-memo.js';
import { createInputMemo, type InputMemo } from './kept-inputs.js';
import { podIndexOf, podsByDeployment, sameItems, type ScalingLookups } from './lookups.js';
import { podLayout, type PodLayout } from './pod-layout.js';
import { createSeriesMemo, type SeriesMemo } from './series-identity.js';
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
  /** The decisions kept for the algorithms whose inputs did not move (`rememberingDecider`). */
  decisions: DecisionMemo;
  /** The last pass's pod layout for the placers, and how many were built (its token counts them). */
  layout: {
    last?: { nodes: readonly NodeInfo[]; pods: readonly PodInfo[]; labelKey: string; out: PodLayout };
    built: number;
  };
  /** Each algorithm's last scaling input and what it was built from (`kept-inputs.ts`). */
  inputs: InputMemo;
  /** The identities of each signal's last read series, by `signalKey` (`series-identity.ts`). */
  series: Map<string, SeriesMemo>;
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
    inputs: createInputMemo(),
    series: new Map(),
  };
}

/** The {@link ScalingLookups} over `memo`: each answer is the plain one's, kept while its input stays. */
export function rememberedScaling(memo: ScalingMemo): ScalingLookups {
  return {
    owners: (replicaSets) => ownersOf(replicaSets, memo),
    podIndex: (pods) => {
      let index = memo.podIndex.get(pods);
      if (!index) memo.podIndex.set(pods, (index = podIndexOf(pods)));
      return index;
    },
    podsByDeployment: (pods, owners) => {
      const kept = memo.podsByDeployment.get(pods);
      if (kept?.owners === owners) return kept.pods;
      const out = podsByDeployment(pods, owners);
      memo.podsByDeployment.set(pods, { owners, pods: out });
      return out;
    },
    capacity: (snapshot) => capacityOf(snapshot, memo),
    layout: (snapshot, labelKey) => layoutOf(snapshot, labelKey, memo.layout),
    decider: rememberingDecider(memo.decisions),
    inputs: memo.inputs,
    seriesMemo: (signal) => {
      let kept = memo.series.get(signal);
      if (!kept) memo.series.set(signal, (kept = createSeriesMemo()));
      return kept;
    },
  };
}

/**
 * The same node with `pool`, as the same object pass to pass while the observed node and its
 * pool stay (`kind`: Git's pool overlaid, or this pass's answer), so the indexes over it stay.
 */
export function samePooled(memo: ScalingMemo, kind: 'overlays' | 'answers') {
  return (n: NodeInfo, pool: Pool | null): NodeInfo => {
    const kept = memo[kind].get(n);
    if (kept?.pool === pool) return kept;
    const pooled = { ...n, pool };
    memo[kind].set(n, pooled);
    return pooled;
  };
}

/** `ownerIndex(replicaSets)`, kept per array. */
function ownersOf(replicaSets: readonly ReplicaSetInfo[] | undefined, memo: ScalingMemo): OwnerIndex {
  if (!replicaSets) return ownerIndex(replicaSets);
  let index = memo.owners.get(replicaSets);
  if (!index) memo.owners.set(replicaSets, (index = ownerIndex(replicaSets)));
  return index;
}

/**
 * `nodeCapacity` of the snapshot, kept while the pods array and every node object are the same
 * as last time (the caller never changes the answer's records: `decideInTurn` copies them).
 */
function capacityOf(snapshot: Pick<Snapshot, 'nodes' | 'pods'>, memo: ScalingMemo): readonly NodeCapacity[] {
  const last = memo.capacity;
  if (last && last.pods === snapshot.pods && sameItems(last.nodes, snapshot.nodes)) return last.out;
  const out = nodeCapacity(snapshot);
  memo.capacity = { pods: snapshot.pods, nodes: snapshot.nodes, out };
  return out;
}

/**
 * `podLayout` of the snapshot, kept while its pods array and every node object are the same (the
 * watch cache hands out the same objects while nothing changed); its token counts the builds.
 */
function layoutOf(
  snapshot: Pick<Snapshot, 'nodes' | 'pods'>,
  labelKey: string,
  kept: ScalingMemo['layout'],
): PodLayout {
  const last = kept.last;
  if (
    last &&
    sameItems(last.nodes, snapshot.nodes) &&
    last.pods === snapshot.pods &&
    last.labelKey === labelKey
  )
    return last.out;
  const out = podLayout(snapshot, labelKey, `layout-${++kept.built}`);
  kept.last = { nodes: snapshot.nodes, pods: snapshot.pods, labelKey, out };
  return out;
}
