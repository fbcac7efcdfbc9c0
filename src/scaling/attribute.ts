import type { PodInfo } from '../cluster/types.js';
import type { GpuSeries } from '../metrics/types.js';
import type { Policy } from '../definitions/types.js';
import type {
  AlgorithmAttribution,
  Attribution,
  AttributionFlag,
  DroppedSeries,
  PodSample,
  UnattributedGpu,
} from './types.js';

/** Accepts a value a little above 100 % (rounding in the exporter); above that it is junk. */
const PERCENT_SLACK = 0.5;

interface Candidate {
  gpu: string;
  namespace: string;
  pod: string;
  podKey: string;
  algorithm: string;
  utilization: number;
  timestamp: number;
  window: PodSample['window'];
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
 *   `gpuops.dev/algorithm` label) count;
 * - one GPU (UUID, plus `GPU_I_ID` on MIG) reported under several pods (time-slicing) is counted
 *   once, for the first pod by `namespace/name`, and flagged; the other pods get no sample from it;
 * - a pod with several GPUs gives one sample: the mean of its GPUs (`at` = its newest sample).
 *
 * Series of another metric than the policy's are ignored silently (a page holds many fields).
 */
export function attribute(
  series: readonly GpuSeries[],
  pods: readonly PodInfo[],
  policy: Policy,
  now: Date,
): Attribution {
  const { metric, staleSampleSeconds } = policy.spec.scaling;
  const ratio = metric === 'DCGM_FI_PROF_GR_ENGINE_ACTIVE';
  const staleBefore = now.getTime() - staleSampleSeconds * 1000;
  const podIndex = new Map<string, PodInfo>();
  for (const p of pods) podIndex.set(`${p.namespace}/${p.name}`, p);

  const dropped: DroppedSeries[] = [];
  const unattributed: UnattributedGpu[] = [];
  const byGpu = new Map<string, Candidate[]>();
  const drop = (
    gpu: string,
    namespace: string,
    pod: string,
    reason: DroppedSeries['reason'],
    message: string,
    ageSeconds?: number,
  ) => {
    dropped.push({
      gpu,
      namespace,
      pod,
      reason,
      message,
      ...(ageSeconds === undefined ? {} : { ageSeconds }),
    });
  };

  for (const s of series) {
    if (s.metric !== metric) continue;
    const l = s.labels;
    const gpu = gpuKey(l);
    let namespace = ('exported_namespace' in l ? l.exported_namespace : l.namespace) ?? '';
    let pod = ('exported_pod' in l ? l.exported_pod : l.pod) ?? '';
    if (!('exported_pod' in l) && pod !== '' && pod === l.Hostname) {
      // Prometheus treats the page's `pod=""` as absent, so the target's own `pod` (the exporter,
      // whose name dcgm-exporter reports as `Hostname`) fills it without an `exported_pod`.
      pod = '';
      namespace = '';
    }
    if (!Number.isFinite(s.value)) {
      drop(
        gpu,
        namespace,
        pod,
        'NotFinite',
        `${where(gpu, namespace, pod)}: value ${s.value} is not a number`,
      );
      continue;
    }
    const utilization = ratio ? s.value * 100 : s.value;
    if (utilization < 0 || utilization > 100 + PERCENT_SLACK) {
      drop(
        gpu,
        namespace,
        pod,
        'OutOfRange',
        `${where(gpu, namespace, pod)}: ${utilization}% is outside 0..100% (${metric})`,
      );
      continue;
    }
    if (!(s.timestamp >= staleBefore)) {
      const age = Math.round((now.getTime() - s.timestamp) / 1000);
      drop(
        gpu,
        namespace,
        pod,
        'Stale',
        `${where(gpu, namespace, pod)}: newest sample is ${age}s old (limit ${staleSampleSeconds}s) at the answer's evaluation time ${now.toISOString()}`,
        age,
      );
      continue;
    }
    if (pod === '') {
      unattributed.push({ gpu, host: l.node ?? l.Hostname ?? '', utilization: Math.min(utilization, 100) });
      continue;
    }
    const podKey = `${namespace}/${pod}`;
    const info = podIndex.get(podKey);
    if (!info) {
      drop(gpu, namespace, pod, 'UnknownPod', `${where(gpu, namespace, pod)}: pod is not in the snapshot`);
      continue;
    }
    if (info.terminating) {
      drop(gpu, namespace, pod, 'PodTerminating', `${where(gpu, namespace, pod)}: pod is terminating`);
      continue;
    }
    if (!info.ready) {
      drop(gpu, namespace, pod, 'PodNotReady', `${where(gpu, namespace, pod)}: pod is not Ready`);
      continue;
    }
    if (!info.managed || info.algorithm === null) {
      drop(gpu, namespace, pod, 'NotManaged', `${where(gpu, namespace, pod)}: pod is not managed by gpuops`);
      continue;
    }
    const c: Candidate = {
      gpu,
      namespace,
      pod,
      podKey,
      algorithm: info.algorithm,
      utilization: Math.min(utilization, 100),
      timestamp: s.timestamp,
      window: s.window
        ? {
            max: Math.min(100, Math.max(0, ratio ? s.window.max * 100 : s.window.max)),
            coveredSeconds:
              s.window.oldest === null ? null : Math.max(0, (now.getTime() - s.window.oldest) / 1000),
          }
        : undefined,
    };
    const list = byGpu.get(gpu);
    if (list) list.push(c);
    else byGpu.set(gpu, [c]);
  }

  // One GPU counts once: for one pod (time-slicing) and from one series (duplicates).
  const flags: AttributionFlag[] = [];
  const flagsByAlgorithm = new Map<string, AttributionFlag[]>();
  const droppedByAlgorithm = new Map<string, DroppedSeries[]>();
  const byPod = new Map<string, Candidate[]>();
  for (const [gpu, list] of byGpu) {
    let kept = list[0]!;
    if (list.length > 1) {
      list.sort((a, b) => (a.podKey < b.podKey ? -1 : a.podKey > b.podKey ? 1 : b.timestamp - a.timestamp));
      kept = list[0]!;
      const podKeys = [...new Set(list.map((c) => c.podKey))];
      for (const c of list.slice(1)) {
        const shared = c.podKey !== kept.podKey;
        const d: DroppedSeries = {
          gpu,
          namespace: c.namespace,
          pod: c.pod,
          reason: shared ? 'SharedGpu' : 'Duplicate',
          message: shared
            ? `GPU ${gpu} is time-sliced between ${podKeys.join(', ')}; counted once, for ${kept.podKey}`
            : `GPU ${gpu} of pod ${c.podKey} is reported twice; the newest series counts`,
        };
        dropped.push(d);
        pushTo(droppedByAlgorithm, c.algorithm, d);
      }
      if (podKeys.length > 1) {
        const flag: AttributionFlag = {
          kind: 'TimeSlicedGpu',
          gpu,
          pods: podKeys,
          countedFor: kept.podKey,
          message: `GPU ${gpu} is reported under ${podKeys.length} pods (${podKeys.join(', ')}): time-sliced; counted once, for ${kept.podKey}`,
        };
        flags.push(flag);
        for (const alg of new Set(list.map((c) => c.algorithm))) pushTo(flagsByAlgorithm, alg, flag);
      }
    }
    pushTo(byPod, kept.podKey, kept);
  }

  const byAlgorithm = new Map<string, AlgorithmAttribution>();
  const entry = (algorithm: string): AlgorithmAttribution => {
    let e = byAlgorithm.get(algorithm);
    if (!e) {
      e = {
        algorithm,
        samples: [],
        flags: flagsByAlgorithm.get(algorithm) ?? [],
        dropped: droppedByAlgorithm.get(algorithm) ?? [],
      };
      byAlgorithm.set(algorithm, e);
    }
    return e;
  };
  for (const list of byPod.values()) {
    const first = list[0]!;
    let sum = 0;
    let newest = -Infinity;
    for (const c of list) {
      sum += c.utilization;
      if (c.timestamp > newest) newest = c.timestamp;
    }
    const sample: PodSample = {
      namespace: first.namespace,
      pod: first.pod,
      utilization: sum / list.length,
      at: new Date(newest).toISOString(),
      gpus: list.map((c) => c.gpu).sort(),
    };
    if (list.every((c) => c.window)) {
      let max = 0;
      let covered: number | null = Infinity;
      for (const c of list) {
        max += c.window!.max;
        const cs = c.window!.coveredSeconds;
        covered = covered === null || cs === null ? null : Math.min(covered, cs);
      }
      sample.window = { max: max / list.length, coveredSeconds: covered };
    }
    entry(first.algorithm).samples.push(sample);
  }
  for (const alg of [...flagsByAlgorithm.keys(), ...droppedByAlgorithm.keys()]) entry(alg);
  for (const e of byAlgorithm.values())
    e.samples.sort((a, b) => (a.pod < b.pod ? -1 : a.pod > b.pod ? 1 : 0));
  return { byAlgorithm, unattributed, dropped, flags };
}

function where(gpu: string, namespace: string, pod: string): string {
  return pod === '' ? `GPU ${gpu}` : `GPU ${gpu} of pod ${namespace}/${pod}`;
}

/**
 * Identity of one GPU across series: its `UUID` (plus `GPU_I_ID` for a MIG instance, which
 * shares the parent's UUID), else `<node or Hostname>/<gpu index>`.
 */
export function gpuKey(labels: Record<string, string>): string {
  const base = labels.UUID || `${labels.node ?? labels.Hostname ?? '?'}/${labels.gpu ?? '?'}`;
  return labels.GPU_I_ID ? `${base}/mig-${labels.GPU_I_ID}` : base;
}

function pushTo<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
