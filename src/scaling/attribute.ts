import type { PodInfo } from '../cluster/index.js';
import type { GpuSeries } from '../metrics/index.js';
import type { Policy } from '../definitions/index.js';
import type { Attribution, DroppedSeries, PodSample, UnattributedGpu } from './types.js';
import { addTo, byAlgorithm, countEachGpuOnce, type Candidate, type Grouped } from './attribute-count.js';
import { podIndexOf } from './lookups.js';
import { DCGM, GPUOPS } from '../util/index.js';
import { nodeRefusal, nodesByPodName, type NodesByPodName } from './series-node.js';
import {
  finishSeries,
  podOf,
  seriesIdentity,
  type Refusal,
  type SeriesIdentity,
  type SeriesMemo,
} from './series-identity.js';

export { gpuKey, workloadPod } from './series-identity.js';

/** Accepts a value a little above 100 % (rounding in the exporter); above that it is junk. */
const PERCENT_SLACK = 0.5;

/**
 * The Deployment that owns a pod (Pod → ReplicaSet → Deployment; `ownerIndex(…).deploymentOf` of
 * `src/cluster/owners.ts`), or null when no Deployment does.
 */
export type DeploymentOf = (pod: PodInfo) => string | null;

/** How {@link attribute} reads an answer beyond the policy's defaults. */
export interface AttributeOptions {
  /** The metric whose series count (default: the policy's `scaling.metric`). */
  metric?: string;
  /** Its values are a ratio 0..1, read as percent (default: the metric is `DCGM_FI_PROF_GR_ENGINE_ACTIVE`). */
  ratio?: boolean;
  /**
   * Nodes whose GPUs are shared by time-slicing or MPS (node → how, e.g. `time-slicing, 4
   * replicas`): dcgm-exporter reports the whole device there, so no series counts as a pod's own.
   */
  sharedNodes?: ReadonlyMap<string, string>;
  /**
   * The identities of the last answer's series, kept between passes (`series-identity.ts`): a
   * series with the label set the last answer had at its place is not read again.
   */
  memo?: SeriesMemo;
  /**
   * An object that stands for `deploymentOf` with the memo: on two calls with the same one,
   * `deploymentOf` gives the same answer for the same pod object (`decideScaling` passes its kept
   * owner index when no pod is claimed), so a series' `podRefusal` is kept with its identity while
   * its pod object is the same. Absent: judged afresh.
   */
  deploymentKey?: object;
}

/** What every series of one answer is judged against. */
interface Judge {
  sharedNodes: ReadonlyMap<string, string>;
  metric: string;
  ratio: boolean;
  now: number;
  staleBefore: number;
  staleSampleSeconds: number;
  pods: ReadonlyMap<string, PodInfo>;
  deploymentOf: DeploymentOf | undefined;
  nodesByName: NodesByPodName;
  memo: SeriesMemo | undefined;
  deploymentKey: object | undefined;
}

/**
 * Where each series' verdict goes: a candidate by its GPU, a GPU without a pod, or a drop (a
 * series of another metric goes nowhere). Added to directly: no wrapper is made per series.
 */
interface Verdicts {
  byGpu: Grouped<Candidate>;
  unattributed: UnattributedGpu[];
  dropped: DroppedSeries[];
}

