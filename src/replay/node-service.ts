/**
 * One service of the model on a fleet of nodes (pure; docs/replay.md, "A fleet of nodes"): as
 * `modelService` of `model-engine.ts` — the same 15 s ticks, sample delay, start-up time and limits
 * — but each pod needs a free GPU on a node of its pool: a new pod is Pending (holds no GPU, serves
 * nothing) until the scheduler binds it (`pickNode`), and is Ready at the first tick at least
 * `startupSeconds` after it was bound. A scale-down removes pods as the ReplicaSet controller ranks
 * them (`sim/controllers/replicaset-controller.ts`): not bound first, then not Ready, then the
 * newest. The warm-up's pods are Ready as soon as they are bound at 0.
 */
import type { Policy } from '../definitions/index.js';
import { toDecisionRecord, historySince } from '../scaling/index.js';
import type { DecisionRecord, ScalingDecision, ScalingInput } from '../scaling/index.js';
import type { AllocationPoint } from './figures.js';
import { loadLookup, type ModelSettings } from './model-engine.js';
import { modelHpa } from './model-hpa.js';
import { gpuopsInput, type ModelPod } from './model-input.js';
import { holdGpu, pickNode, type FleetNode, type ModelPool } from './node-fleet.js';
import { instantSeconds, offeredLoad, type Trace } from './trace.js';
import { affinityRaw, type AffinityCounts, type FitProfile, type FitScoring } from './scheduler-score.js';
import { STANDBY_AFFINITY_WEIGHT } from '../manifests/index.js';

const TICK = 15;
const START = Date.parse('2026-01-01T00:00:00Z');

/** A pod of a service on nodes: bound to `node` (null: Pending), created at `createdAt` seconds. */
export interface NodePod extends ModelPod {
  node: string | null;
  createdAt: number;
  serial: number;
  /** A standby pod claimed from the pool's standby set (it may go back to it). */
  claimed?: boolean;
  /**
   * A standby pod, claimed or not: it carries the standby's preferred pod affinity terms
   * (`standbyPodAffinity` of `manifests/standby.ts`), which the scheduler scores (`schedulePending`).
   */
  carriesAffinity?: boolean;
}

/** One service stepped by the fleet (see the module comment). */
export interface NodeService {
  name: string;
  endS: number;
  pods: NodePod[];
  replicas: () => number;
  /** The offered load gpuops reads at `t` (GPU-percent, `sampleDelaySeconds` behind). */
  seen: (t: number) => number;
  points: AllocationPoint[];
  /** gpuops's pass input at `t` (without nodes: `decideInTurn` fills them). */
  passInput: (t: number, policy: Policy) => Omit<ScalingInput, 'poolNodes' | 'unusedNodes'>;
  /** Applies gpuops's decision made at `t` (recorded for the next passes) to the replicas. */
  apply: (d: ScalingDecision, t: number, hand?: PodHand) => void;
  /** The HPA's tick at `t` (`target` percent), when a pod is Ready. */
  hpaTick: (t: number) => void;
  /**
   * Sets the replicas to `to` at `t`: Pending pods added, or pods removed (their GPUs freed); with
   * `hand`, a pod added is a claimed one when `take` gives one, and a pod removed that `give`
   * takes keeps its GPU (it goes back to the standby set).
   */
  resize: (to: number, t: number, hand?: PodHand) => void;
  /** Records the state at `t` (one point per change). */
  record: (t: number) => void;
}

/**
 * How pods come from and go back to a pool's warm standby set (`standby-fleet.ts`): `take` gives
 * a claimed pod (bound, Ready when the claim's wake or switch is done) or null when no standby is
 * Ready; `give` takes a removed pod back to the standby set (true), or leaves it to be deleted.
 */
export interface PodHand {
  take: (t: number) => NodePod | null;
  give: (p: NodePod, t: number) => boolean;
}

/**
 * A service of `trace` whose pods run on `nodes` (shared with other services or its own), in
 * `pool`; `hpaTarget` when the HPA scales it. @throws Error when the trace is empty
 */
