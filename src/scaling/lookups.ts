/**
 * The indexes the scaling step builds over a snapshot, and how it decides one algorithm, as
 * functions (pure). A one-shot command passes {@link plainLookups}: each builds its answer afresh. A
 * long-running reconciler passes the ones its memory builds (`rememberedScaling`), which give the same answers and build again only what moved: the
 * watch-driven cache hands out the same arrays and objects while nothing changed.
 */
import { ownerIndex, type OwnerIndex } from '../cluster/owners.js';
import type { PodInfo, ReplicaSetInfo, Snapshot } from '../cluster/index.js';
import { nodeCapacity } from './capacity.js';
import { decideFresh, type Decide } from './decide-in-turn.js';
import { podLayout, type PodLayout } from './pod-layout.js';
import type { InputMemo } from './kept-inputs.js';
import type { SeriesMemo } from './series-identity.js';
import type { NodeCapacity } from './types.js';

/** See the module comment. Callers only read what the functions give. */
export interface ScalingLookups {
  /** Pod → ReplicaSet → Deployment (`ownerIndex`). */
  owners(replicaSets: readonly ReplicaSetInfo[] | undefined): OwnerIndex;
  /** Pods by `namespace/name` ({@link podIndexOf}). */
  podIndex(pods: readonly PodInfo[]): ReadonlyMap<string, PodInfo>;
  /** Each Deployment's pods ({@link podsByDeployment}). */
  podsByDeployment(pods: readonly PodInfo[], owners: OwnerIndex): ReadonlyMap<string, readonly PodInfo[]>;
  /** GPU nodes with their free GPUs, cpu, memory and pod slots (`nodeCapacity`). */
  capacity(snapshot: Pick<Snapshot, 'nodes' | 'pods'>): readonly NodeCapacity[];
  /** Where the pass's pods run, for the placers (`podLayout`). */
  layout(snapshot: Pick<Snapshot, 'nodes' | 'pods'>, labelKey: string): PodLayout;
  /** The `Decide` of one `decideInTurn` over `capacity` (as the pass began). */
  decider(capacity: readonly NodeCapacity[]): Decide;
  /**
   * The series identities kept for a signal's reading between passes (`AttributeOptions.memo`,
   * by `signalKey`); absent: every series is read afresh.
   */
  seriesMemo?(signal: string): SeriesMemo;
  /**
   * Each algorithm's input kept between passes (`kept-inputs.ts`): copied with the pass's samples
   * when what it was built from is the same; absent: every input is built afresh.
   */
  inputs?: InputMemo;
}

/** Every answer built afresh: what a one-shot command uses. */
export const plainLookups: ScalingLookups = {
  owners: (replicaSets) => ownerIndex(replicaSets),
  podIndex: (pods) => podIndexOf(pods),
  podsByDeployment: (pods, owners) => podsByDeployment(pods, owners),
  capacity: (snapshot) => nodeCapacity(snapshot),
  layout: (snapshot, labelKey) => podLayout(snapshot, labelKey, 'layout-0'),
  decider: () => decideFresh,
};

/** Pods by `namespace/name` (the last of a repeated key wins). */
export function podIndexOf(pods: readonly PodInfo[]): ReadonlyMap<string, PodInfo> {
  const index = new Map<string, PodInfo>();
  for (const p of pods) index.set(`${p.namespace}/${p.name}`, p);
  return index;
}

/**
 * The pods of each Deployment, keyed `namespace/deployment`, in snapshot order: the managed pods
 * its own ReplicaSets own (`owners.deploymentOf`), whatever labels other pods have; pods that no
 * Deployment owns are left out.
 */
export function podsByDeployment(pods: readonly PodInfo[], owners: OwnerIndex): Map<string, PodInfo[]> {
  const out = new Map<string, PodInfo[]>();
  for (const p of pods) {
    const deployment = p.managed ? owners.deploymentOf(p) : null;
    if (deployment === null) continue;
    const key = `${p.namespace}/${deployment}`;
    const list = out.get(key);
    if (list) list.push(p);
    else out.set(key, [p]);
  }
  return out;
}

/** True when both arrays hold the same objects in the same order. */
export function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
