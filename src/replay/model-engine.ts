/**
 * A fast model of one engine over a trace (pure): the real decision functions — gpuops's
 * `decideOne` with its recorded passes, the simulated HPA's `recommendReplicas` and Kubernetes'
 * `applyBehavior` — on the replay's modelled delays, without the simulated API server, Git or
 * the database. The replay runs it for every point of the frontiers (many targets and headroom
 * factors over the whole trace in seconds), and beside each simulated engine so the two can be
 * compared (docs/replay.md).
 *
 * Modelled as the simulated engines are (see `sim-engine.ts`): the clock moves in 15 s ticks (the
 * HPA's sync period, the kubelet's); gpuops decides every `passIntervalSeconds`, the HPA every
 * tick; what either reads lags the offered load by `sampleDelaySeconds` and is spread evenly over
 * the Ready pods, at most 100 % each (the simulator's load model); a new pod is Ready at the first
 * tick at least `startupSeconds` after the decision; a scale-down removes pods not Ready first
 * (the ReplicaSet controller's order), then the newest. Patch mode only: a decision applies at
 * once. Capacity never binds (the fleet holds static's peak). Units as in `figures.ts`.
 */
import type { Policy, ResolvedSignal } from '../definitions/index.js';
import { decideOneTimed, toDecisionRecord, historySince, observedStartup } from '../scaling/index.js';
import type { DecisionRecord } from '../scaling/index.js';
import { modelHpa } from './model-hpa.js';
import { modelTrigger } from './model-trigger.js';
import { gpuopsInput, type ModelPod } from './model-input.js';
import type { AllocationPoint } from './figures.js';
import { instantSeconds, offeredLoad, type Trace } from './trace.js';

/**
 * An engine the model runs: the HPA at a target (percent, or the unit of `ModelSettings.signal`),
 * or gpuops under a merged policy.
 */
export type ModelEngine = { kind: 'hpa'; target: number } | { kind: 'gpuops'; policy: Policy };

/** The delays and limits the model shares with the simulated engines (seconds, percent, replicas). */
export interface ModelSettings {
  startupSeconds: number;
  sampleDelaySeconds: number;
  passIntervalSeconds: number;
  min: number;
  max: number;
  maxReplicas: number;
  /**
   * The model's clock step (seconds; default 15, the HPA's sync period and the kubelet's): the
   * HPA decides every tick, a new pod is Ready at a tick, and the event-driven trigger looks at
   * every tick. The replay takes the largest step that still represents its delays (`loop-delays.ts`).
   */
  tickSeconds?: number;
  /**
   * gpuops also passes at any tick where the algorithm has left its band or changed side (`crossingSide`): on the
   * crossing, and again while outside once the hold that kept it expires (the decision's clock);
   * the periodic pass every `passIntervalSeconds` stays. Absent: periodic passes only.
   */
  eventDriven?: boolean;
  /**
   * Start-up of the `n`-th new pod (seconds, n from 0), for start-ups drawn from a latency
   * distribution (`startup-latency.ts`); absent: `startupSeconds` for every pod.
   */
  startupOf?: (n: number) => number;
  /**
   * What the engines read instead of the duty cycle: the trace's service series
   * (`TraceInstant.service`, e.g. requests per second summed over the pods) `sampleDelaySeconds`
   * behind, spread evenly over the Ready pods (no cap: a service metric has no 100 %), judged
   * against its own band (gpuops scales it as a `serviceMetric` of that unit; the HPA's target is
   * in that unit). An instant without a reading is no sample: gpuops holds (`NoData`) and the HPA
   * keeps its replicas. `min`/`max` above stay the GPU band the first replicas are sized on.
   * Absent: the duty cycle.
   */
  signal?: ModelSignal;
}

/** A service signal of the model (see `ModelSettings.signal`): its name, unit and band per replica. */
export interface ModelSignal {
  name: string;
  unit: string;
  min: number;
  max: number;
}

const DEFAULT_TICK = 15;
const START = Date.parse('2026-01-01T00:00:00Z');

/** The offered load (GPU-percent) at `at` seconds from the trace's start (the first before it). */
export function loadLookup(trace: Trace): (at: number) => number {
  const t0 = trace.instants[0]!.t;
  const loads = trace.instants.map(offeredLoad);
  const times = trace.instants.map((x) => x.t - t0);
  let i = 0;
  return (at: number) => {
    if (at < times[i]!) i = 0;
    while (i + 1 < times.length && times[i + 1]! <= at) i++;
    return loads[i]!;
  };
}