export function nodeService(
  trace: Trace,
  s: ModelSettings,
  name: string,
  nodes: FleetNode[],
  hpaTarget?: number,
): NodeService {
  if (trace.instants.length === 0) throw new Error(`${trace.source}: no instants to model`);
  const lookup = loadLookup(trace);
  const seen = (t: number) => lookup(t - s.sampleDelaySeconds);
  const last = trace.instants.length - 1;
  const endS = trace.instants[last]!.t - trace.instants[0]!.t + instantSeconds(trace, last);
  const byName = new Map(nodes.map((n) => [n.name, n]));
  let serial = 0;
  const newPod = (t: number, readyAt: number): NodePod => ({
    name: `${name}-${serial}`,
    serial: serial++,
    node: null,
    readyAt,
    createdAt: t,
  });
  const first = Math.max(1, Math.ceil(offeredLoad(trace.instants[0]!) / s.max) + 1);
  const pods: NodePod[] = Array.from({ length: Math.min(s.maxReplicas, first) }, () => newPod(0, -Infinity));
  let replicas = pods.length;
  const isReady = (p: NodePod, t: number) => p.node !== null && p.readyAt <= t;
  const records: DecisionRecord[] = [];
  const hpa = hpaTarget === undefined ? null : modelHpa(hpaTarget, s.maxReplicas);
  const points: AllocationPoint[] = [];
  const resize = (to: number, t: number, hand?: PodHand) => {
    while (pods.length < to) {
      const claimed = hand?.take(t) ?? null;
      pods.push(claimed === null ? newPod(t, Infinity) : { ...claimed, serial: serial++ });
    }
    if (pods.length > to) {
      const rank = (p: NodePod) => (p.node === null ? 0 : isReady(p, t) ? 2 : 1);
      const order = [...pods].sort((a, b) => rank(a) - rank(b) || b.serial - a.serial);
      const gone = new Set(order.slice(0, pods.length - to));
      for (const p of gone)
        if (p.node !== null && !(hand?.give(p, t) ?? false)) holdGpu(byName.get(p.node)!, -1, t);
      pods.splice(0, pods.length, ...pods.filter((p) => !gone.has(p)));
    }
    replicas = to;
  };
  const loadOf = (t: number) => {
    const ready = pods.filter((p) => isReady(p, t));
    return { ready, u: ready.length > 0 ? Math.min(100, seen(t) / ready.length) : 0 };
  };
  return {
    name,
    endS,
    pods,
    replicas: () => replicas,
    seen,
    points,
    passInput: (t, policy) => {
      const since = historySince(policy, new Date(START + t * 1000));
      while (records.length > 0 && records[0]!.at < since) records.shift();
      const { ready, u } = loadOf(t);
      return gpuopsInput(pods, ready, u, replicas, [...records], s, t, name);
    },
    apply: (d, t, hand) => {
      records.push(toDecisionRecord(d, new Date(START + t * 1000)));
      resize(d.replicas.to, t, hand);
    },
    hpaTick: (t) => {
      const { ready, u } = loadOf(t);
      if (hpa !== null && ready.length > 0) resize(hpa(t, replicas, ready.length, u), t);
    },
    resize,
    record: (t) => {
      const allocated = pods.filter((p) => p.node !== null).length;
      const ready = pods.filter((p) => isReady(p, t)).length;
      const prev = points[points.length - 1];
      if (prev && prev.allocated === allocated && prev.ready === ready && prev.replicas === replicas) return;
      points.push({ t, allocated, ready, replicas });
    },
  };
}

/**
 * kube-scheduler's pass at `t`: the Pending pods of every service, oldest first (then by name),
 * each bound to the node `pickNode` scores best in `pool`, until none has a free GPU. Every pod of
 * `services` is one of the pool's (an algorithm's replica, or a standby carrying the standby's pod
 * affinity terms): InterPodAffinity counts them per node (`affinityRaw`, the pods bound earlier in
 * this pass included). A pod bound is Ready at the first tick (of `tick` seconds, default 15) at
 * least `startupSeconds` later (a warm-up pod at once). Returns how many were bound.
 */
export function schedulePending(
  services: readonly { pods: NodePod[] }[],
  nodes: FleetNode[],
  pool: ModelPool,
  scoring: FitScoring | FitProfile,
  startupSeconds: number,
  t: number,
  tick = TICK,
): number {
  // Most ticks have no Pending pod: nothing to gather, count or sort then.
  if (!services.some((x) => x.pods.some((p) => p.node === null))) return 0;
  const all = services.flatMap((x) => x.pods);
  const pending = all
    .filter((p) => p.node === null)
    .sort((a, b) => a.createdAt - b.createdAt || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  if (pending.length === 0) return 0;
  const counts = new Map<string, AffinityCounts>(nodes.map((n) => [n.name, { replicas: 0, carrying: 0 }]));
  const count = (p: NodePod) => {
    const c = counts.get(p.node!)!;
    if (p.carriesAffinity === true) c.carrying++;
    else c.replicas++;
  };
  for (const p of all) if (p.node !== null) count(p);
  let bound = 0;
  for (const p of pending) {
    const carries = p.carriesAffinity === true;
    const raw = (n: FleetNode) => affinityRaw(counts.get(n.name)!, carries, STANDBY_AFFINITY_WEIGHT);
    const n = pickNode(nodes, pool, scoring, raw);
    if (n === null) break;
    holdGpu(n, 1, t);
    p.node = n.name;
    count(p);
    p.startedAt = t;
    if (p.readyAt !== -Infinity) p.readyAt = Math.ceil((t + startupSeconds) / tick) * tick;
    bound++;
  }
  return bound;
}
