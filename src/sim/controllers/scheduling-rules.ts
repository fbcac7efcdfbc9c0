/**
 * The scheduler's filter plugins the simulator implements, in the order the default profile runs
 * them (a node is rejected with the first failing filter's reason, as kube-scheduler reports):
 * NodeUnschedulable, TaintToleration, NodeAffinity (nodeSelector and required node affinity),
 * NodeResourcesFit (only `nvidia.com/gpu`; cpu and memory are not simulated).
 *
 * Reason texts are kube-scheduler's, so `PodScheduled` messages read like a real cluster's.
 */
import type { KubeObject } from '../types.js';
import { GPU_RESOURCE, isNodeReady, parseQuantity } from './pods.js';

/** A taint as on `Node.spec.taints`. */
export interface Taint {
  key: string;
  value?: string;
  effect: string;
}

/** A toleration as on `Pod.spec.tolerations`. */
export interface Toleration {
  key?: string;
  operator?: 'Exists' | 'Equal';
  value?: string;
  effect?: string;
  tolerationSeconds?: number;
}

/** Taint the node lifecycle controller puts on a node whose Ready condition is `False`. */
export const NOT_READY_TAINT = 'node.kubernetes.io/not-ready';
/** Taint the node lifecycle controller puts on a node whose Ready condition is `Unknown`. */
export const UNREACHABLE_TAINT = 'node.kubernetes.io/unreachable';
/** Taint that stands for `spec.unschedulable` (cordon). */
export const UNSCHEDULABLE_TAINT = 'node.kubernetes.io/unschedulable';

/**
 * Kubernetes' `Toleration.ToleratesTaint`: an empty effect matches every effect; an empty key
 * with `Exists` matches every taint; `Exists` ignores the value; `Equal` (the default) compares it.
 */
export function toleratesTaint(toleration: Toleration, taint: Taint): boolean {
  if (toleration.effect && toleration.effect !== taint.effect) return false;
  if (toleration.key && toleration.key !== taint.key) return false;
  const op = toleration.operator ?? 'Equal';
  if (op === 'Exists') return true;
  if (!toleration.key) return false; // an empty key is only valid with Exists
  return (toleration.value ?? '') === (taint.value ?? '');
}

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

interface NodeSelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt';
  values?: string[];
}

function matchesRequirement(labels: Record<string, string>, req: NodeSelectorRequirement): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, req.key);
  const v = labels[req.key];
  switch (req.operator) {
    case 'In':
      return has && (req.values ?? []).includes(v!);
    case 'NotIn':
      return !has || !(req.values ?? []).includes(v!);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    case 'Gt':
      return has && Number(v) > Number(req.values?.[0]);
    case 'Lt':
      return has && Number(v) < Number(req.values?.[0]);
    default:
      return false;
  }
}

/**
 * NodeAffinity filter: every `spec.nodeSelector` label equal, and when
 * `affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution` is set, at least one of
 * its `nodeSelectorTerms` matches (all `matchExpressions` of a term; `matchFields` on
 * `metadata.name` only).
 */
export function matchesNodeAffinity(podSpec: KubeObject['spec'], node: KubeObject): boolean {
  const labels = node.metadata.labels ?? {};
  for (const [k, v] of Object.entries((podSpec?.nodeSelector as Record<string, string> | undefined) ?? {})) {
    if (labels[k] !== v) return false;
  }
  const terms = podSpec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution
    ?.nodeSelectorTerms as
    { matchExpressions?: NodeSelectorRequirement[]; matchFields?: NodeSelectorRequirement[] }[] | undefined;
  if (!terms || terms.length === 0) return true;
  return terms.some(
    (t) =>
      (t.matchExpressions ?? []).every((r) => matchesRequirement(labels, r)) &&
      (t.matchFields ?? []).every(
        (r) => r.key === 'metadata.name' && matchesRequirement({ 'metadata.name': node.metadata.name }, r),
      ) &&
      ((t.matchExpressions?.length ?? 0) > 0 || (t.matchFields?.length ?? 0) > 0),
  );
}

/** Allocatable whole GPUs of a node (`status.allocatable["nvidia.com/gpu"]`, not capacity). */
export function allocatableGpus(node: KubeObject): number {
  return parseQuantity(node.status?.allocatable?.[GPU_RESOURCE]);
}

/**
 * Why `node` cannot take the pod, in kube-scheduler's words, or null when it fits.
 * `freeGpus` is allocatable minus the effective requests of live pods bound there.
 */
export function filterNode(
  podSpec: KubeObject['spec'],
  node: KubeObject,
  gpuRequest: number,
  freeGpus: number,
): string | null {
  const tolerations = (podSpec?.tolerations as Toleration[] | undefined) ?? [];
  // NodeUnschedulable: a cordoned node takes only pods tolerating the unschedulable taint.
  if (node.spec?.unschedulable === true) {
    const cordon: Taint = { key: UNSCHEDULABLE_TAINT, effect: 'NoSchedule' };
    if (!tolerations.some((t) => toleratesTaint(t, cordon))) return 'node(s) were unschedulable';
  }
  // TaintToleration: every NoSchedule and NoExecute taint must be tolerated.
  for (const taint of effectiveTaints(node)) {
    if (taint.effect !== 'NoSchedule' && taint.effect !== 'NoExecute') continue;
    if (!tolerations.some((t) => toleratesTaint(t, taint))) {
      return `node(s) had untolerated taint {${taint.key}: ${taint.value ?? ''}}`;
    }
  }
  if (!matchesNodeAffinity(podSpec, node)) return "node(s) didn't match Pod's node affinity/selector";
  if (gpuRequest > freeGpus) return `Insufficient ${GPU_RESOURCE}`;
  return null;
}

/**
 * The `PodScheduled=False` message kube-scheduler writes when no node fits, e.g.
 * `0/13 nodes are available: 1 node(s) were unschedulable, 9 Insufficient nvidia.com/gpu. preemption: ...`.
 * Reasons are counted and sorted as the scheduler's `FitError` does.
 */
export function unschedulableMessage(nodeCount: number, reasons: Map<string, number>): string {
  if (nodeCount === 0) return 'no nodes available to schedule pods';
  const parts = [...reasons].map(([r, n]) => `${n} ${r}`).sort();
  let insufficient = 0;
  for (const [r, n] of reasons) if (r.startsWith('Insufficient ')) insufficient += n;
  const other = nodeCount - insufficient;
  const pre = [
    ...(insufficient > 0 ? [`${insufficient} No preemption victims found for incoming pod`] : []),
    ...(other > 0 ? [`${other} Preemption is not helpful for scheduling`] : []),
  ].sort();
  return `0/${nodeCount} nodes are available: ${parts.join(', ')}. preemption: 0/${nodeCount} nodes are available: ${pre.join(', ')}.`;
}
