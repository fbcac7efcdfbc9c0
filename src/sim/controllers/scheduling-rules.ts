/**
 * What the simulated scheduler adds to the shared filter plugins (`src/cluster/scheduling/`): the
 * taints the node lifecycle controller would put on a NotReady node, and kube-scheduler's
 * `PodScheduled` message, so the simulator's read like a real cluster's.
 */
import type { KubeObject } from '../types.js';
import { isNodeReady } from './pods.js';

/** A taint as on `Node.spec.taints`. */
export interface Taint {
  key: string;
  value?: string;
  effect: string;
}

/** Taint the node lifecycle controller puts on a node whose Ready condition is `False`. */
export const NOT_READY_TAINT = 'node.kubernetes.io/not-ready';
/** Taint the node lifecycle controller puts on a node whose Ready condition is `Unknown`. */
export const UNREACHABLE_TAINT = 'node.kubernetes.io/unreachable';
/** Taint that stands for `spec.unschedulable` (cordon). */
export const UNSCHEDULABLE_TAINT = 'node.kubernetes.io/unschedulable';

/**
 * Taints the scheduler sees on a node: `spec.taints`, plus the taint the node lifecycle controller
 * would add when the Ready condition is not `True` (`not-ready` for `False`, `unreachable` for
 * `Unknown` or missing), so a NotReady node in a dump without those taints still gets nothing.
 */
export function effectiveTaints(node: KubeObject): Taint[] {
  const taints: Taint[] = [...((node.spec?.taints as Taint[] | undefined) ?? [])];
  if (!isNodeReady(node)) {
    const ready = (node.status?.conditions ?? []).find((c: { type: string }) => c.type === 'Ready') as
      { status?: string } | undefined;
    const key = ready?.status === 'False' ? NOT_READY_TAINT : UNREACHABLE_TAINT;
    if (!taints.some((t) => t.key === key && t.effect === 'NoSchedule'))
      taints.push({ key, effect: 'NoSchedule' });
  }
  return taints;
}

/**
 * The `PodScheduled=False` message kube-scheduler writes when no node fits, e.g.
 * `0/13 nodes are available: 1 node(s) were unschedulable, 9 Insufficient nvidia.com/gpu. preemption: ...`.
 * Reasons are counted and sorted as the scheduler's `FitError` does; nodes refused by a filter
 * preemption cannot help (`UnschedulableAndUnresolvable`: node affinity, taints, a missing
 * topology label) are `unresolvable`, the others found no victims (the simulator runs no
 * lower-priority pods to preempt).
 */
export function unschedulableMessage(
  nodeCount: number,
  reasons: Map<string, number>,
  unresolvable: number,
): string {
  if (nodeCount === 0) return 'no nodes available to schedule pods';
  const parts = [...reasons].map(([r, n]) => `${n} ${r}`).sort();
  const victims = nodeCount - unresolvable;
  const pre = [
    ...(victims > 0 ? [`${victims} No preemption victims found for incoming pod`] : []),
    ...(unresolvable > 0 ? [`${unresolvable} Preemption is not helpful for scheduling`] : []),
  ].sort();
  return `0/${nodeCount} nodes are available: ${parts.join(', ')}. preemption: 0/${nodeCount} nodes are available: ${pre.join(', ')}.`;
}
