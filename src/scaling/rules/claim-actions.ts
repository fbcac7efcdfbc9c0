/**
 * What a pass's scaling decisions ask of the standby sets (pure; docs/standby.md, "Claims and
 * Git"): which Ready standby pods to claim for an algorithm that scales up, and which claimed pods
 * to give back (or delete) when it scales down, as `planClaims` counts them, and so the part of
 * each decision the Deployment in Git takes (`planStandby`). Read from the
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
import { planClaims, type StandbyOffer } from './claim.js';
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

/**
 * What each set offers its algorithms at a pass (`claimPolicy`'s offer), by algorithm name: the
 * set's Ready standbys in `cluster` ({@link readyStandbys}: Running, Ready, not being deleted, by
 * the owner chain) and its `claimSeconds`. Every algorithm of a set gets the same count, those
 * Ready when the pass began (a claim an earlier decision of the pass makes does not lower it), as
 * the replay's standby fleet counts them. An algorithm in two sets takes the first's, as
 * `planStandby` does; one in none is absent.
 */
export function standbyOffers(
  sets: readonly StandbySet[],
  cluster: StandbyCluster,
): Map<string, StandbyOffer> {
  const out = new Map<string, StandbyOffer>();
  for (const set of sets) {
    const offer = { ready: readyStandbys(set, cluster).length, claimSeconds: set.claimSeconds };
    for (const name of set.algorithms) if (!out.has(name)) out.set(name, offer);
  }
  return out;
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
 * The claimed pods of every algorithm of `sets` (`claimedPods`: gpuops's claim mark and name, no
 * other controller, not being deleted), by algorithm, each list by name; one walk over the pods.
 * An algorithm with none is absent.
 */
export function claimedByAlgorithm(
  sets: readonly StandbySet[],
  cluster: StandbyCluster,
): Map<string, PodInfo[]> {
  const out = new Map<string, PodInfo[]>();
  if (sets.length === 0) return out;
  const setsByName = new Map(sets.map((s) => [s.name, s]));
  const replicaSets = cluster.replicaSets ?? [];
  for (const p of cluster.pods) {
    const set = setsByName.get(p.labels[CLAIMED_FROM_LABEL] ?? '');
    if (!set || p.algorithm === null || !set.algorithms.includes(p.algorithm)) continue;
    if (p.terminating || !isClaimedPod(set, p, replicaSets)) continue;
    const list = out.get(p.algorithm);
    if (list) list.push(p);
    else out.set(p.algorithm, [p]);
  }
  for (const list of out.values()) list.sort(byName);
  return out;
}

/** The decisions of a pass with their standby part, and the pod changes that part asks for. */
export interface StandbyPlan {
  decisions: ScalingDecision[];
  actions: StandbyAction[];
}

/**
 * How standby pods carry `decisions` (docs/standby.md, "Claims and Git"): per decision of an
 * algorithm in a set, in the decisions' order, `planClaims` over the set's Ready standbys not
 * taken by an earlier decision of the pass and the claimed pods its `from` counted (`claimed`, by
 * algorithm; default `claimedPods`), recorded on the decision (`standby`) and turned into pod
 * changes. A scale-up claims Ready standbys first and leaves the rest to the Deployment; a
 * scale-down gives claimed pods back first, then lowers the Deployment. So Git's replicas plus the
 * claimed pods are the decision's `to`, which it kept within `minReplicas..maxReplicas`.
 * Decisions of algorithms in no set go as they are.
 */
export function planStandby(
  decisions: readonly ScalingDecision[],
  sets: readonly StandbySet[],
  cluster: StandbyCluster,
  claimed?: ReadonlyMap<string, readonly PodInfo[]>,
): StandbyPlan {
  const out: StandbyPlan = { decisions: [], actions: [] };
  const taken = new Set<string>();
  for (const d of decisions) {
    const set = sets.find((s) => s.algorithms.includes(d.algorithm));
    if (!set) {
      out.decisions.push(d);
      continue;
    }
    const ready = readyStandbys(set, cluster).filter((p) => !taken.has(p.name));
    const mine = claimed ? (claimed.get(d.algorithm) ?? []) : claimedPods(set, d.algorithm, cluster);
    const plan = planClaims(d, mine.length, { ready: ready.length, claimSeconds: set.claimSeconds });
    out.decisions.push({ ...d, standby: { set: set.name, claimed: mine.length, ...plan } });
    for (const p of ready.slice(0, plan.claim)) taken.add(p.name);
    out.actions.push(
      ...podChanges(set, d.algorithm, cluster, ready.slice(0, plan.claim), mine.slice(0, plan.giveBack)),
    );
  }
  return out;
}

/** The claims of `claim` and the give-backs (or deletes, with no standby ReplicaSet) of `giveBack`. */
function podChanges(
  set: StandbySet,
  algorithm: string,
  cluster: StandbyCluster,
  claim: readonly PodInfo[],
  giveBack: readonly PodInfo[],
): StandbyAction[] {
  const out: StandbyAction[] = [];
  const base = { set: set.name, algorithm, namespace: set.namespace };
  for (const p of claim)
    out.push({
      kind: 'claim',
      ...base,
      pod: p.name,
      uid: p.uid,
      ...claimPatch(set, algorithm, p.uid).metadata,
      expect: { [STANDBY_LABEL]: set.name },
      wake: { port: set.port, path: set.wakePath, timeoutSeconds: set.claimSeconds },
    });
  // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent; the hash is read only by give-backs, so reading it for none changes nothing (the test only spares the look-up)
  const hash = giveBack.length > 0 ? currentStandbyHash(set, cluster.replicaSets ?? []) : null;
  const expect = { [CLAIMED_FROM_LABEL]: set.name, [GPUOPS.algorithm]: algorithm };
  for (const p of giveBack)
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
  return out;
}

/**
 * The pod changes of `decisions` for the algorithms of `sets` (`planStandby`'s actions, the
 * claimed pods read by `claimedPods`). Algorithms in no set: nothing.
 */
export function standbyActions(
  decisions: readonly ScalingDecision[],
  sets: readonly StandbySet[],
  cluster: StandbyCluster,
): StandbyAction[] {
  return planStandby(decisions, sets, cluster).actions;
}
