import { migSingleProfile } from '../cluster/mig.js';
import type { NodeInfo } from '../cluster/index.js';
import { formatTaint, LEAVING_TAINT_KEYS, noNewPodsTaints } from '../cluster/taints.js';
import type { PoolReason } from './types.js';
import { GPUOPS, VENDORS, vendorById } from '../util/index.js';

/** Why a node cannot join a pool now, with a human message; null when it can. */
export interface Ineligibility {
  reason: Extract<
    PoolReason,
    | 'NoGPU'
    | 'MIGOnly'
    | 'NoAllocatableGPU'
    | 'NotReady'
    | 'Cordoned'
    | 'Tainted'
    | 'Leaving'
    | 'ForeignWorkload'
  >;
  message: string;
}

/**
 * True when the node can offer whole GPUs to new work: Ready, schedulable (not cordoned, no
 * unreachable / not-ready taint) and at least one GPU of its vendor's resource allocatable. A node in a pool
 * that is not healthy keeps its pool but offers no capacity.
 */
export function isHealthy(node: NodeInfo): boolean {
  return node.ready && node.schedulable && node.gpuAllocatable >= 1;
}

/**
 * Checks, in this order, whether a node may join a pool: it has GPUs at all (`NoGPU`), whole GPUs
 * rather than only MIG slices (`MIGOnly`: `nvidia.com/mig-*` resources only, or MIG's single
 * strategy, whose `nvidia.com/gpu` are MIG devices, see `migSingleProfile`), whole GPUs allocatable (`NoAllocatableGPU`: capacity
 * without allocatable means the device plugin reports them unhealthy), the Ready condition
 * (`NotReady`), schedulability (`Cordoned`: `spec.unschedulable` or the node lifecycle
 * controller's unreachable / not-ready taint; `Leaving`: a taint of the Cluster Autoscaler or
 * Karpenter that removes the node, or `out-of-service`; `Tainted`: any other NoSchedule/NoExecute
 * taint gpuops's pods do not tolerate — the one rule is `noNewPodsTaints`), and no GPUs held by
 * pods gpuops does not manage (`ForeignWorkload`).
 *
 * @param labelKey the pool label key (its taint is gpuops's own and never blocks)
 * @returns null when the node is eligible
 */
export function ineligibility(node: NodeInfo, labelKey: string = GPUOPS.pool): Ineligibility | null {
  const vendor = vendorById(node.vendor);
  if (node.gpuCapacity === 0 && node.gpuAllocatable === 0 && node.migAllocatable === 0 && !node.gpuProduct) {
    const none = VENDORS.map((v) => v.resource).join(' or ');
    return { reason: 'NoGPU', message: `no ${none} capacity: not a GPU node` };
  }
  if (node.gpuAllocatable < 1 && node.migAllocatable > 0) {
    return { reason: 'MIGOnly', message: migOnlyMessage(node) };
  }
  if (node.gpuAllocatable < 1) {
    return {
      reason: 'NoAllocatableGPU',
      message: `${vendor.resource} allocatable is 0 (capacity ${node.gpuCapacity}): the device plugin offers no GPU`,
    };
  }
  if (!node.ready) {
    return { reason: 'NotReady', message: 'the Ready condition is not True' };
  }
  if (!node.schedulable) {
    if (node.cordoned) return { reason: 'Cordoned', message: 'cordoned (spec.unschedulable)' };
    const blocking = noNewPodsTaints(node.taints, labelKey, vendor);
    const leaving = blocking.filter((t) => LEAVING_TAINT_KEYS.includes(t.key));
    if (leaving.length > 0) {
      return {
        reason: 'Leaving',
        message: `on its way out (tainted ${leaving.map(formatTaint).join(', ')}): offers no capacity`,
      };
    }
    // The node lifecycle controller's and kubelet's own (`unreachable`, `not-ready`, `unschedulable`, …).
    const lifecycle = blocking.find((t) => t.key.startsWith('node.kubernetes.io/'));
    if (lifecycle || blocking.length === 0) {
      return { reason: 'Cordoned', message: `tainted ${lifecycle?.key ?? 'unschedulable'}` };
    }
    return {
      reason: 'Tainted',
      message: `tainted ${blocking.map(formatTaint).join(', ')}, which gpuops's pods do not tolerate: offers no capacity`,
    };
  }
  if (node.foreignGpuRequested > 0) {
    return {
      reason: 'ForeignWorkload',
      message: `${node.foreignGpuRequested} of ${node.gpuAllocatable} GPUs are held by pods gpuops does not manage`,
    };
  }
  return null;
}

/**
 * Why a node with MIG slices and no whole GPU is no whole-GPU node, in words that name the
 * strategy: with `single` the device plugin advertises the MIG devices as `nvidia.com/gpu`.
 */
export function migOnlyMessage(node: Pick<NodeInfo, 'labels' | 'migAllocatable' | 'gpuProduct'>): string {
  const profile = migSingleProfile(node.labels);
  if (profile === null) {
    return `GPUs are partitioned by MIG (${node.migAllocatable} nvidia.com/mig-* slices allocatable, 0 whole GPUs); not a candidate for whole-GPU pools`;
  }
  const what = profile === '' ? 'MIG devices' : `MIG ${profile} devices`;
  return `MIG strategy single: its ${node.migAllocatable} nvidia.com/gpu are ${what} (${node.gpuProduct ?? 'no product label'}), not whole GPUs; never a test node, no whole-GPU capacity`;
}

/** A short description of why a node offers no capacity (NotReady, cordoned, tainted, 0 allocatable), or null. */
export function unhealthyState(node: NodeInfo, labelKey: string = GPUOPS.pool): string | null {
  if (!node.ready) return 'NotReady';
  if (node.cordoned) return 'cordoned';
  if (!node.schedulable) {
    const blocking = noNewPodsTaints(node.taints, labelKey, vendorById(node.vendor));
    return blocking.length > 0 ? `tainted ${blocking.map(formatTaint).join(', ')}` : 'unschedulable';
  }
  if (node.gpuAllocatable < 1) return 'without allocatable GPUs';
  return null;
}
