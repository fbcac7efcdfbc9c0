/**
 * What a pass's scaling decisions ask of the standby sets (pure; docs/standby.md, "Claims and
 * Git"): which Ready standby pods to claim for an algorithm that scales up, and which claimed pods
 * to give back (or delete) when it scales down, as `planClaims` counts them. Read from the
 * cluster alone — a standby is a pod of the standby Deployment's ReplicaSets by their controller
 * ownerReferences, a claimed pod carries the labels and the annotation gpuops's claim wrote
 * (`standby-owners.ts`) — so a restarted gpuops finds the same claims, and a pod that only carries
 * the labels is never claimed, counted, given back nor deleted; nothing here is kept in memory or
 * in Git.
 *
 * A give-back carries the `pod-template-hash` of the standby Deployment's newest ReplicaSet (the
 * ReplicaSet controller names it `<deployment>-<hash>`), so that ReplicaSet adopts the pod; with no
 * such ReplicaSet (the standby Deployment is gone) the claimed pod is deleted instead.
 */
import type { PodInfo, ReplicaSetInfo } from '../../cluster/index.js';
import type { StandbySet } from '../../definitions/index.js';
import { CLAIMED_FROM_LABEL, claimPatch, giveBackPatch, STANDBY_LABEL } from '../../manifests/index.js';
import { GPUOPS } from '../../util/index.js';
import type { ScalingDecision } from '../types.js';
import { planClaims } from './claim.js';
import { isClaimedPod, isStandbyPod, standbyReplicaSets } from './standby-owners.js';

/**
 * One change to one pod: a claim (wake through the runtime's endpoint, then the label patch), a
 * give-back to the standby set (the label patch), or a delete. `labels` and `annotations` are the
 * JSON merge patch's `metadata` (`claimPatch`, `giveBackPatch`); `uid` and `expect` what the pod
 * must still be and carry for the change to go (what this pass saw: the same pod, still that
 * set's standby, or still that claim).
 */
export interface StandbyAction {
  kind: 'claim' | 'give-back' | 'delete';
  set: string;
  algorithm: string;
  namespace: string;
  pod: string;
  uid: string;
  labels: Record<string, string | null>;
  annotations: Record<string, string | null>;
  expect: Record<string, string>;
  /** Claims: the runtime's wake endpoint and how long it may take (the set's `claimSeconds`). */
  wake?: { port: number; path: string; timeoutSeconds: number };
}

/**
 * What {@link standbyActions} reads of the cluster. Without `replicaSets` (a stored snapshot) no
 * pod can be shown to be a standby: none is claimed, and claimed pods are deleted, not given back.
 */
export interface StandbyCluster {
  pods: readonly PodInfo[];
  replicaSets?: readonly ReplicaSetInfo[];
}

