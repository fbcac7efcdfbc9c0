/**
 * The simulated kubelet of every node: starts pods bound to a Ready node, and ends the containers
 * of run-to-completion pods (`restartPolicy` `Never` or `OnFailure`) when their simulated run
 * time is over (see {@link simulatedRun}). Pods with `restartPolicy: Always` (Deployments) run
 * until deleted. `OnFailure` is treated as `Never`: a failed container is not restarted in place;
 * the Job controller's retry pods stand for retries.
 *
 * Timestamps are exact: a container started at S with run time D has `finishedAt` S + D even when
 * the clock jumped past it, so a benchmark measures D whatever the tick size.
 */
import { SimApiError, type KubeObject, type SimController, type SimStore } from '../types.js';
import { GPU_INDICES_ANNOTATION, freeIndices } from '../dcgm/gpu-assignment.js';
import type { ResolvedConfig } from './config.js';
import { ChangeGate } from './gate.js';
import { readAll } from './read.js';
import { containerId, podIp } from './names.js';
import { isNodeReady, isTerminal, parseQuantity, podGpus, setCondition } from './pods.js';
import { simulatedRun } from './run-rule.js';
import { pullSeconds, withImages } from './image-pull.js';
import { k8sTime, parseTime } from './time.js';
import { NVIDIA_GFD, VENDORS } from '../../util/index.js';

/**
 * Pod annotation `sim.gpuops.dev/never-ready: "true"`: the pod runs but its readiness probe never
 * passes (Running, containers started, Ready False with `ContainersNotReady`), from its start or
 * from the moment a running pod gets the annotation (`kubectl annotate pod …`), for good (a pod
 * without it is never made Ready by this: a dump's unready pods stay as dumped).
 */
export const NEVER_READY_ANNOTATION = 'sim.gpuops.dev/never-ready';

const neverReady = (pod: KubeObject): boolean =>
  pod.metadata.annotations?.[NEVER_READY_ANNOTATION] === 'true';

/** Whether a pod carries the annotation and is still Ready (reads only). */
function failsReadiness(pod: KubeObject): boolean {
  if (!neverReady(pod)) return false;
  return (
    (pod.status?.conditions as { type: string; status: string }[] | undefined)?.some(
      (c) => c.type === 'Ready' && c.status === 'True',
    ) === true
  );
}

/** Makes an annotated running pod unready at `at` (its containers keep running). */
function applyReadiness(pod: KubeObject, at: string): void {
  if (!failsReadiness(pod)) return;
  pod.status!.conditions = setCondition(
    readyConditions(pod, false, at),
    { type: 'PodReadyToStartContainers', status: 'True' },
    at,
    { lastProbeTime: null },
  );
  for (const cs of (pod.status?.containerStatuses as { ready?: boolean }[] | undefined) ?? [])
    cs.ready = false;
}

interface ContainerSpec {
  name: string;
  image?: string;
  command?: unknown[];
  args?: unknown[];
}

/** GPUs the device plugin exposes on a node: capacity of any vendor's GPU resource, or the GFD `nvidia.com/gpu.count` label. */
export function nodeGpuCount(node: KubeObject): number {
  return Math.max(
    ...VENDORS.map((v) => parseQuantity(node.status?.capacity?.[v.resource])),
    parseQuantity(node.metadata.labels?.[NVIDIA_GFD.count]),
  );
}

function internalIp(node: KubeObject): string | undefined {
  return (node.status?.addresses as { type: string; address: string }[] | undefined)?.find(
    (a) => a.type === 'InternalIP',
  )?.address;
}

function runsToCompletion(pod: KubeObject): boolean {
  const policy = (pod.spec?.restartPolicy as string | undefined) ?? 'Always';
  return policy === 'Never' || policy === 'OnFailure';
}

