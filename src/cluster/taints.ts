/**
 * The taint rules of gpuops (pure): which tolerations its pods carry, which taints keep them off a
 * node. One place, below both users: the snapshot (`NodeInfo.schedulable`, `cluster/snapshot.ts`)
 * and the renderer (`manifests/scheduling.ts`) read the same rule, so a node the snapshot calls
 * schedulable is one the rendered pods may land on.
 */
import type { Taint } from './types.js';
import { NVIDIA, type AcceleratorVendor } from '../util/index.js';

/** A Kubernetes toleration (`PodSpec.tolerations[]`). */
export interface Toleration {
  key: string;
  operator: 'Equal' | 'Exists';
  value?: string;
  effect?: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
}

/**
 * The toleration of a vendor's GPU taint (`nvidia.com/gpu:NoSchedule`, `amd.com/gpu:NoSchedule`)
 * that every gpuops pod asking that vendor's GPUs carries.
 */
export function gpuToleration(vendor: AcceleratorVendor): Toleration {
  return { key: vendor.taintKey, operator: 'Exists', effect: 'NoSchedule' };
}

/** The toleration of NVIDIA's GPU taint `nvidia.com/gpu:NoSchedule`. */
export const GPU_TOLERATION: Toleration = gpuToleration(NVIDIA);

/**
 * Whether one toleration tolerates one taint, by the Kubernetes rule
 * (https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/): the effects
 * match or the toleration names none; the keys match, or the toleration has no key and operator
 * `Exists` (tolerates everything); with `Equal` the values match (an absent value is "").
 */
export function toleratesTaint(t: Toleration, taint: Taint): boolean {
  if (t.effect !== undefined && t.effect !== taint.effect) return false;
  if (t.key === '' || t.key === undefined) return t.operator === 'Exists';
  if (t.key !== taint.key) return false;
  return t.operator === 'Exists' || (t.value ?? '') === (taint.value ?? '');
}

/**
 * Taint keys that say a node is on its way out, whatever their effect: the Cluster Autoscaler's
 * `ToBeDeletedByClusterAutoscaler` (NoSchedule, the node is being drained) and
 * `DeletionCandidateOfClusterAutoscaler` (PreferNoSchedule, the node is unneeded and will be removed
 * once unneeded long enough: a benchmark or a pool member there would be evicted with it),
 * Karpenter's `karpenter.sh/disrupted` (v1) and `karpenter.sh/disruption` (before v1), and the
 * non-graceful shutdown taint `node.kubernetes.io/out-of-service`.
 */
export const LEAVING_TAINT_KEYS: readonly string[] = [
  'ToBeDeletedByClusterAutoscaler',
  'DeletionCandidateOfClusterAutoscaler',
  'karpenter.sh/disrupted',
  'karpenter.sh/disruption',
  'node.kubernetes.io/out-of-service',
];

/**
 * THE rule of "which taints mean no new pods" for gpuops (one place; snapshot, pools and scaling
 * use it through `NodeInfo.schedulable`): the taints of a node that keep the pods gpuops runs
 * there (benchmark Jobs and algorithm Deployments, whose tolerations `poolScheduling`
 * renders, `src/manifests/scheduling.ts`) away, i.e.
 * - every `NoSchedule` / `NoExecute` taint that those tolerations do not tolerate (the Cluster
 *   Autoscaler's `ToBeDeletedByClusterAutoscaler`, Karpenter's `karpenter.sh/disrupted`,
 *   `node.kubernetes.io/unschedulable` of a cordon, `unreachable`, `not-ready`, `out-of-service`,
 *   a team's `dedicated=x:NoSchedule` …), and
 * - every taint of {@link LEAVING_TAINT_KEYS}, also `PreferNoSchedule` ones: a node on its way out
 *   offers nothing worth starting.
 * `PreferNoSchedule` taints otherwise do not block (the scheduler only avoids them). The pool taint
 * `<labelKey>=<pool>` is gpuops's own and never blocks: gpuops rewrites it with the pool.
 *
 * @param taints  `Node.spec.taints`
 * @param labelKey the pool label key (policy `pools.labelKey`)
 * @param vendor  the vendor of the node's GPUs: the pods gpuops sends there tolerate its taint
 * @returns the blocking taints, in the node's order; empty when gpuops's pods may land
 */
export function noNewPodsTaints(
  taints: readonly Taint[],
  labelKey: string,
  vendor: AcceleratorVendor = NVIDIA,
): Taint[] {
  const tolerated = gpuToleration(vendor);
  return taints.filter(
    (taint) =>
      taint.key !== labelKey &&
      (LEAVING_TAINT_KEYS.includes(taint.key) ||
        (taint.effect !== 'PreferNoSchedule' && !toleratesTaint(tolerated, taint))),
  );
}

/** `key=value:Effect` (or `key:Effect`), as `kubectl describe node` prints a taint. */
export function formatTaint(t: Taint): string {
  return `${t.key}${t.value !== undefined && t.value !== '' ? `=${t.value}` : ''}:${t.effect}`;
}

/**
 * `taints` with the entries of `key` replaced by `taint` (none when null), every other entry kept
 * in its order; null when it already is so (one entry of `key` equal to `taint`, or none and
 * `taint` null). How a writer that owns one key of `Node.spec.taints` (an atomic list: whoever
 * writes it writes it whole) changes its entry without dropping anyone else's, as `kubectl taint`
 * does.
 */
export function withOwnTaint(taints: readonly Taint[], key: string, taint: Taint | null): Taint[] | null {
  const others = taints.filter((t) => t.key !== key);
  const mine = taints.filter((t) => t.key === key);
  const unchanged =
    taint === null
      ? mine.length === 0
      : mine.length === 1 &&
        (mine[0]!.value ?? '') === (taint.value ?? '') &&
        mine[0]!.effect === taint.effect;
  if (unchanged) return null;
  return taint ? [...others, taint] : others;
}
