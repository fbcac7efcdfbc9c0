/**
 * A small HorizontalPodAutoscaler (autoscaling/v2) controller for Deployments, driven by the load
 * model (https://kubernetes.io/docs/tasks/run-application/horizontal-pod-autoscale/#algorithm-details).
 *
 * Every `hpaSyncSeconds` (15 s) of simulated time per HPA:
 * - the metric is the target Deployment's algorithm (`gpuops.dev/algorithm` label of its pod
 *   template) per-GPU utilisation from the load model (what dcgm-exporter would report as
 *   `DCGM_FI_DEV_GPU_UTIL`), whatever metric name the HPA names; the target is the first metric's
 *   `target.averageValue` / `averageUtilization` / `value` (percent), 80 when none;
 * - desired = ceil(serving pods × utilisation / target), unchanged within the 10 % tolerance,
 *   clamped to `minReplicas` (default 1) .. `maxReplicas`;
 * - then Kubernetes' scaling behaviour (`hpa-behavior.ts`): `spec.behavior` over the defaults —
 *   scale-down stabilisation over the window of recommendations (`hpaScaleDownStabilizationSeconds`,
 *   300 s: the highest recommendation of the last 300 s wins), scale-up at most 4 pods or 100 %
 *   per 15 s, scale-down at most 100 % per 15 s;
 * - without a load model, or with no serving pod, there is no metric: only min/max are enforced and
 *   `ScalingActive` is False (`FailedGetPodsMetric`) — never a scale-down on missing data;
 * - it writes the Deployment's `spec.replicas` and the status: `currentReplicas`,
 *   `desiredReplicas`, `lastScaleTime`, `currentMetrics`, conditions `AbleToScale`,
 *   `ScalingActive`, `ScalingLimited` (`TooManyReplicas` when it sits at the maximum).
 */
import { servingAlgorithm } from '../load-model.js';
import { SimApiError, type KubeObject, type SimController, type SimStore } from '../types.js';
import type { ResolvedConfig } from './config.js';
import { ChangeGate } from './gate.js';
import { applyBehavior, behaviorOf, type Timed } from './hpa-behavior.js';
import { readAll, readOne, writeChangedStatus } from './read.js';
import { ALGORITHM_LABEL, isOwnedBy, parseQuantity, podGpus, setCondition } from './pods.js';
import { k8sTime } from './time.js';

/** The HPA's target (percent) and metric name from `spec.metrics[0]`. */
export function hpaTarget(hpa: KubeObject): { metric: string; target: number } {
  const m = ((hpa.spec?.metrics as Record<string, any>[] | undefined) ?? [])[0]; // eslint-disable-line @typescript-eslint/no-explicit-any
  if (!m) return { metric: 'cpu', target: 80 };
  const body = m.pods ?? m.object ?? m.external ?? m.resource ?? m.containerResource ?? {};
  const metric = String(body.metric?.name ?? body.name ?? 'cpu');
  const t = body.target ?? {};
  const raw = t.averageValue ?? t.averageUtilization ?? t.value;
  const target = parseQuantity(raw);
  return { metric, target: target > 0 ? target : 80 };
}

/**
 * Replica recommendation (pure): `ceil(pods × utilisation / target)`, kept at `current` within
 * the 10 % tolerance. `pods` is the number of serving pods.
 */
export function recommendReplicas(
  current: number,
  pods: number,
  utilization: number,
  target: number,
): number {
  const ratio = utilization / target;
  if (Math.abs(ratio - 1) <= 0.1) return current;
  return Math.ceil(pods * ratio);
}

/** The HPA controller as a {@link SimController}. */
export function hpaController(config: ResolvedConfig): SimController {
  const gate = new ChangeGate();
  const lastEval = new Map<string, number>();
  const history = new Map<string, HpaHistory>();
  return {
    name: 'horizontal-pod-autoscaler',
    reconcile(store: SimStore, now: Date): void {
      if (!gate.open(store, now)) return;
      const rv = store.resourceVersion();
      const hpas = readAll(store, 'horizontalpodautoscalers');
      const nowMs = now.getTime();
      let nextDue = Number.POSITIVE_INFINITY;
      let pods: readonly KubeObject[] | undefined;
      for (const hpa of hpas) {
        const key = hpa.metadata.uid ?? `${hpa.metadata.namespace}/${hpa.metadata.name}`;
        const last = lastEval.get(key);
        if (last !== undefined && nowMs < last + config.hpaSyncSeconds * 1000) {
          nextDue = Math.min(nextDue, last + config.hpaSyncSeconds * 1000);
          continue;
        }
        lastEval.set(key, nowMs);
        nextDue = Math.min(nextDue, nowMs + config.hpaSyncSeconds * 1000);
        pods ??= readAll(store, 'pods');
        try {
          let h = history.get(key);
          if (!h) history.set(key, (h = { recommendations: [], events: [] }));
          syncHpa(store, hpa, pods, now, config, h);
        } catch (err) {
          if (!(err instanceof SimApiError)) throw err; // a bug, not a race: let the simulator report it
          // Changed or deleted meanwhile: the next evaluation works on the current objects.
        }
      }
      gate.close(rv, nextDue);
    },
  };
}