/**
 * Attributes raw dcgm-exporter series to pods and algorithms (pure). `now` is the answer's own
 * evaluation time (`UtilizationReading.evaluatedAt`), never another clock: a sample's age is
 * judged on the clock that stamped it. The traps real DCGM data has
 * (see `fixtures/cluster-mixed/README.md`):
 *
 * - the workload pod is `exported_pod`/`exported_namespace` when present (Prometheus renamed the
 *   exporter's labels because the target's own `pod` label won), else `pod`/`namespace`;
 * - a series whose pod is the exporter itself (`pod` = `Hostname` and no `exported_pod`: what
 *   Prometheus stores for a GPU with `pod=""` when the target carries its own `pod` label) is a
 *   series with no pod;
 * - a series with an empty pod belongs to no algorithm; it is listed in `unattributed` (busy when
 *   its value is > 0). `Hostname` is the exporter pod's name, so the host is the `node` label when
 *   a page's own node is known;
 * - `DCGM_FI_PROF_GR_ENGINE_ACTIVE` is a ratio 0..1: multiplied by 100 when the policy selects it;
 * - `NaN`/`±Inf`, values outside 0..100 %, and samples older than
 *   `policy.spec.scaling.staleSampleSeconds` at `now` are dropped with a reason. A sample exactly
 *   `staleSampleSeconds` old is kept (the limit is the oldest age still usable, as a lookback
 *   includes its boundary); one millisecond older is `Stale`;
 * - only pods in the snapshot, Ready, not terminating and managed by gpuops (with a
 *   `gpuops.dev/algorithm` label) count; with `deploymentOf`, only when the algorithm's own
 *   Deployment owns the pod (Pod → ReplicaSet → Deployment): a pod that carries the labels but
 *   belongs to another Deployment (a copied "shadow") or to a Job (a benchmark run) is `NotOwned`;
 * - a series counts for a pod only when it comes from the node the pod runs on (`WrongNode`,
 *   `UnknownNode`: see `series-node.ts`): a scrape target that is not the node's exporter cannot
 *   steer another team's algorithm by naming its pod;
 * - one GPU (UUID, plus `GPU_I_ID` on MIG) reported under several pods (time-slicing) is counted
 *   once, for the first pod by `namespace/name`, and flagged; the other pods get no sample from it;
 * - a pod named by more GPUs than it requests (`nvidia.com/gpu`) is `TooManyGpus`, every series of
 *   it: which of them is the pod's own cannot be told, so none counts and the pod has no sample;
 * - a pod with several GPUs gives one sample: the mean of its GPUs (`at` = its newest sample).
 *
 * Series of another metric than the policy's are ignored silently (a page holds many fields).
 * `podIndex` is `pods` by `namespace/name` (`podIndexOf`; a caller that kept it passes it in).
 */
export function attribute(
  series: readonly GpuSeries[],
  pods: readonly PodInfo[],
  policy: Policy,
  now: Date,
  deploymentOf?: DeploymentOf,
  podIndex: ReadonlyMap<string, PodInfo> = podIndexOf(pods),
  options: AttributeOptions = {},
): Attribution {
  const judge = judgeOf(podIndex, policy, now, deploymentOf, options);
  const out: Verdicts = { byGpu: new Map(), unattributed: [], dropped: [] };
  for (let i = 0; i < series.length; i++) verdict(series[i]!, i, judge, out);
  finishSeries(judge.memo, series.length);
  const once = countEachGpuOnce(out.byGpu);
  const { unattributed, dropped } = out;
  dropped.push(...once.dropped);
  return { byAlgorithm: byAlgorithm(once, judge.memo), unattributed, dropped, flags: once.flags };
}

function judgeOf(
  index: ReadonlyMap<string, PodInfo>,
  policy: Policy,
  now: Date,
  deploymentOf: DeploymentOf | undefined,
  options: AttributeOptions,
): Judge {
  const { staleSampleSeconds } = policy.spec.scaling;
  const metric = options.metric ?? policy.spec.scaling.metric;
  return {
    sharedNodes: options.sharedNodes ?? new Map(),
    metric,
    ratio: options.ratio ?? metric === DCGM.GR_ENGINE_ACTIVE,
    now: now.getTime(),
    staleBefore: now.getTime() - staleSampleSeconds * 1000,
    staleSampleSeconds,
    pods: index,
    deploymentOf,
    nodesByName: nodesByPodName(index.values()),
    memo: options.memo,
    deploymentKey: options.deploymentKey,
  };
}

/** One series judged (into `out`): its value, its age, then its pod. */
function verdict(s: GpuSeries, i: number, j: Judge, out: Verdicts): void {
  if (s.metric !== j.metric) return;
  const id = seriesIdentity(s.labels, i, j.memo);
  const { gpu, namespace, pod } = id;
  if (!Number.isFinite(s.value)) return drop(out, id, 'NotFinite', `value ${s.value} is not a number`);
  const utilization = j.ratio ? s.value * 100 : s.value;
  if (utilization < 0 || utilization > 100 + PERCENT_SLACK)
    return drop(out, id, 'OutOfRange', `${utilization}% is outside 0..100% (${j.metric})`);
  if (!(s.timestamp >= j.staleBefore)) {
    const age = Math.round((j.now - s.timestamp) / 1000);
    const at = new Date(j.now).toISOString();
    return drop(
      out,
      id,
      'Stale',
      `newest sample is ${age}s old (limit ${j.staleSampleSeconds}s) at the answer's evaluation time ${at}`,
      age,
    );
  }
  if (pod === '') {
    const host = s.labels.node ?? s.labels.Hostname ?? '';
    out.unattributed.push({ gpu, host, utilization: Math.min(utilization, 100) });
    return;
  }
  const podKey = id.podKey;
  const info = podOf(id, j.pods);
  const refused = info
    ? (ownerRefusal(id, info, j) ?? nodeRefusal(s.labels, info, j.nodesByName) ?? sharedRefusal(info, j))
    : { reason: 'UnknownPod' as const, message: 'pod is not in the snapshot' };
  if (refused) return drop(out, id, refused.reason, refused.message);
  addTo(out.byGpu, gpu, {
    gpu,
    namespace,
    pod,
    podKey,
    algorithm: info!.algorithm!,
    gpuRequest: info!.gpuRequest,
    utilization: Math.min(utilization, 100),
    timestamp: s.timestamp,
    window: s.window ? windowOf(s.window, j) : undefined,
  });
}