function readyConditions(
  pod: KubeObject,
  ready: boolean,
  at: string,
  reason?: string,
): Record<string, unknown>[] {
  let c = pod.status?.conditions as Record<string, unknown>[] | undefined;
  const notReady = ready ? {} : { reason: reason ?? 'ContainersNotReady' };
  c = setCondition(
    c,
    { type: 'PodReadyToStartContainers', status: ready || reason === 'PodCompleted' ? 'True' : 'False' },
    at,
    { lastProbeTime: null },
  );
  c = setCondition(c, { type: 'Initialized', status: 'True' }, at, { lastProbeTime: null });
  c = setCondition(c, { type: 'Ready', status: ready ? 'True' : 'False', ...notReady }, at, {
    lastProbeTime: null,
  });
  c = setCondition(c, { type: 'ContainersReady', status: ready ? 'True' : 'False', ...notReady }, at, {
    lastProbeTime: null,
  });
  c = setCondition(c, { type: 'PodScheduled', status: 'True' }, at, { lastProbeTime: null });
  return c;
}

/**
 * Moves a bound Pending pod to Running at `startMs` (or to ContainerCreating before it). A pod
 * with a container that can never start (`--sim-waiting=REASON`, see `simulatedRun`) stays
 * Pending with that container waiting in REASON and the others in ContainerCreating.
 */
function startPod(
  pod: KubeObject,
  node: KubeObject,
  nowMs: number,
  config: ResolvedConfig,
  allPods: readonly KubeObject[],
): number | undefined {
  const status = (pod.status ??= {});
  const boundMs = parseTime(status.startTime) ?? nowMs;
  status.startTime ??= k8sTime(boundMs);
  status.hostIP = internalIp(node) ?? status.hostIP;
  if (status.hostIP) status.hostIPs = [{ ip: status.hostIP }];
  const pull = pullSeconds(pod, node, config.imagePullSeconds);
  const startMs = parseTime(status.startTime)! + (config.startupSeconds + pull) * 1000;
  const containers = (pod.spec?.containers as ContainerSpec[] | undefined) ?? [];
  const waits = containers.map(
    (c) => simulatedRun(c, config.durations, config.defaultDurationSeconds, pod.metadata.annotations).waiting,
  );
  if (waits.some((w) => w !== undefined)) {
    status.phase = 'Pending';
    status.conditions = readyConditions(pod, false, k8sTime(boundMs));
    status.containerStatuses = containers.map((c, i) => ({
      name: c.name,
      image: c.image,
      imageID: '',
      ready: false,
      started: false,
      restartCount: 0,
      state: { waiting: waits[i] ?? { reason: 'ContainerCreating' } },
    }));
    return undefined;
  }
  if (nowMs < startMs) {
    status.phase = 'Pending';
    status.conditions = readyConditions(pod, false, k8sTime(nowMs));
    status.containerStatuses = containers.map((c) => ({
      name: c.name,
      image: c.image,
      imageID: '',
      ready: false,
      started: false,
      restartCount: 0,
      state: { waiting: { reason: 'ContainerCreating' } },
    }));
    return startMs;
  }
  const uid = pod.metadata.uid ?? `${pod.metadata.namespace}/${pod.metadata.name}`;
  const startedAt = k8sTime(startMs);
  const gpus = podGpus(pod);
  if (gpus > 0 && !pod.metadata.annotations?.[GPU_INDICES_ANNOTATION]) {
    const others = allPods.filter(
      (p) =>
        p !== pod &&
        !(p.metadata.namespace === pod.metadata.namespace && p.metadata.name === pod.metadata.name),
    );
    const indices = freeIndices(node.metadata.name, nodeGpuCount(node), others, gpus);
    if (indices.length === gpus)
      pod.metadata.annotations = {
        ...(pod.metadata.annotations ?? {}),
        [GPU_INDICES_ANNOTATION]: indices.join(','),
      };
  }
  status.phase = 'Running';
  status.podIP = podIp(pod.metadata.namespace ?? 'default', pod.metadata.name);
  status.podIPs = [{ ip: status.podIP }];
  status.conditions = readyConditions(pod, true, startedAt);
  const inits = (pod.spec?.initContainers as ContainerSpec[] | undefined) ?? [];
  if (inits.length > 0) {
    status.initContainerStatuses = inits.map((c) => ({
      name: c.name,
      image: c.image,
      imageID: '',
      containerID: containerId(uid, c.name),
      ready: true,
      started: false,
      restartCount: 0,
      state: {
        terminated: {
          exitCode: 0,
          reason: 'Completed',
          startedAt,
          finishedAt: startedAt,
          containerID: containerId(uid, c.name),
        },
      },
    }));
  }
  status.containerStatuses = containers.map((c) => ({
    name: c.name,
    image: c.image,
    imageID: '',
    containerID: containerId(uid, c.name),
    ready: true,
    started: true,
    restartCount: 0,
    state: { running: { startedAt } },
  }));
  applyReadiness(pod, startedAt);
  return undefined;
}

