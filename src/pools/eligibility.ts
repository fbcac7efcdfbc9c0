import type { NodeInfo } from '../cluster/types.js';
import type { PoolReason } from './types.js';

/** Why a node cannot join a pool now, with a human message; null when it can. */
export interface Ineligibility {
  reason: Extract<
    PoolReason,
    'NoGPU' | 'MIGOnly' | 'NoAllocatableGPU' | 'NotReady' | 'Cordoned' | 'ForeignWorkload'
  >;
  message: string;
}

/**
 * True when the node can offer whole GPUs to new work: Ready, schedulable (not cordoned, no
 * unreachable / not-ready taint) and at least one `nvidia.com/gpu` allocatable. A node in a pool
 * that is not healthy keeps its pool but offers no capacity.
 */
export function isHealthy(node: NodeInfo): boolean {
  return node.ready && node.schedulable && node.gpuAllocatable >= 1;
}

/**
 * Checks, in this order, whether a node may join a pool: it has GPUs at all (`NoGPU`), whole GPUs
 * rather than only MIG slices (`MIGOnly`), whole GPUs allocatable (`NoAllocatableGPU`: capacity
 * without allocatable means the device plugin reports them unhealthy), the Ready condition
 * (`NotReady`), schedulability (`Cordoned`: `spec.unschedulable` or the node lifecycle
 * controller's unreachable / not-ready taint), and no GPUs held by pods gpuops does not manage
 * (`ForeignWorkload`).
 *
 * @returns null when the node is eligible
 */
export function ineligibility(node: NodeInfo): Ineligibility | null {
  if (node.gpuCapacity === 0 && node.gpuAllocatable === 0 && node.migAllocatable === 0 && !node.gpuProduct) {
    return { reason: 'NoGPU', message: 'no nvidia.com/gpu capacity: not a GPU node' };
  }
  if (node.gpuAllocatable < 1 && node.migAllocatable > 0) {
    return {
      reason: 'MIGOnly',
      message: `GPUs are partitioned by MIG (${node.migAllocatable} nvidia.com/mig-* slices allocatable, 0 whole GPUs); not a candidate for whole-GPU pools`,
    };
  }
  if (node.gpuAllocatable < 1) {
    return {
      reason: 'NoAllocatableGPU',
      message: `nvidia.com/gpu allocatable is 0 (capacity ${node.gpuCapacity}): the device plugin offers no GPU`,
    };
  }
  if (!node.ready) {
    return { reason: 'NotReady', message: 'the Ready condition is not True' };
  }
  if (!node.schedulable) {
    const taint = node.taints.find(
      (t) => t.key === 'node.kubernetes.io/unreachable' || t.key === 'node.kubernetes.io/not-ready',
    );
    return {
      reason: 'Cordoned',
      message: node.cordoned ? 'cordoned (spec.unschedulable)' : `tainted ${taint?.key ?? 'unschedulable'}`,
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

/** A short description of why a node offers no capacity (NotReady, cordoned, 0 allocatable), or null. */
export function unhealthyState(node: NodeInfo): string | null {
  if (!node.ready) return 'NotReady';
  if (node.cordoned) return 'cordoned';
  if (!node.schedulable) return 'unschedulable (unreachable/not-ready taint)';
  if (node.gpuAllocatable < 1) return 'without allocatable GPUs';
  return null;
}