/** A series dropped with `reason` (a function apart: no closure is made for the series that are kept). */
function drop(
  out: Verdicts,
  id: SeriesIdentity,
  reason: DroppedSeries['reason'],
  message: string,
  ageSeconds?: number,
): void {
  const { gpu, namespace, pod } = id;
  out.dropped.push({
    gpu,
    namespace,
    pod,
    reason,
    message: `${where(gpu, namespace, pod)}: ${message}`,
    ...(ageSeconds === undefined ? {} : { ageSeconds }),
  });
}

/**
 * A pod on a node that shares its GPUs (time-slicing, MPS: `nvidia.com/gpu.replicas` > 1) gets no
 * sample from a device-level field: dcgm-exporter gives every pod on the GPU the whole device's
 * value, which is not the pod's own load (dcgm-exporter reports it so). A service metric is the
 * pod's own; dividing by the pods on the device would be sound only when they share it evenly.
 */
function sharedRefusal(info: PodInfo, j: Judge): { reason: 'SharedDevice'; message: string } | null {
  const how = info.nodeName === null ? undefined : j.sharedNodes.get(info.nodeName);
  if (how === undefined) return null;
  return {
    reason: 'SharedDevice',
    message: `node ${info.nodeName} shares its GPUs (${how}): ${j.metric} is the whole device's, not this pod's; scale it on a serviceMetric`,
  };
}

/** {@link podRefusal} of the series' pod, kept with its identity (`AttributeOptions.deploymentKey`). */
function ownerRefusal(id: SeriesIdentity, info: PodInfo, j: Judge): Refusal | null {
  if (j.deploymentKey === undefined) return podRefusal(info, j.deploymentOf);
  const kept = id.refusal;
  if (kept !== null && kept.by === j.deploymentKey && kept.info === info) return kept.refused;
  const refused = podRefusal(info, j.deploymentOf);
  id.refusal = { by: j.deploymentKey, info, refused };
  return refused;
}

/** Why a known pod's GPU does not count for its algorithm, or null when it does. */
export function podRefusal(info: PodInfo, deploymentOf: DeploymentOf | undefined): Refusal | null {
  if (info.terminating) return { reason: 'PodTerminating', message: 'pod is terminating' };
  if (!info.ready) return { reason: 'PodNotReady', message: 'pod is not Ready' };
  if (!info.managed || info.algorithm === null)
    return { reason: 'NotManaged', message: 'pod is not managed by gpuops' };
  if (!deploymentOf) return null;
  const owner = deploymentOf(info);
  if (owner === info.algorithm) return null;
  const by = owner
    ? `Deployment ${owner} (ReplicaSet ${info.owner!.name})`
    : info.owner
      ? `${info.owner.kind} ${info.owner.name}`
      : 'no controller';
  return {
    reason: 'NotOwned',
    message: `pod carries ${GPUOPS.algorithm}=${info.algorithm} but belongs to ${by}, not Deployment ${info.algorithm}`,
  };
}

/** A series' window in percent, and how far back before `now` it reaches (seconds). */
function windowOf(w: NonNullable<GpuSeries['window']>, j: Judge): PodSample['window'] {
  return {
    max: Math.min(100, Math.max(0, j.ratio ? w.max * 100 : w.max)),
    coveredSeconds: w.oldest === null ? null : Math.max(0, (j.now - w.oldest) / 1000),
  };
}

function where(gpu: string, namespace: string, pod: string): string {
  return pod === '' ? `GPU ${gpu}` : `GPU ${gpu} of pod ${namespace}/${pod}`;
}
