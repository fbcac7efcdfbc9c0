import type { PodInfo, Snapshot, PodConstraints } from '../cluster/index.js';
import type { UtilizationReading } from '../metrics/index.js';
import type { Pool, Policy, ResolvedAlgorithm } from '../definitions/index.js';
import type { LoopTiming } from './loop-windows.js';
import { observedStartup, podStartups } from './observed-startup.js';
import type { ProductChoice } from './choose-nodes.js';
import { otherAutoscalers } from '../cluster/autoscalers.js';
import { specRequest, type PodRequest } from './fit.js';
import type { PodLayout } from './pod-layout.js';
import { placerOf, type Placer } from './placer.js';
import { decideInTurn, type Decide } from './decide-in-turn.js';
import { judgeSignals, type JudgedSignal } from './judged-signals.js';
import { countDropped, metricsReport, type MetricsReport } from './metrics-report.js';
import { signalKey } from './signal-reading.js';
import { keptInput, beginInputs, type InputMemo } from './kept-inputs.js';
import { plainLookups, type ScalingLookups } from './lookups.js';
import { claimDecider } from './claim-decider.js';
import { standbyOffers } from './rules/claim-actions.js';
import type {
  AlgorithmSample,
  Attribution,
  AttributionFlag,
  DecisionRecord,
  HpaState,
  ScalingDecision,
  ScalingInput,
} from './types.js';

/** What Git (and, with the HPA, the cluster) says about one algorithm's Deployment. */
export interface AlgorithmState {
  algorithm: ResolvedAlgorithm;
  /** Pool its Deployment is pinned to in Git, or null. */
  pool: Pool | null;
  /** `spec.replicas` in Git. */
  replicas: number;
  /**
   * Standby pods gpuops claimed for it (`claimedPods`, docs/standby.md): replicas beyond Git's,
   * counted in the decision's `from`, among its pods and samples. Absent or `[]`: none.
   */
  claimed?: readonly PodInfo[];
  currentReplicaSet?: string | null;
  hpa?: HpaState | null;
  /** The GPU products its replicas run on (`ScalingInput.products`); absent: none known. */
  products?: ProductChoice;
  /** What kube-scheduler's filters read of its pod (its Deployment's template in Git); absent: not known. */
  pod?: PodConstraints;
  /** What one replica asks of its node (that template's effective requests); absent: the spec's. */
  request?: PodRequest;
}