/** Epoch ms at which the first still-running container of a pod ends, or undefined. Does not change the pod. */
function nextContainerEnd(pod: KubeObject, config: ResolvedConfig): number | undefined {
  const specs = new Map(
    ((pod.spec?.containers as ContainerSpec[] | undefined) ?? []).map((c) => [c.name, c]),
  );
  let next: number | undefined;
  for (const cs of (pod.status?.containerStatuses as
    { name: string; image?: string; state?: { running?: { startedAt?: string } } }[] | undefined) ?? []) {
    const started = parseTime(cs.state?.running?.startedAt);
    if (started === undefined) continue;
    const run = simulatedRun(
      specs.get(cs.name) ?? { image: cs.image },
      config.durations,
      config.defaultDurationSeconds,
      pod.metadata.annotations,
    );
    const end = started + run.durationSeconds * 1000;
    next = Math.min(next ?? end, end);
  }
  return next;
}

/**
 * Ends the containers of a run-to-completion pod whose run time is over; the pod becomes
 * Succeeded (every exit code 0) or Failed once all containers ended. Returns the epoch ms the
 * next container ends, or undefined; `changed` tells whether the pod was modified.
 */
function finishContainers(
  pod: KubeObject,
  nowMs: number,
  config: ResolvedConfig,
): { nextMs?: number; changed: boolean } {
  const specs = new Map(
    ((pod.spec?.containers as ContainerSpec[] | undefined) ?? []).map((c) => [c.name, c]),
  );
  const statuses = (pod.status?.containerStatuses as Record<string, any>[] | undefined) ?? []; // eslint-disable-line @typescript-eslint/no-explicit-any
  let nextMs: number | undefined;
  let changed = false;
  for (const cs of statuses) {
    const started = parseTime(cs.state?.running?.startedAt);
    if (started === undefined) continue;
    const run = simulatedRun(
      specs.get(cs.name) ?? { image: cs.image },
      config.durations,
      config.defaultDurationSeconds,
      pod.metadata.annotations,
    );
    const endMs = started + run.durationSeconds * 1000;
    if (endMs > nowMs) {
      nextMs = Math.min(nextMs ?? endMs, endMs);
      continue;
    }
    const terminated: Record<string, unknown> = {
      exitCode: run.exitCode,
      reason: run.reason,
      startedAt: cs.state.running.startedAt,
      finishedAt: k8sTime(endMs),
      containerID: cs.containerID,
    };
    if (run.terminationMessage !== undefined) terminated.message = run.terminationMessage;
    cs.state = { terminated };
    cs.ready = false;
    cs.started = false;
    changed = true;
  }
  const allDone = statuses.length > 0 && statuses.every((cs) => cs.state?.terminated);
  if (changed && allDone) {
    const failed = statuses.some((cs) => cs.state.terminated.exitCode !== 0);
    const lastMs = Math.max(...statuses.map((cs) => parseTime(cs.state.terminated.finishedAt) ?? 0));
    pod.status.phase = failed ? 'Failed' : 'Succeeded';
    pod.status.conditions = readyConditions(pod, false, k8sTime(lastMs), 'PodCompleted');
  }
  return nextMs === undefined ? { changed } : { nextMs, changed };
}

