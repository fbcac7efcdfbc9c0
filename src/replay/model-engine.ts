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
import type { PodInfo } from '../cluster/types.js';
import type { Policy, ResolvedAlgorithm } from '../definitions/types.js';
import { applyBehavior, defaultBehavior } from '../sim/controllers/hpa-behavior.js';
import { recommendReplicas } from '../sim/controllers/hpa-controller.js';
import { decideOne } from '../scaling/decide-one.js';
import { toDecisionRecord } from '../scaling/decision-record.js';
import { historySince } from '../scaling/history.js';
import type { DecisionRecord, ScalingInput } from '../scaling/types.js';
import type { AllocationPoint } from './figures.js';
import { instantSeconds, offeredLoad, type Trace } from './trace.js';

/** An engine the model runs: the HPA at a target (percent), or gpuops under a merged policy. */
export type ModelEngine = { kind: 'hpa'; target: number } | { kind: 'gpuops'; policy: Policy };

/** The delays and limits the model shares with the simulated engines (seconds, percent, replicas). */
export interface ModelSettings {
  startupSeconds: number;
  sampleDelaySeconds: number;
  passIntervalSeconds: number;
  min: number;
  max: number;
  maxReplicas: number;
}

const TICK = 15;
const START = Date.parse('2026-01-01T00:00:00Z');