/** The autoscalers gpuops did not write that scale the algorithm's Deployment (`otherAutoscalers`). */
function foreignAutoscalers(input: DecideScalingInput, a: AlgorithmState): string[] {
  const own = input.policy.spec.scaling.engine === 'hpa';
  return otherAutoscalers(input.snapshot.autoscalers, a.algorithm.namespace, a.algorithm.name, own);
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
  /** How the indexes are built and each algorithm decided; default {@link plainLookups} (a reconciler's memory gives its own). */
  lookups?: ScalingLookups;
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
 * its Deployment owns (Pod → ReplicaSet → Deployment, `ownerIndex`) and the standby pods gpuops
 * claimed for it (`AlgorithmState.claimed`), so a copied Deployment with
 * the same labels, or a benchmark Job's pod, is neither a replica nor a sample (`NotOwned`); its
 * current ReplicaSet is the one of the Deployment's newest revision. Compute free GPUs from the
 * snapshot, decide every algorithm against that shared capacity (`decideInTurn`). A failed reading
 * is "no data" for every algorithm (`NoData`, never 0 %); a NoData or InsufficientSamples hold
 * names the series of its pods that were dropped and why. An answer with the store's `warnings`
 * (partial: some stores or shards did not answer) is `partialData` for every algorithm it was read
 * for — it does not say whose series it lacks — so none scales down or moves a node on it
 * (`rules/partial-data.ts`). A skew between the source's clock and the pass's clock larger than
 * `staleSampleSeconds` is reported in `metrics.warnings`.
 */
export function decideScaling(input: DecideScalingInput): DecideScalingResult {
  const { snapshot, policy, now } = input;
  const lookups = input.lookups ?? plainLookups;
  const owners = lookups.owners(snapshot.replicaSets);
  const claimedBy = claimedOwners(input.algorithms);
  // A claimed pod has no Deployment (the standby ReplicaSet released it): it counts as its
  // algorithm's, as the Deployment's own pods do, once gpuops's claim mark says it is one.
  const deploymentOf =
    claimedBy.size === 0
      ? (p: PodInfo) => owners.deploymentOf(p)
      : (p: PodInfo) => claimedBy.get(`${p.namespace}/${p.name}`) ?? owners.deploymentOf(p);
  const { main, byKey } = judgeSignals({
    algorithms: input.algorithms.map((a) => a.algorithm),
    reading: input.reading,
    pods: snapshot.pods,
    nodes: snapshot.nodes,
    policy,
    now,
    deploymentOf,
    podIndex: lookups.podIndex(snapshot.pods),
    ...(lookups.seriesMemo ? { seriesMemo: (key: string) => lookups.seriesMemo!(key) } : {}),
    // The owner index stands for `deploymentOf` while no pod is claimed (a claim is this pass's).
    ...(claimedBy.size === 0 ? { deploymentKey: owners } : {}),
  });
  const metrics = metricsReport(
    { ...input, reading: main.reading },
    main.attribution,
    main.evaluatedAt,
    main.noDataMessage,
    main.partialData,
  );
  const podsByAlgorithm = lookups.podsByDeployment(snapshot.pods, owners);
  const recentBySubject = scalingRecordsBySubject(input.recent);

  const samples: AlgorithmSample[] = [];
  const placerFor = placers(input, lookups);
  const capacity = lookups.capacity(snapshot);
  const kept = lookups.inputs;
  const autoscalers = kept ? beginInputs(kept, snapshot.autoscalers) : snapshot.autoscalers;
  const scalingInputs = input.algorithms.map((a) => {
    const view: PassView = {
      input,
      owners,
      judged: byKey.get(signalKey(a.algorithm))!,
      podsByAlgorithm,
      recentBySubject,
      placerFor,
    };
    return kept ? keptScalingInput(a, view, kept, autoscalers) : scalingInputOf(a, view);
  });
  for (const si of scalingInputs) {
    for (const x of si.samples) {
      samples.push({
        algorithm: si.algorithm.name,
        namespace: x.namespace,
        pod: x.pod,
        utilization: x.utilization,
        at: x.at,
      });
    }
  }
  const decisions = decideInTurn(scalingInputs, capacity, policy, now, decider(input, lookups, capacity));
  return { decisions, attribution: main.attribution, samples, metrics };
}

/**
 * The pass's `Decide`: the lookups' one, and under `gpuops run` (`loop`) with a standby set, each
 * algorithm of a set decided under its claim's windows while a standby of its set is Ready
 * (`claimDecider`, the offers from the snapshot's Ready standbys, `standbyOffers`), as the
 * replay's standby fleet decides. Without a loop the claim changes no window: the set's pods are
 * not read.
 */
function decider(input: DecideScalingInput, lookups: ScalingLookups, capacity: Capacity): Decide {
  const decide = lookups.decider(capacity);
  const sets = input.policy.spec.standby ?? [];
  if (!input.loop || sets.length === 0) return decide;
  const offers = standbyOffers(sets, input.snapshot);
  return claimDecider(decide, (name) => offers.get(name) ?? null);
}

type Capacity = ReturnType<ScalingLookups['capacity']>;

/** What {@link scalingInputOf} reads of the whole pass. */
interface PassView {
  input: DecideScalingInput;
  owners: ReturnType<ScalingLookups['owners']>;
  /** The judged signal the algorithm scales on. */
  judged: JudgedSignal;
  podsByAlgorithm: ReturnType<ScalingLookups['podsByDeployment']>;
  recentBySubject: ReadonlyMap<string, DecisionRecord[]>;
  placerFor: Placers;
}

/**
 * {@link scalingInputOf} through the reconciler's kept inputs (`kept-inputs.ts`): the last pass's
 * with this pass's samples, flags and records when every value its other fields come from is the
 * same (`autoscalers`: the pass's key for the snapshot's, `beginInputs`). A pass that dropped a
 * series of some pod builds every input afresh (its `dropped` text is read from this pass's drops).
 */
function keptScalingInput(
  a: AlgorithmState,
  view: PassView,
  kept: InputMemo,
  autoscalers: unknown,
): PartialInput {
  const { input, owners, judged } = view;
  const parts = passParts(a, view);
  if (judged.droppedByPod.size > 0) return scalingInputOf(a, view, parts);
  const from = [
    a.algorithm,
    a.pool,
    a.replicas,
    a.claimed,
    a.currentReplicaSet,
    a.hpa,
    a.products?.products,
    a.products?.required,
    a.request,
    a.pod,
    a.pod ? view.placerFor.layout() : null,
    owners,
    parts.pods,
    judged.noDataMessage,
    judged.partialData,
    input.policy,
    autoscalers,
    input.loop,
  ];
  return keptInput(kept, a.algorithm.name, from, parts, () => scalingInputOf(a, view, parts));
}

/** What an input takes from this pass alone: its pods, samples, flags and records. */
function passParts(a: AlgorithmState, view: PassView) {
  const attributed = view.judged.attribution.byAlgorithm.get(a.algorithm.name);
  const owned = view.podsByAlgorithm.get(`${a.algorithm.namespace}/${a.algorithm.name}`) ?? [];
  const claimed = a.claimed ?? [];
  return {
    pods: claimed.length === 0 ? owned : [...owned, ...claimed],
    samples: (attributed?.samples ?? []).filter((x) => x.namespace === a.algorithm.namespace),
    // One empty list for all: the decision memo then compares two inputs' flags by identity.
    flags: attributed && attributed.flags.length > 0 ? attributed.flags : NO_FLAGS,
    recent: view.recentBySubject.get(a.algorithm.name) ?? [],
  };
}

/** The flags of an input with none (never added to: `attribute` makes each list it adds to). */
const NO_FLAGS = Object.freeze([]) as unknown as AttributionFlag[];

/** An input as `decideInTurn` takes it. */
type PartialInput = Omit<ScalingInput, 'poolNodes' | 'unusedNodes'>;

/**
 * One algorithm's scaling input: its own pods (by `namespace/name` of its Deployment) and the
 * standby pods gpuops claimed for it, which count as replicas beyond Git's (`replicas` is Git's
 * plus theirs; their start-up, a standby's age, is left out of the loop's by `podStartups`), the samples
 * of its namespace the judged signal attributed to it, the series dropped for its pods (with the
 * stale limit in seconds when one was stale), its ReplicaSet, HorizontalPodAutoscaler, refusal and
 * foreign autoscalers, its scaling records, and its placer and loop timing when the pass has them.
 */
function scalingInputOf(
  a: AlgorithmState,
  view: PassView,
  { pods, samples, flags, recent }: ReturnType<typeof passParts> = passParts(a, view),
): PartialInput {
  const { input, owners, judged, placerFor } = view;
  const claimed = a.claimed ?? [];
  // Most passes drop no series: no key is built for each pod then.
  const lost =
    judged.droppedByPod.size === 0
      ? []
      : pods.flatMap((p) => judged.droppedByPod.get(`${p.namespace}/${p.name}`) ?? []);
  // Built field by field, the optional ones only when present (in this order): a literal with a
  // spread defines each field after it one at a time, and this runs once per algorithm per pass.
  const out: PartialInput = {
    algorithm: a.algorithm,
    pool: a.pool,
    dropped:
      lost.length === 0
        ? null
        : `${countDropped(lost)}${lost.some((d) => d.reason === 'Stale') ? `; stale limit ${input.policy.spec.scaling.staleSampleSeconds} s` : ''}`,
    replicas: a.replicas + claimed.length,
    currentReplicaSet:
      a.currentReplicaSet ?? owners.currentReplicaSet(a.algorithm.namespace, a.algorithm.name),
    hpa: a.hpa ?? null,
    refusal: owners.refusal(a.algorithm.namespace, a.algorithm.name),
    pods,
    samples,
    flags,
    recent,
    noDataMessage: judged.noDataMessage,
    partialData: judged.partialData,
  };
  const others = foreignAutoscalers(input, a);
  if (others.length > 0) out.otherAutoscalers = others;
  if (a.products) out.products = a.products;
  if (a.request) out.request = a.request;
  const placer = placerFor(a);
  if (placer) out.placer = placer;
  if (input.loop) out.loop = { ...input.loop, startupSeconds: observedStartup(podStartups(pods)) };
  return out;
}

/** The algorithm of each claimed pod (`AlgorithmState.claimed`), by `namespace/name`. */
function claimedOwners(algorithms: readonly AlgorithmState[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const a of algorithms)
    for (const p of a.claimed ?? []) out.set(`${p.namespace}/${p.name}`, a.algorithm.name);
  return out;
}

/** The scaling records of `recent` by subject (algorithm name), in their order. */
function scalingRecordsBySubject(recent: readonly DecisionRecord[]): Map<string, DecisionRecord[]> {
  const out = new Map<string, DecisionRecord[]>();
  for (const r of recent) {
    if (r.kind !== 'scaling') continue;
    const list = out.get(r.subject);
    if (list) list.push(r);
    else out.set(r.subject, [r]);
  }
  return out;
}

/**
 * The placer of each algorithm whose pod is known (`placerOf`: null when capacity alone answers),
 * over one layout of the pass's pods (built only when some algorithm has a pod).
 */
function placers(input: DecideScalingInput, lookups: ScalingLookups): Placers {
  let built: PodLayout | null = null;
  const labelKey = input.policy.spec.pools.labelKey;
  const layout = () => (built ??= lookups.layout(input.snapshot, labelKey));
  const placerFor = (a: AlgorithmState) =>
    a.pod ? placerOf(a.pod, a.request ?? specRequest(a.algorithm), layout(), labelKey) : null;
  return Object.assign(placerFor, { layout });
}

/** Each algorithm's placer, and the one layout of the pass they are built over (built on first use). */
type Placers = ((a: AlgorithmState) => Placer | null) & { layout: () => PodLayout };
