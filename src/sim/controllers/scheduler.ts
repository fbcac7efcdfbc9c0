/**
 * The simulated kube-scheduler: binds Pending pods that have no `spec.nodeName` to a node.
 *
 * Queue order: creation time, then namespace/name. A node is feasible when it passes the filters
 * of {@link filterNode} (cordon, taints/tolerations incl. the NotReady taints, nodeSelector and
 * required node affinity, free `nvidia.com/gpu`). Among feasible nodes the score is the free GPUs
 * (LeastAllocated: most free first; MostAllocated: fewest first), ties by node name. A pod that
 * fits nowhere gets `PodScheduled=False`, reason `Unschedulable`, with kube-scheduler's message.
 * Pods naming another `schedulerName` are left alone. cpu and memory are not simulated.
 */
import { SimApiError, type KubeObject, type SimController, type SimStore } from '../types.js';
import type { ResolvedConfig } from './config.js';
import { ChangeGate } from './gate.js';
import { readAll } from './read.js';
import { byCreation, holdsResources, podGpus, setCondition } from './pods.js';
import { allocatableGpus, filterNode, unschedulableMessage } from './scheduling-rules.js';
import { k8sTime } from './time.js';

/** The outcome of placing one pod. */
export type Placement = { node: string } | { node: null; message: string };

/**
 * Pure placement of one pod against nodes with their free GPUs (`free` is keyed by node name).
 * `nodes` must be sorted by name (ties go to the first).
 */
export function placePod(
  pod: KubeObject,
  nodes: readonly KubeObject[],
  free: Map<string, number>,
  scoring: ResolvedConfig['scoring'],
): Placement {
  const gpus = podGpus(pod);
  const reasons = new Map<string, number>();
  let best: { name: string; free: number } | undefined;
  for (const node of nodes) {
    const nodeFree = free.get(node.metadata.name) ?? 0;
    const reason = filterNode(pod.spec, node, gpus, nodeFree);
    if (reason) {
      reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
      continue;
    }
    const better = !best || (scoring === 'LeastAllocated' ? nodeFree > best.free : nodeFree < best.free);
    if (better) best = { name: node.metadata.name, free: nodeFree };
  }
  if (best) return { node: best.name };
  return { node: null, message: unschedulableMessage(nodes.length, reasons) };
}

/** Free GPUs per node: allocatable minus effective requests of live pods bound there (may go negative). */
export function freeGpusByNode(
  nodes: readonly KubeObject[],
  pods: readonly KubeObject[],
): Map<string, number> {
  const free = new Map<string, number>();
  for (const n of nodes) free.set(n.metadata.name, allocatableGpus(n));
  for (const p of pods) {
    if (!holdsResources(p)) continue;
    const name = p.spec.nodeName as string;
    if (free.has(name)) free.set(name, free.get(name)! - podGpus(p));
  }
  return free;
}

/** Whether the scheduler is responsible for the pod: unbound, Pending, not deleting, default scheduler. */
function wantsScheduling(pod: KubeObject): boolean {
  const scheduler = (pod.spec?.schedulerName as string | undefined) ?? 'default-scheduler';
  return (
    !pod.spec?.nodeName &&
    (pod.status?.phase ?? 'Pending') === 'Pending' &&
    !pod.metadata.deletionTimestamp &&
    scheduler === 'default-scheduler'
  );
}

/** The scheduler as a {@link SimController}. */
export function schedulerController(config: ResolvedConfig): SimController {
  const gate = new ChangeGate();
  return {
    name: 'scheduler',
    reconcile(store: SimStore, now: Date): void {
      if (!gate.open(store, now)) return;
      const rv = store.resourceVersion();
      const pods = readAll(store, 'pods');
      const pending = pods.filter(wantsScheduling).sort(byCreation);
      if (pending.length > 0) {
        const nodes = [...readAll(store, 'nodes')].sort((a, b) =>
          a.metadata.name < b.metadata.name ? -1 : 1,
        );
        const free = freeGpusByNode(nodes, pods);
        const at = k8sTime(now);
        for (const stored of pending) {
          const placement = placePod(stored, nodes, free, config.scoring);
          if (placement.node === null && alreadyUnschedulable(stored, placement.message)) continue;
          const pod = structuredClone(stored);
          if (placement.node !== null) {
            free.set(placement.node, free.get(placement.node)! - podGpus(pod));
            pod.spec.nodeName = placement.node;
            pod.status = { ...(pod.status ?? {}), phase: 'Pending' };
            pod.status.conditions = setCondition(
              pod.status.conditions,
              { type: 'PodScheduled', status: 'True' },
              at,
              { lastProbeTime: null },
            );
          } else {
            pod.status = { ...(pod.status ?? {}), phase: 'Pending' };
            pod.status.conditions = setCondition(
              pod.status.conditions,
              { type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: placement.message },
              at,
              { lastProbeTime: null },
            );
          }
          writePod(store, pod);
        }
      }
      gate.close(rv);
    },
  };
}

/** The pod already carries this exact `PodScheduled=False` condition (nothing to write). */
function alreadyUnschedulable(pod: KubeObject, message: string): boolean {
  return (pod.status?.conditions ?? []).some(
    (c: { type: string; status: string; reason?: string; message?: string }) =>
      c.type === 'PodScheduled' &&
      c.status === 'False' &&
      c.reason === 'Unschedulable' &&
      c.message === message,
  );
}

/** Writes a pod, ignoring a pod deleted or changed meanwhile (the next pass sees the new state). */
function writePod(store: SimStore, pod: KubeObject): void {
  try {
    store.update('pods', pod);
  } catch (err) {
    if (!(err instanceof SimApiError)) throw err; // a bug, not a race: let the simulator report it
    // 404 or 409: the pod changed under us; the next pass works on the current object.
  }
}