/** The service reading at `at` seconds from the trace's start (the instant before it; undefined: no reading). */
export function serviceLookup(trace: Trace): (at: number) => number | undefined {
  const t0 = trace.instants[0]!.t;
  const xs = trace.instants;
  let i = 0;
  return (at: number) => {
    if (at < xs[i]!.t - t0) i = 0;
    while (i + 1 < xs.length && xs[i + 1]!.t - t0 <= at) i++;
    return at < 0 ? undefined : xs[i]!.service;
  };
}

/** The signal as the model's engines see it and the band they judge it on (see `ModelSettings.signal`). */
function modelSignal(trace: Trace, s: ModelSettings) {
  const sig = s.signal;
  if (sig === undefined) return null;
  const lookup = serviceLookup(trace);
  const resolved: ResolvedSignal = {
    kind: 'serviceMetric',
    unit: sig.unit,
    serviceMetric: { name: sig.name, unit: sig.unit, query: `${sig.name} of $namespace` },
  };
  return {
    band: { min: sig.min, max: sig.max, maxReplicas: s.maxReplicas, scaledOn: resolved },
    perPod: (t: number, ready: number): number | null => {
      const v = lookup(t - s.sampleDelaySeconds);
      return v === undefined || ready === 0 ? null : v / ready;
    },
  };
}

/**
 * The allocation over time of `engine` on `trace` (points sorted by `t`, one per change, as the
 * simulated engines give them). It starts with the replicas the first load needs at `max` plus
 * one, all Ready (the simulated engines' warm-up). @throws Error when the trace is empty
 */
export function runModel(trace: Trace, engine: ModelEngine, s: ModelSettings): AllocationPoint[] {
  const m = modelService(trace, engine, s);
  const tick = s.tickSeconds ?? DEFAULT_TICK;
  for (let t = tick; t < m.endS; t += tick) m.step(t);
  return m.points;
}

/** One service of the model, stepped tick by tick (see {@link modelService}). */
export interface ModelService {
  /** Seconds from the trace's start to its end. */
  endS: number;
  /** The load the engine reads at `t` (GPU-percent, `sampleDelaySeconds` behind the offered). */
  seen: (t: number) => number;
  /**
   * One tick at `t` (a multiple of the tick, 15 s by default, increasing): the engine decides (gpuops with the pool's
   * summed load `poolLoadGpus` in GPUs when given, its headroom shared, see `decide-in-turn.ts`),
   * and the state is recorded.
   */
  step: (t: number, poolLoadGpus?: number) => void;
  /** The allocation so far (see {@link runModel}). */
  points: AllocationPoint[];
}

/** The model of one service, for {@link runModel} and for a fleet of services stepped together. */
export function modelService(trace: Trace, engine: ModelEngine, s: ModelSettings, name = 'm'): ModelService {
  if (trace.instants.length === 0) throw new Error(`${trace.source}: no instants to model`);
  const lookup = loadLookup(trace);
  const seen = (t: number) => lookup(t - s.sampleDelaySeconds);
  const last = trace.instants.length - 1;
  const endS = trace.instants[last]!.t - trace.instants[0]!.t + instantSeconds(trace, last);
  const first = Math.max(1, Math.ceil(offeredLoad(trace.instants[0]!) / s.max) + 1);
  const set = podSet(s, name, Math.min(s.maxReplicas, first));
  const signal = modelSignal(trace, s);
  const band = signal?.band ?? s;
  const hpa = engine.kind === 'hpa' ? modelHpa(engine.target, s.maxReplicas) : null;
  const trigger = engine.kind === 'gpuops' && s.eventDriven ? modelTrigger(engine.policy, band) : null;
  const pass = engine.kind === 'gpuops' ? gpuopsPass(engine.policy, s, band) : null;
  set.record(0);
  const step = (t: number, poolLoadGpus?: number) => {
    const ready = set.ready(t);
    const u = signal
      ? signal.perPod(t, ready.length)
      : ready.length > 0
        ? Math.min(100, seen(t) / ready.length)
        : 0;
    const crossed = u !== null && (trigger?.crossed(t, set.replicas(), ready.length, u) ?? false);
    if (hpa !== null) {
      if (ready.length > 0 && u !== null) set.resize(hpa(t, set.replicas(), ready.length, u), t);
    } else if (crossed || t % s.passIntervalSeconds === 0) {
      const { to, actionUntilMs } = pass!(set.pods(), ready, u, set.replicas(), t, poolLoadGpus);
      trigger?.decided(actionUntilMs);
      set.resize(to, t);
    }
    set.record(t);
  };
  return { endS, seen, step, points: set.points };
}

