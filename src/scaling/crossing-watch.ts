/**
 * What the crossing trigger of `gpuops run` watches between passes, and its test on one reading
 * (pure). The last pass leaves a {@link Watchlist}: per algorithm its band (`BandView`), its Ready
 * replicas and when the hold it decided can change, and what the pass judged series against
 * ({@link WatchJudge}). On each reading of the signal the trigger attributes the series with the
 * pass's own `attribute` — the same node, age, owner, GPU-count and shared-GPU checks — so a
 * series the pass would drop (a tenant's own page naming another team's pod, a series from
 * another node, a stale sample) can neither fake a crossing nor hide one; then it asks
 * `crossingSide` of each algorithm's mean utilisation over its watched pods. It fires for an
 * algorithm that has just left its band (inside at the previous reading, outside now), that is
 * outside on another side than at the previous reading (below → above, above → saturated, …: a
 * hold of one side says nothing of the other, and saturated Ready pods pass the flap hold), and
 * again while outside once its hold can change (`heldUntilMs`: the decision's
 * `DecisionClock.actionUntilMs`), so a cooldown or flap hold that ends is acted on at once, not at
 * the next periodic pass. A reading that covers none of an algorithm's pods says nothing about it
 * (no crossing, its state kept).
 */
import type { PodInfo, Snapshot } from '../cluster/index.js';
import type { Policy, ResolvedSignal } from '../definitions/index.js';
import type { DcgmMetric, UtilizationReading } from '../metrics/index.js';
import type { DeploymentOf } from './attribute.js';
import { crossingSide, type BandView, type CrossingSide } from './band-crossing.js';
import { judgeSignals, sharedNodesOf } from './judged-signals.js';
import { plainLookups, podIndexOf, type ScalingLookups } from './lookups.js';
import { signalKey } from './signal-reading.js';

/**
 * What the pass judged each series against (`attribute`), kept from its snapshot so the trigger
 * counts exactly the series the pass would.
 */
export interface WatchJudge {
  /**
   * The snapshot's pods, all of them: each watched pod's node, readiness and owner, and the
   * exporter pods whose name a series' `Hostname` may carry (`nodeRefusal`).
   */
  pods: readonly PodInfo[];
  /** The pass's policy: `scaling.staleSampleSeconds` bounds a sample's age at the reading's time. */
  policy: Policy;
  /** Pod → ReplicaSet → Deployment (`ownerIndex(snapshot.replicaSets).deploymentOf`): `NotOwned`. */
  deploymentOf: DeploymentOf;
  /** Nodes that share their GPUs (`sharedNodesOf`): no device-level series is a pod's own there. */
  sharedNodes: ReadonlyMap<string, string>;
  /** `pods` by `namespace/name` (`podIndexOf`), kept so each reading does not rebuild it; absent: built. */
  podIndex?: ReadonlyMap<string, PodInfo>;
}

/**
 * The {@link WatchJudge} of a pass's snapshot and policy, built as `decideScaling` judges them.
 * `lookups`: where the owner and pod indexes come from (a reconciler passes the ones its scaling
 * step already built over the same arrays; default: built here).
 */
export function watchJudgeOf(
  snapshot: Pick<Snapshot, 'pods' | 'nodes' | 'replicaSets'>,
  policy: Policy,
  lookups: Pick<ScalingLookups, 'owners' | 'podIndex'> = plainLookups,
): WatchJudge {
  const owners = lookups.owners(snapshot.replicaSets);
  return {
    pods: snapshot.pods,
    policy,
    deploymentOf: (p) => owners.deploymentOf(p),
    sharedNodes: sharedNodesOf(snapshot.nodes),
    podIndex: lookups.podIndex(snapshot.pods),
  };
}

/** One algorithm the trigger watches. */
export interface WatchedAlgorithm {
  name: string;
  namespace: string;
  /** What it scales on (`ResolvedAlgorithm.signal`; absent: `gpuUtil`): the reading its band is tested on. */
  signal?: ResolvedSignal;
  view: BandView;
  /** Its Ready replicas' pod names (in `namespace`). */
  pods: readonly string[];
  /** When the action of its last decision can change with only the clock moving (ms; Infinity: never). */
  heldUntilMs: number;
}

/** What the trigger reads and watches until the next pass. */
export interface Watchlist {
  /** The policy's metric (`scaling.metric`): the main reading, for the algorithms that scale on it. */
  metric: DcgmMetric;
  /** The pass's averaging window (seconds, `scaling.windowSeconds`): the trigger reads as the pass does. */
  windowSeconds: number;
  /** The namespaces the pass read (its scoped query). */
  namespaces: readonly string[];
  algorithms: readonly WatchedAlgorithm[];
  judge: WatchJudge;
}

/**
 * The trigger's memory between readings: the algorithms outside their band at the last reading,
 * each with the side it was on (`crossingSide`).
 */
export type WatchState = ReadonlyMap<string, CrossingSide>;

/** The outcome of one reading: the algorithms to pass for, and the new state. */
export interface WatchOutcome {
  crossed: string[];
  state: Map<string, CrossingSide>;
}

/**
 * Tests one reading at `nowMs` (see the module comment): the policy's metric in `reading`, each
 * other signal the watched algorithms scale on in `reading.signals` (`signalKey`), as the pass
 * reads them. Each algorithm is tested on its own signal's samples, attributed by `judgeSignals`
 * as the pass attributes them (at the answer's own evaluation time, the trigger's clock when the
 * source gave none): every series the pass drops (`WrongNode`, `UnknownNode`, `Stale`,
 * `NotOwned`, `TooManyGpus`, `SharedDevice`, a time-sliced GPU beyond its first pod, …) is left out
 * here too, a ratio metric (`DCGM_FI_PROF_GR_ENGINE_ACTIVE`) counts ×100, a service metric is read
 * in its own unit against its own band. A pod's value is the mean of its GPUs'; the algorithm's
 * the mean of its watched pods' over as many as had a value. A signal with no data says nothing
 * of its algorithms.
 */
export function watchReading(
  w: Watchlist,
  reading: UtilizationReading,
  before: WatchState,
  nowMs: number,
): WatchOutcome {
  const { pods, policy, deploymentOf, sharedNodes, podIndex } = w.judge;
  const { byKey } = judgeSignals({
    algorithms: w.algorithms,
    reading,
    pods,
    nodes: [],
    sharedNodes,
    policy,
    now: new Date(nowMs),
    deploymentOf,
    podIndex: podIndex ?? podIndexOf(pods),
  });
  const byAlgorithm = new Map<string, { sum: number; pods: number }>();
  for (const a of w.algorithms) {
    const watched = new Set(a.pods);
    const samples = byKey.get(signalKey(a))?.attribution.byAlgorithm.get(a.name)?.samples ?? [];
    for (const sample of samples) {
      if (sample.namespace !== a.namespace || !watched.has(sample.pod)) continue;
      const m = byAlgorithm.get(a.name) ?? { sum: 0, pods: 0 };
      m.sum += sample.utilization;
      m.pods++;
      byAlgorithm.set(a.name, m);
    }
  }
  const crossed: string[] = [];
  const state = new Map<string, CrossingSide>();
  for (const a of w.algorithms) {
    const m = byAlgorithm.get(a.name);
    if (!m) {
      const kept = before.get(a.name);
      if (kept) state.set(a.name, kept);
      continue;
    }
    const side = crossingSide(a.view, m.sum / m.pods, m.pods);
    if (side === null) continue;
    state.set(a.name, side);
    if (before.get(a.name) !== side || nowMs >= a.heldUntilMs) crossed.push(a.name);
  }
  return { crossed, state };
}
