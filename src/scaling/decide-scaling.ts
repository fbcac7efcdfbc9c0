import type { PodInfo, Snapshot } from '../cluster/types.js';
import type { UtilizationReading } from '../metrics/types.js';
import type { Pool, Policy, ResolvedAlgorithm } from '../definitions/types.js';
import { attribute } from './attribute.js';
import type { LoopTiming } from './loop-windows.js';
import { observedStartup, podStartups } from './observed-startup.js';
import type { ProductChoice } from './choose-nodes.js';
import { decideInTurn } from './decide-in-turn.js';
import { countDropped, metricsReport, type MetricsReport } from './metrics-report.js';
import { capacityOf, ownersOf, podIndexOf, podsByDeployment, type ScalingMemo } from './scaling-memo.js';
import type {
  AlgorithmSample,
  Attribution,
  DecisionRecord,
  DroppedSeries,
  HpaState,
  ScalingDecision,
} from './types.js';

/** What Git (and, with the HPA, the cluster) says about one algorithm's Deployment. */
export interface AlgorithmState {
  algorithm: ResolvedAlgorithm;
  /** Pool its Deployment is pinned to in Git, or null. */
  pool: Pool | null;
  /** `spec.replicas` in Git. */
  replicas: number;
  currentReplicaSet?: string | null;
  hpa?: HpaState | null;
  /** The GPU products its replicas run on (`ScalingInput.products`); absent: none known. */
  products?: ProductChoice;
}

/** Inputs of one scaling pass. `recent`: scaling decisions since `historySince(policy, now)`. */
export interface DecideScalingInput {
  algorithms: AlgorithmState[];
  snapshot: Snapshot;
  /** The one reading of the pass (Prometheus answer, scraped pages or files). */
  reading: UtilizationReading;
  recent: DecisionRecord[];
  policy: Policy;
  now: Date;
  /** Memo tables a long-running reconciler keeps from pass to pass (`createScalingMemo()`). */
  memo?: ScalingMemo;
  /** `gpuops run`'s loop delays: the windows follow them (`scaling/loop-windows.ts`); absent: the policy's. */
  loop?: LoopTiming;
}

/** Result of one scaling pass: a decision per algorithm, what was attributed, samples to store. */
export interface DecideScalingResult {
  decisions: ScalingDecision[];
  attribution: Attribution;
  samples: AlgorithmSample[];
  metrics: MetricsReport;
}

/**
 * One scaling pass (pure): attribute the reading to pods at the reading's own evaluation time
 * (`evaluatedAt`; the pass's `now` only when the source gave none); an algorithm's pods are those
 * its Deployment owns (Pod → ReplicaSet → Deployment, `ownerIndex`), so a copied Deployment with
 * the same labels, or a benchmark Job's pod, is neither a replica nor a sample (`NotOwned`); its
 * current ReplicaSet is the one of the Deployment's newest revision. Compute free GPUs from the
 * snapshot, decide every algorithm against that shared capacity (`decideInTurn`). A failed reading
 * is "no data" for every algorithm (`NoData`, never 0 %); a NoData or InsufficientSamples hold
 * names the series of its pods that were dropped and why. A skew between the source's clock and
 * the pass's clock larger than `staleSampleSeconds` is reported in `metrics.warnings`.
 */
export function decideScaling(input: DecideScalingInput): DecideScalingResult {
  const { snapshot, policy, now, reading } = input;
  const evaluatedAt = reading.ok && reading.evaluatedAt !== undefined ? reading.evaluatedAt : now.getTime();
  const memo = input.memo;
  const owners = ownersOf(snapshot.replicaSets, memo);
  const deploymentOf = (p: PodInfo) => owners.deploymentOf(p);
  const attribution = attribute(
    reading.ok ? reading.series : [],
    snapshot.pods,
    policy,
    new Date(evaluatedAt),
    deploymentOf,
    podIndexOf(snapshot.pods, memo),
  );
  const noDataMessage = reading.ok ? null : `no GPU metrics (${reading.reason}): ${reading.message}`;
  const metrics = metricsReport(input, attribution, evaluatedAt, noDataMessage);
  const droppedByPod = new Map<string, DroppedSeries[]>();
  for (const d of attribution.dropped) {
    if (d.pod === '') continue;
    const key = `${d.namespace}/${d.pod}`;
    const list = droppedByPod.get(key);
    if (list) list.push(d);
    else droppedByPod.set(key, [d]);
  }

  const podsByAlgorithm = podsByDeployment(snapshot.pods, owners, memo);
  const recentBySubject = new Map<string, DecisionRecord[]>();
  for (const r of input.recent) {
    if (r.kind !== 'scaling') continue;
    const list = recentBySubject.get(r.subject);
    if (list) list.push(r);
    else recentBySubject.set(r.subject, [r]);
  }

  const samples: AlgorithmSample[] = [];
  const decisions = decideInTurn(
    input.algorithms.map((a) => {
      const attributed = attribution.byAlgorithm.get(a.algorithm.name);
      const own = (attributed?.samples ?? []).filter((x) => x.namespace === a.algorithm.namespace);
      for (const x of own) {
        samples.push({
          algorithm: a.algorithm.name,
          namespace: x.namespace,
          pod: x.pod,
          utilization: x.utilization,
          at: x.at,
        });
      }
      const pods = podsByAlgorithm.get(`${a.algorithm.namespace}/${a.algorithm.name}`) ?? [];
      const lost = pods.flatMap((p) => droppedByPod.get(`${p.namespace}/${p.name}`) ?? []);
      return {
        algorithm: a.algorithm,
        pool: a.pool,
        dropped:
          lost.length === 0
            ? null
            : `${countDropped(lost)}${lost.some((d) => d.reason === 'Stale') ? `; stale limit ${policy.spec.scaling.staleSampleSeconds} s` : ''}`,
        replicas: a.replicas,
        currentReplicaSet:
          a.currentReplicaSet ?? owners.currentReplicaSet(a.algorithm.namespace, a.algorithm.name),
        hpa: a.hpa ?? null,
        pods,
        samples: own,
        flags: attributed?.flags ?? [],
        recent: recentBySubject.get(a.algorithm.name) ?? [],
        noDataMessage,
        ...(a.products ? { products: a.products } : {}),
        ...(input.loop
          ? { loop: { ...input.loop, startupSeconds: observedStartup(podStartups(pods)) } }
          : {}),
      };
    }),
    capacityOf(snapshot, memo),
    policy,
    now,
    memo?.decisions,
  );
  return { decisions, attribution, samples, metrics };
}