/** What kube-controller-manager keeps in memory per HPA: raw recommendations and scale events. */
interface HpaHistory {
  recommendations: Timed[];
  events: Timed[];
}

/** Drops history older than the longest window or period the behaviour looks at. */
function prune(h: HpaHistory, nowMs: number, keepSeconds: number): void {
  const cut = nowMs - keepSeconds * 1000;
  h.recommendations = h.recommendations.filter((r) => r.atMs > cut);
  h.events = h.events.filter((e) => e.atMs > cut);
}

/** The names of the ReplicaSets `deploy` owns (in its namespace), read without copying them. */
function ownedSetNames(store: SimStore, deploy: KubeObject): Set<string> {
  const ns = deploy.metadata.namespace;
  return new Set(
    readAll(store, 'replicasets')
      .filter((rs) => (ns === undefined || rs.metadata.namespace === ns) && isOwnedBy(rs, deploy))
      .map((rs) => rs.metadata.name),
  );
}

function syncHpa(
  store: SimStore,
  hpa: KubeObject,
  pods: readonly KubeObject[],
  now: Date,
  config: ResolvedConfig,
  history: HpaHistory,
): void {
  const at = k8sTime(now);
  const ref = (hpa.spec?.scaleTargetRef ?? {}) as { kind?: string; name?: string };
  const status = { ...(hpa.status ?? {}) } as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  let conditions = status.conditions as Record<string, unknown>[] | undefined;
  const deploy =
    ref.kind === 'Deployment' && ref.name
      ? readOne(store, 'deployments', hpa.metadata.namespace, ref.name)
      : undefined;
  if (!deploy) {
    conditions = setCondition(
      conditions,
      {
        type: 'AbleToScale',
        status: 'False',
        reason: 'FailedGetScale',
        message: `the HPA controller was unable to get the target's current scale: ${String(ref.kind)} "${String(ref.name)}" not found`,
      },
      at,
    );
    return writeHpaStatus(store, hpa, { ...status, conditions });
  }
  const min = typeof hpa.spec?.minReplicas === 'number' ? hpa.spec.minReplicas : 1;
  const max = typeof hpa.spec?.maxReplicas === 'number' ? hpa.spec.maxReplicas : min;
  const current = typeof deploy.spec?.replicas === 'number' ? deploy.spec.replicas : 1;
  const algorithm = deploy.spec?.template?.metadata?.labels?.[ALGORITHM_LABEL] as string | undefined;
  const { metric, target } = hpaTarget(hpa);
  const sets = ownedSetNames(store, deploy);
  const serving = pods.filter(
    (p) =>
      p.metadata.namespace === deploy.metadata.namespace &&
      p.metadata.ownerReferences?.some((r) => r.kind === 'ReplicaSet' && sets.has(r.name)) &&
      servingAlgorithm(p) !== undefined,
  );
  const allServingGpus =
    algorithm === undefined
      ? 0
      : pods.filter((p) => servingAlgorithm(p) === algorithm).reduce((s, p) => s + podGpus(p), 0);

  let proposal = current;
  let utilization: number | undefined;
  if (current === 0) {
    conditions = setCondition(
      conditions,
      {
        type: 'ScalingActive',
        status: 'False',
        reason: 'ScalingDisabled',
        message: 'scaling is disabled since the replica count of the target is zero',
      },
      at,
    );
  } else if (!config.loadModel || algorithm === undefined || serving.length === 0) {
    conditions = setCondition(
      conditions,
      {
        type: 'ScalingActive',
        status: 'False',
        reason: 'FailedGetPodsMetric',
        message: `the HPA was unable to compute the replica count: unable to get metric ${metric}: no metrics returned`,
      },
      at,
    );
  } else {
    utilization = config.loadModel.algorithmUtilization(algorithm, allServingGpus, now);
    proposal = recommendReplicas(current, serving.length, utilization, target);
    conditions = setCondition(
      conditions,
      {
        type: 'ScalingActive',
        status: 'True',
        reason: 'ValidMetricFound',
        message: `the HPA was able to successfully calculate a replica count from pods metric ${metric}`,
      },
      at,
    );
  }
  let desired = current === 0 ? 0 : Math.min(max, Math.max(min, proposal));
  if (current !== 0) {
    conditions = setCondition(
      conditions,
      proposal > max
        ? {
            type: 'ScalingLimited',
            status: 'True',
            reason: 'TooManyReplicas',
            message: 'the desired replica count is more than the maximum replica count',
          }
        : proposal < min
          ? {
              type: 'ScalingLimited',
              status: 'True',
              reason: 'TooFewReplicas',
              message: 'the desired replica count is less than the minimum replica count',
            }
          : {
              type: 'ScalingLimited',
              status: 'False',
              reason: 'DesiredWithinRange',
              message: 'the desired count is within the acceptable range',
            },
      at,
    );
  }
  let able = {
    type: 'AbleToScale',
    status: 'True',
    reason: 'ReadyForNewScale',
    message: 'recommended size matches current size',
  };
  if (current !== 0 && utilization !== undefined) {
    const behavior = behaviorOf(hpa.spec?.behavior, config.hpaScaleDownStabilizationSeconds);
    const nowMs = now.getTime();
    const raw = Math.min(max, Math.max(min, proposal));
    const applied = applyBehavior({
      nowMs,
      current,
      desired: raw,
      minReplicas: min,
      maxReplicas: max,
      recommendations: history.recommendations,
      events: history.events,
      behavior,
    });
    history.recommendations.push({ atMs: nowMs, replicas: raw });
    desired = applied.replicas;
    if (applied.reason === 'ScaleDownStabilized' && desired > raw) {
      able = {
        type: 'AbleToScale',
        status: 'True',
        reason: 'ScaleDownStabilized',
        message:
          'recent recommendations were higher than current one, applying the highest recent recommendation',
      };
    } else if (applied.reason === 'ScaleUpLimit' || applied.reason === 'ScaleDownLimit') {
      able = {
        type: 'AbleToScale',
        status: 'True',
        reason: applied.reason,
        message: `the desired replica count is ${applied.reason === 'ScaleUpLimit' ? 'increasing' : 'decreasing'} faster than the maximum scale rate`,
      };
    }
    if (desired !== current) history.events.push({ atMs: nowMs, replicas: desired - current });
    const longest = Math.max(
      behavior.scaleUp.stabilizationWindowSeconds,
      behavior.scaleDown.stabilizationWindowSeconds,
      ...behavior.scaleUp.policies.map((p) => p.periodSeconds),
      ...behavior.scaleDown.policies.map((p) => p.periodSeconds),
    );
    prune(history, nowMs, longest);
  }
  if (desired !== current) {
    // `deploy` is the stored object (read-only): the update is a new object.
    store.update('deployments', { ...deploy, spec: { ...(deploy.spec ?? {}), replicas: desired } });
    status.lastScaleTime = at;
    able = {
      type: 'AbleToScale',
      status: 'True',
      reason: 'SucceededRescale',
      message: `the HPA controller was able to update the target scale to ${desired}`,
    };
  }
  conditions = setCondition(conditions, able, at);
  const next: Record<string, unknown> = {};
  if (hpa.metadata.generation !== undefined) next.observedGeneration = hpa.metadata.generation;
  if (status.lastScaleTime) next.lastScaleTime = status.lastScaleTime;
  next.currentReplicas = typeof deploy.status?.replicas === 'number' ? deploy.status.replicas : 0;
  next.desiredReplicas = desired;
  if (utilization !== undefined) {
    next.currentMetrics = [
      {
        type: 'Pods',
        pods: { metric: { name: metric }, current: { averageValue: String(Math.round(utilization)) } },
      },
    ];
  }
  next.conditions = conditions;
  writeHpaStatus(store, hpa, next);
}

function writeHpaStatus(store: SimStore, hpa: KubeObject, status: Record<string, unknown>): void {
  writeChangedStatus(store, 'horizontalpodautoscalers', hpa.metadata.namespace, hpa.metadata.name, status);
}