// Stryker disable next-line EqualityOperator,ConditionalExpression: equivalent; the pods compared are of one namespace, whose names are unique, so no tie; and V8's sort reads only `< 0`, so 1 and 0 order alike
const byName = (a: PodInfo, b: PodInfo) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * Ready, Running standby pods of `set` (labelled `gpuops.dev/standby: <set>` and controlled by the
 * standby Deployment's ReplicaSets, `isStandbyPod`), not being deleted, by name.
 */
export function readyStandbys(set: StandbySet, cluster: StandbyCluster): PodInfo[] {
  const replicaSets = cluster.replicaSets ?? [];
  return cluster.pods
    .filter(
      (p) =>
        p.labels[STANDBY_LABEL] === set.name &&
        p.phase === 'Running' &&
        p.ready &&
        !p.terminating &&
        isStandbyPod(set, p, replicaSets),
    )
    .sort(byName);
}

/** Pods gpuops claimed from `set` for `algorithm` (`isClaimedPod`), not being deleted, by name. */
export function claimedPods(set: StandbySet, algorithm: string, cluster: StandbyCluster): PodInfo[] {
  const replicaSets = cluster.replicaSets ?? [];
  return cluster.pods
    .filter((p) => p.algorithm === algorithm && !p.terminating && isClaimedPod(set, p, replicaSets))
    .sort(byName);
}

/** The `pod-template-hash` of the standby Deployment's newest ReplicaSet, or null when it has none. */
export function currentStandbyHash(set: StandbySet, replicaSets: readonly ReplicaSetInfo[]): string | null {
  const mine = standbyReplicaSets(set, replicaSets).sort((a, b) => (b.revision ?? 0) - (a.revision ?? 0));
  const rs = mine[0];
  const prefix = `${rs?.owner?.name ?? ''}-`;
  return rs && rs.name.startsWith(prefix) && rs.name.length > prefix.length
    ? rs.name.slice(prefix.length)
    : null;
}

/**
 * The pod changes of `decisions` for the algorithms of `sets`: per decision of an algorithm in a
 * set, `planClaims` over the set's Ready standbys (each claimed once in the pass, the decisions in
 * their order) and the algorithm's claimed pods. Algorithms in no set: nothing.
 */
export function standbyActions(
  decisions: readonly ScalingDecision[],
  sets: readonly StandbySet[],
  cluster: StandbyCluster,
): StandbyAction[] {
  const out: StandbyAction[] = [];
  const taken = new Set<string>();
  for (const d of decisions) {
    const set = sets.find((s) => s.algorithms.includes(d.algorithm));
    if (!set) continue;
    const ready = readyStandbys(set, cluster).filter((p) => !taken.has(p.name));
    const claimed = claimedPods(set, d.algorithm, cluster);
    const plan = planClaims(d, claimed.length, { ready: ready.length, claimSeconds: set.claimSeconds });
    const base = { set: set.name, algorithm: d.algorithm, namespace: set.namespace };
    for (const p of ready.slice(0, plan.claim)) {
      taken.add(p.name);
      out.push({
        kind: 'claim',
        ...base,
        pod: p.name,
        uid: p.uid,
        ...claimPatch(set, d.algorithm, p.uid).metadata,
        expect: { [STANDBY_LABEL]: set.name },
        wake: { port: set.port, path: set.wakePath, timeoutSeconds: set.claimSeconds },
      });
    }
    // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent; the hash is read only by give-backs, so reading it for none changes nothing (the test only spares the look-up)
    const hash = plan.giveBack > 0 ? currentStandbyHash(set, cluster.replicaSets ?? []) : null;
    const expect = { [CLAIMED_FROM_LABEL]: set.name, [GPUOPS.algorithm]: d.algorithm };
    for (const p of claimed.slice(0, plan.giveBack))
      out.push(
        hash === null
          ? { kind: 'delete', ...base, pod: p.name, uid: p.uid, labels: {}, annotations: {}, expect }
          : {
              kind: 'give-back',
              ...base,
              pod: p.name,
              uid: p.uid,
              ...giveBackPatch(set, hash).metadata,
              expect,
            },
      );
  }
  return out;
}

/**
 * The decisions `standbyActions` may act on while the scale pull request still carries a
 * scale-up's whole `to` (the decision's `from` is the Deployment's replicas in Git; docs/standby.md,
 * "What is built, and what is not yet"): a scale-up counts the pods the algorithm already claimed
 * (`from + claimed`) and asks only for the rest, so a claim made by an earlier pass is not made
 * again while Git and the Deployment catch up; a scale-up those claims already cover is left out,
 * never turned into a give-back. A claim bridges the cold start, so until the cold replicas come
 * Git's `to` and the claimed pods both run: the claims are capped so that `to + claimed ≤
 * maxReplicas` (`maxReplicas` by algorithm; absent: no cap), the limit the decision promised.
 * Holds and scale-downs go as they are (a scale-down gives claimed pods back first). Pure; the
 * claims are read as `claimedPods` reads them.
 */
export function outstandingClaims(
  decisions: readonly ScalingDecision[],
  sets: readonly StandbySet[],
  cluster: StandbyCluster,
  maxReplicas: ReadonlyMap<string, number> = new Map(),
): ScalingDecision[] {
  const out: ScalingDecision[] = [];
  for (const d of decisions) {
    const set = sets.find((s) => s.algorithms.includes(d.algorithm));
    if (!set || d.action !== 'scale-up') {
      out.push(d);
      continue;
    }
    const claimed = claimedPods(set, d.algorithm, cluster).length;
    const from = d.replicas.from + claimed;
    const room = (maxReplicas.get(d.algorithm) ?? Infinity) - d.replicas.to - claimed;
    const wanted = Math.min(d.replicas.to - from, room);
    if (wanted > 0) out.push({ ...d, replicas: { from, to: from + wanted } });
  }
  return out;
}
