/**
 * The simulated kube-scheduler: binds Pending pods that have no `spec.nodeName` to a node.
 *
 * Queue order: creation time, then namespace/name. A node is feasible when it passes the filter
 * plugins of the default profile, the same pure functions gpuops's capacity reads
 * (`src/cluster/scheduling/`): NodeUnschedulable, TaintToleration (incl. the NotReady taints),
 * NodeAffinity (nodeSelector and required node affinity), NodeResourcesFit (every resource —
 * cpu, memory, ephemeral-storage, GPUs, extended — and the pod count, against allocatable minus
 * the requests of the pods bound there), PodTopologySpread (DoNotSchedule) and InterPodAffinity
 * (required terms, and running pods' anti-affinity). Among feasible nodes the score is the free
 * GPUs (LeastAllocated: most free first; MostAllocated: fewest first), ties by node name. A pod
 * that fits nowhere gets `PodScheduled=False`, reason `Unschedulable`, with kube-scheduler's
 * message. Pods naming another `schedulerName` are left alone.
 */
import { SimApiError, type KubeObject, type SimController, type SimStore } from '../types.js';
import type { ResolvedConfig } from './config.js';
import { ChangeGate } from './gate.js';
import { readAll } from './read.js';
import {
  nodeRefusal,
  REFUSAL,
  interPodRefusal,
  interPodState,
  dependsOnPods,
  podConstraintsOf,
  resourceRefusals,
  spreadRefusal,
  spreadState,
} from '../../cluster/index.js';
import { byCreation, GPU_RESOURCE, setCondition } from './pods.js';
import { bind, podRequests, schedulerView, type SchedulerView } from './scheduler-view.js';
import { unschedulableMessage } from './scheduling-rules.js';
import { k8sTime } from './time.js';

/** The outcome of placing one pod. */
export type Placement = { node: string } | { node: null; message: string };

/** Refusals kube-scheduler reports as `Unschedulable` (preemption could help), not `…AndUnresolvable`. */
const RESOLVABLE: ReadonlySet<string> = new Set([
  REFUSAL.antiAffinity,
  REFUSAL.existingAntiAffinity,
  REFUSAL.spread,
]);
const resolvable = (reason: string) =>
  reason.startsWith('Insufficient ') || reason === 'Too many pods' || RESOLVABLE.has(reason);

/**
 * Pure placement of one pod against the view (`schedulerView`): the filters of the default
 * profile in its order — NodeUnschedulable, TaintToleration, NodeAffinity, NodeResourcesFit (every
 * resource and the pod count), PodTopologySpread, InterPodAffinity — then the score on free GPUs.
 */
export function placePod(
  pod: KubeObject,
  view: SchedulerView,
  scoring: ResolvedConfig['scoring'],
): Placement {
  const c = podConstraintsOf(pod.metadata.namespace ?? 'default', pod.metadata.labels ?? {}, pod.spec);
  const request = podRequests(pod.spec);
  const labelsOf = (n: string) => view.filterNodes.get(n)?.labels;
  const inter = interPodState(
    c,
    dependsOnPods(c) ? [...view.bound.values()].flat() : view.antiAffine,
    labelsOf,
  );
  const spread =
    c.spread.length > 0
      ? spreadState(c, [...view.filterNodes.values()], (n) => view.bound.get(n) ?? [])
      : null;
  const reasons = new Map<string, number>();
  let unresolvable = 0;
  let best: { name: string; free: number } | undefined;
  for (const node of view.nodes) {
    const name = node.metadata.name;
    const f = view.filterNodes.get(name)!;
    const free = view.free.get(name)!;
    const refused =
      firstRefusal(nodeRefusal(c, f)) ??
      nonEmpty(resourceRefusals(request, free)) ??
      firstRefusal(spread && spreadRefusal(spread, f.labels)) ??
      firstRefusal(interPodRefusal(inter, f.labels));
    if (refused) {
      for (const r of refused) reasons.set(r, (reasons.get(r) ?? 0) + 1);
      if (!resolvable(refused[0]!)) unresolvable++;
      continue;
    }
    const nodeFree = free[GPU_RESOURCE] ?? 0;
    const better = !best || (scoring === 'LeastAllocated' ? nodeFree > best.free : nodeFree < best.free);
    if (better) best = { name, free: nodeFree };
  }
  if (best) return { node: best.name };
  return { node: null, message: unschedulableMessage(view.nodes.length, reasons, unresolvable) };
}

const firstRefusal = (r: string | null): string[] | null => (r ? [r] : null);
const nonEmpty = (rs: string[]): string[] | null => (rs.length > 0 ? rs : null);

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
        const view = schedulerView(readAll(store, 'nodes'), pods);
        const at = k8sTime(now);
        for (const stored of pending) {
          const placement = placePod(stored, view, config.scoring);
          if (placement.node === null && alreadyUnschedulable(stored, placement.message)) continue;
          const pod = structuredClone(stored);
          if (placement.node !== null) {
            pod.spec.nodeName = placement.node;
            bind(view, pod, placement.node);
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