/**
 * The kubelets as one {@link SimController}. With `finishOnly` it only ends containers whose run
 * time is over (named `kubelet-finish`): run first in a pass, it lets the Job controller see every
 * pod that ended before `now` even when the clock jumped past a Job's deadline.
 */
export function kubeletController(config: ResolvedConfig, finishOnly = false): SimController {
  const gate = new ChangeGate();
  return {
    name: finishOnly ? 'kubelet-finish' : 'kubelet',
    reconcile(store: SimStore, now: Date): void {
      if (!gate.open(store, now)) return;
      const rv = store.resourceVersion();
      const nowMs = now.getTime();
      let nextDue = Number.POSITIVE_INFINITY;
      // A copy of the array (not of the pods): started pods are swapped in, so the GPU indices
      // handed to one pod are seen by the next one on the same node.
      const pods = [...readAll(store, 'pods')];
      let nodes: Map<string, KubeObject> | undefined;
      let byNode: Map<string, number[]> | undefined; // node name → indices into `pods`
      for (let i = 0; i < pods.length; i++) {
        const stored = pods[i]!;
        const nodeName = stored.spec?.nodeName as string | undefined;
        if (!nodeName || isTerminal(stored) || stored.metadata.deletionTimestamp) continue;
        const phase = stored.status?.phase ?? 'Pending';
        if (phase === 'Pending' && !finishOnly) {
          nodes ??= new Map(readAll(store, 'nodes').map((n) => [n.metadata.name, n]));
          const node = nodes.get(nodeName);
          if (!node || !isNodeReady(node)) continue;
          if (!byNode) {
            byNode = new Map();
            pods.forEach((p, k) => {
              const n = p.spec?.nodeName as string | undefined;
              if (!n) return;
              const list = byNode!.get(n);
              if (list) list.push(k);
              else byNode!.set(n, [k]);
            });
          }
          const pod = structuredClone(stored);
          const neighbours = (byNode.get(nodeName) ?? []).map((k) => pods[k]!);
          const due = startPod(pod, node, nowMs, config, neighbours);
          if (due === undefined && config.imagePullSeconds > 0) {
            // Its images are on the node now: the next pod that needs them pulls nothing.
            const pulled = withImages(node, pod);
            if (pulled) nodes.set(nodeName, store.update('nodes', pulled));
          }
          if (due !== undefined) nextDue = Math.min(nextDue, due);
          else if (runsToCompletion(pod)) {
            const { nextMs } = finishContainers(pod, nowMs, config);
            if (nextMs !== undefined) nextDue = Math.min(nextDue, nextMs);
          }
          pods[i] = write(store, pod) ?? stored;
        } else if (phase === 'Running' && !finishOnly && failsReadiness(stored)) {
          const pod = structuredClone(stored);
          applyReadiness(pod, k8sTime(nowMs));
          pods[i] = write(store, pod) ?? stored;
        } else if (phase === 'Running' && runsToCompletion(stored)) {
          const end = nextContainerEnd(stored, config);
          if (end === undefined) continue;
          if (end > nowMs) {
            nextDue = Math.min(nextDue, end);
            continue;
          }
          const pod = structuredClone(stored);
          const { nextMs, changed } = finishContainers(pod, nowMs, config);
          if (nextMs !== undefined) nextDue = Math.min(nextDue, nextMs);
          if (changed) pods[i] = write(store, pod) ?? stored;
        }
      }
      gate.close(rv, nextDue);
    },
  };
}

/** Writes a pod; returns it as stored, or undefined when it changed or went away meanwhile (the next pass works on the current object). */
function write(store: SimStore, pod: KubeObject): KubeObject | undefined {
  try {
    return store.update('pods', pod);
  } catch (err) {
    if (!(err instanceof SimApiError)) throw err;
    return undefined;
  }
}
