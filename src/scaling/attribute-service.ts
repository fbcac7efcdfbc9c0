/**
 * Attributing a service metric's series to pods (pure): one series per pod, labels `namespace`
 * and `pod` (the template's `sum by (namespace, pod)`), its value in the metric's own unit.
 */
import type { PodInfo } from '../cluster/index.js';
import type { GpuSeries } from '../metrics/index.js';
import type { Policy } from '../definitions/index.js';
import { podRefusal, type DeploymentOf } from './attribute.js';
import { pushTo } from './attribute-count.js';
import type { AlgorithmAttribution, Attribution, DroppedSeries } from './types.js';

/**
 * The samples of a service metric, by algorithm. The rules of `attribute` that are not about GPUs
 * hold (`NotFinite`, `Stale` at `now`, the answer's own time, `UnknownPod`, not Ready, not
 * managed, not owned by the algorithm's Deployment); besides them:
 * - a value below 0 is `OutOfRange` (a queue, a rate, a time is never negative); there is no upper
 *   bound, the unit is the metric's;
 * - a series without a `pod` label is `NoPod` (a template that sums over pods is no per-pod signal);
 * - a pod with several series (a template that keeps another label, two scrape jobs) is
 *   `SeveralSeries`, all of them: which one is the pod's cannot be told, so the pod has no sample.
 * `metric` is the policy's name of the metric (the series' `metric`).
 */
export function attributeServiceMetric(
  series: readonly GpuSeries[],
  index: ReadonlyMap<string, PodInfo>,
  policy: Policy,
  now: Date,
  deploymentOf?: DeploymentOf,
): Attribution {
  const limit = policy.spec.scaling.staleSampleSeconds;
  const dropped: DroppedSeries[] = [];
  const byPod = new Map<string, GpuSeries[]>();
  const drop = (s: GpuSeries, reason: DroppedSeries['reason'], message: string, ageSeconds?: number) => {
    const namespace = s.labels.namespace ?? '';
    const pod = s.labels.pod ?? '';
    const where = pod === '' ? `series ${s.metric}` : `${s.metric} of pod ${namespace}/${pod}`;
    dropped.push({
      gpu: '',
      namespace,
      pod,
      reason,
      message: `${where}: ${message}`,
      ...(ageSeconds === undefined ? {} : { ageSeconds }),
    });
  };
  for (const s of series) {
    if (!Number.isFinite(s.value)) drop(s, 'NotFinite', `value ${s.value} is not a number`);
    else if (s.value < 0) drop(s, 'OutOfRange', `${s.value} is below 0`);
    else if (!(s.timestamp >= now.getTime() - limit * 1000)) {
      const age = Math.round((now.getTime() - s.timestamp) / 1000);
      drop(s, 'Stale', `newest sample is ${age}s old (limit ${limit}s)`, age);
    } else if (!s.labels.pod) drop(s, 'NoPod', 'no pod label: the query does not answer per pod');
    else pushTo(byPod, `${s.labels.namespace ?? ''}/${s.labels.pod}`, s);
  }
  const out = new Map<string, AlgorithmAttribution>();
  for (const [key, list] of byPod) {
    const info = index.get(key);
    const refused = info
      ? podRefusal(info, deploymentOf)
      : { reason: 'UnknownPod' as const, message: 'pod is not in the snapshot' };
    if (refused) {
      for (const s of list) drop(s, refused.reason, refused.message);
      continue;
    }
    if (list.length > 1) {
      for (const s of list)
        drop(s, 'SeveralSeries', `${list.length} series name this pod; the query must answer one per pod`);
      continue;
    }
    const s = list[0]!;
    const entry = out.get(info!.algorithm!) ?? {
      algorithm: info!.algorithm!,
      samples: [],
      flags: [],
      dropped: [],
    };
    entry.samples.push({
      namespace: info!.namespace,
      pod: info!.name,
      utilization: s.value,
      at: new Date(s.timestamp).toISOString(),
      gpus: [],
    });
    out.set(entry.algorithm, entry);
  }
  for (const e of out.values()) e.samples.sort((a, b) => (a.pod < b.pod ? -1 : a.pod > b.pod ? 1 : 0));
  return { byAlgorithm: out, unattributed: [], dropped, flags: [] };
}