/** The pods of one service of the model, its replicas and its allocation over time. */
interface PodSet {
  pods: () => readonly ModelPod[];
  ready: (t: number) => ModelPod[];
  replicas: () => number;
  /**
   * Sets the replicas to `to` at `t`: new pods Ready at the first tick at least their start-up
   * later, or pods removed as the ReplicaSet controller ranks them (not Ready first, then the newest).
   */
  resize: (to: number, t: number) => void;
  /** Records the state at `t` (one point per change). */
  record: (t: number) => void;
  points: AllocationPoint[];
}

/** The pod set of {@link modelService}: `initial` warm-up pods, all Ready. */
function podSet(s: ModelSettings, name: string, initial: number): PodSet {
  const tick = s.tickSeconds ?? DEFAULT_TICK;
  let serial = 0;
  const newPod = (readyAt: number): ModelPod => ({ name: `${name}-${serial++}`, readyAt });
  let started = 0;
  const readyAtFrom = (t: number) =>
    Math.ceil((t + (s.startupOf ? s.startupOf(started++) : s.startupSeconds)) / tick) * tick;
  let pods: ModelPod[] = Array.from({ length: initial }, () => newPod(-Infinity));
  let replicas = pods.length;
  const points: AllocationPoint[] = [];
  return {
    pods: () => pods,
    ready: (t) => pods.filter((p) => p.readyAt <= t),
    replicas: () => replicas,
    resize: (to, t) => {
      if (to > pods.length) {
        const more = Array.from({ length: to - pods.length }, () => ({
          ...newPod(readyAtFrom(t)),
          createdAt: t,
        }));
        pods = [...pods, ...more];
      } else if (to < pods.length) {
        const order = [...pods].sort(
          (a, b) => (a.readyAt > t ? 0 : 1) - (b.readyAt > t ? 0 : 1) || b.readyAt - a.readyAt,
        );
        const gone = new Set(order.slice(0, pods.length - to));
        pods = pods.filter((p) => !gone.has(p));
      }
      replicas = to;
    },
    record: (t) => {
      const ready = pods.filter((p) => p.readyAt <= t).length;
      const prev = points[points.length - 1];
      if (prev && prev.allocated === pods.length && prev.ready === ready && prev.replicas === replicas)
        return;
      points.push({ t, allocated: pods.length, ready, replicas });
    },
    points,
  };
}

/**
 * `observedStartup` of the start-ups (Ready less created, seconds) of the Ready pods the model
 * created, remembering the last answer: the Ready pods change only when replicas do, and the
 * quantile sorts them on every pass. Same answer as computing it each time: it is reused only
 * when the start-ups are the same numbers in the same order.
 */
function startupMemo(): (ready: readonly ModelPod[]) => number | null {
  let last: number[] = [];
  let answer: number | null = observedStartup(last);
  return (ready) => {
    const seconds: number[] = [];
    for (const p of ready) if (p.createdAt !== undefined) seconds.push(p.readyAt - p.createdAt);
    if (seconds.length !== last.length || seconds.some((x, i) => !Object.is(x, last[i]))) {
      last = seconds;
      answer = observedStartup(seconds);
    }
    return answer;
  };
}

/**
 * gpuops's pass of the model under `policy`: the real `decideOneTimed` on the pods, the reading
 * and the recorded passes (kept for the policy's history), with the loop's delays (its observed
 * start-up from the Ready pods the model created). Returns the replicas decided and until when
 * the action holds with only the clock moving (the trigger's hold).
 */
function gpuopsPass(policy: Policy, s: ModelSettings, band: Parameters<typeof gpuopsInput>[5]) {
  const records: DecisionRecord[] = [];
  const reaction = s.eventDriven ? (s.tickSeconds ?? DEFAULT_TICK) : s.passIntervalSeconds;
  const startupOf = startupMemo();
  return (
    pods: readonly ModelPod[],
    ready: readonly ModelPod[],
    u: number | null,
    replicas: number,
    t: number,
    poolLoadGpus?: number,
  ): { to: number; actionUntilMs: number } => {
    const now = new Date(START + t * 1000);
    const since = historySince(policy, now);
    while (records.length > 0 && records[0]!.at < since) records.shift();
    const startup = startupOf(ready);
    const loop = { sampleSeconds: s.sampleDelaySeconds, reactionSeconds: reaction, startupSeconds: startup };
    const input = { ...gpuopsInput(pods, ready, u, replicas, records, band, t), loop };
    const { decision, clock } = decideOneTimed(
      poolLoadGpus === undefined ? input : { ...input, poolLoadGpus },
      policy,
      now,
    );
    records.push(toDecisionRecord(decision, now));
    return { to: decision.replicas.to, actionUntilMs: clock.actionUntilMs };
  };
}