/** The offered load (GPU-percent) at `at` seconds from the trace's start (the first before it). */
function loadLookup(trace: Trace): (at: number) => number {
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

/** One pod of the model: its name and when it is Ready (seconds from the start). */
interface ModelPod {
  name: string;
  readyAt: number;
}

/**
 * The allocation over time of `engine` on `trace` (points sorted by `t`, one per change, as the
 * simulated engines give them). It starts with the replicas the first load needs at `max` plus
 * one, all Ready (the simulated engines' warm-up). @throws Error when the trace is empty
 */
export function runModel(trace: Trace, engine: ModelEngine, s: ModelSettings): AllocationPoint[] {
  if (trace.instants.length === 0) throw new Error(`${trace.source}: no instants to model`);
  const seen = loadLookup(trace);
  const last = trace.instants.length - 1;
  const endS = trace.instants[last]!.t - trace.instants[0]!.t + instantSeconds(trace, last);
  let serial = 0;
  const newPod = (readyAt: number): ModelPod => ({ name: `m-${serial++}`, readyAt });
  const first = Math.max(1, Math.ceil(offeredLoad(trace.instants[0]!) / s.max) + 1);
  let pods: ModelPod[] = Array.from({ length: Math.min(s.maxReplicas, first) }, () => newPod(-Infinity));
  let replicas = pods.length;
  const records: DecisionRecord[] = [];
  const hpa = {
    recommendations: [] as { atMs: number; replicas: number }[],
    events: [] as { atMs: number; replicas: number }[],
  };
  const behavior = defaultBehavior(300);
  const points: AllocationPoint[] = [];
  const record = (t: number) => {
    const ready = pods.filter((p) => p.readyAt <= t).length;
    const prev = points[points.length - 1];
    if (prev && prev.allocated === pods.length && prev.ready === ready && prev.replicas === replicas) return;
    points.push({ t, allocated: pods.length, ready, replicas });
  };
  const resize = (to: number, t: number) => {
    if (to > pods.length) {
      const readyAt = Math.ceil((t + s.startupSeconds) / TICK) * TICK;
      pods = [...pods, ...Array.from({ length: to - pods.length }, () => newPod(readyAt))];
    } else if (to < pods.length) {
      const order = [...pods].sort(
        (a, b) => (a.readyAt > t ? 0 : 1) - (b.readyAt > t ? 0 : 1) || b.readyAt - a.readyAt,
      );
      const gone = new Set(order.slice(0, pods.length - to));
      pods = pods.filter((p) => !gone.has(p));
    }
    replicas = to;
  };
  record(0);
  for (let t = TICK; t < endS; t += TICK) {
    const ready = pods.filter((p) => p.readyAt <= t);
    const load = seen(t - s.sampleDelaySeconds);
    const u = ready.length > 0 ? Math.min(100, load / ready.length) : 0;
    if (engine.kind === 'hpa') {
      if (ready.length > 0) {
        const nowMs = START + t * 1000;
        const raw = Math.min(
          s.maxReplicas,
          Math.max(1, recommendReplicas(replicas, ready.length, u, engine.target)),
        );
        const applied = applyBehavior({
          nowMs,
          current: replicas,
          desired: raw,
          minReplicas: 1,
          maxReplicas: s.maxReplicas,
          recommendations: hpa.recommendations,
          events: hpa.events,
          behavior,
        });
        hpa.recommendations.push({ atMs: nowMs, replicas: raw });
        if (applied.replicas !== replicas)
          hpa.events.push({ atMs: nowMs, replicas: applied.replicas - replicas });
        const cut = nowMs - 300_000;
        hpa.recommendations = hpa.recommendations.filter((r) => r.atMs > cut);
        hpa.events = hpa.events.filter((e) => e.atMs > cut);
        resize(applied.replicas, t);
      }
    } else if (t % s.passIntervalSeconds === 0) {
      const now = new Date(START + t * 1000);
      const since = historySince(engine.policy, now);
      while (records.length > 0 && records[0]!.at < since) records.shift();
      const decision = decideOne(gpuopsInput(pods, ready, u, replicas, records, s, t), engine.policy, now);
      records.push(toDecisionRecord(decision, now));
      resize(decision.replicas.to, t);
    }
    record(t);
  }
  return points;
}

const ALGORITHM: Omit<ResolvedAlgorithm, 'scaling'> = {
  name: 'model',
  namespace: 'algorithms',
  spec: { image: 'model', resources: { gpus: 1 } },
  benchmark: { args: undefined, runs: 1, timeoutSeconds: 1 },
  placement: 'short-task',
  source: { file: 'model', line: 1 },
};

function gpuopsInput(
  pods: readonly ModelPod[],
  ready: readonly ModelPod[],
  u: number,
  replicas: number,
  recent: DecisionRecord[],
  s: ModelSettings,
  t: number,
): ScalingInput {
  const at = new Date(START + t * 1000).toISOString();
  return {
    algorithm: {
      ...ALGORITHM,
      scaling: { minReplicas: 1, maxReplicas: s.maxReplicas, utilization: { min: s.min, max: s.max } },
    },
    pool: 'short-task',
    replicas,
    pods: pods.map((p) => modelPodInfo(p, p.readyAt <= t)),
    currentReplicaSet: 'model-rs',
    samples: ready.map((p) => ({ namespace: 'algorithms', pod: p.name, utilization: u, at, gpus: [p.name] })),
    poolNodes: [
      {
        node: 'pool',
        pool: 'short-task',
        gpuProduct: null,
        allocatableGpus: s.maxReplicas,
        freeGpus: Math.max(0, s.maxReplicas - pods.length),
        // The model's pool node is GPU-bound only: cpu, memory and pod slots never run out.
        free: {
          cpuMillis: Number.MAX_SAFE_INTEGER,
          memoryBytes: Number.MAX_SAFE_INTEGER,
          pods: Number.MAX_SAFE_INTEGER,
        },
      },
    ],
    unusedNodes: [],
    recent,
  };
}

function modelPodInfo(p: ModelPod, ready: boolean): PodInfo {
  return {
    namespace: 'algorithms',
    name: p.name,
    uid: p.name,
    labels: {},
    nodeName: 'pool',
    phase: 'Running',
    ready,
    terminating: false,
    gpuRequest: 1,
    managed: true,
    algorithm: 'model',
    owner: { kind: 'ReplicaSet', name: 'model-rs' },
    unschedulable: false,
    createdAt: '2026-01-01T00:00:00Z',
    requests: { cpuMillis: 0, memoryBytes: 0 },
    startedAt: '2026-01-01T00:00:00Z',
  };
}
