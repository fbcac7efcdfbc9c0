/**
 * The scaling input of one pass of the model (pure, see `model-engine.ts`): one algorithm on one
 * GPU-bound pool node, its pods, their samples and the recorded passes.
 */
import type { PodInfo } from '../cluster/index.js';
import type { ResolvedAlgorithm, ResolvedSignal } from '../definitions/index.js';
import type { DecisionRecord, ScalingInput } from '../scaling/index.js';

/** One pod of the model: its name and when it is Ready (seconds from the start). */
export interface ModelPod {
  name: string;
  readyAt: number;
  /** The node it is bound to, null while Pending (no room); absent: the model's one pool node. */
  node?: string | null;
  /** When it was created (seconds from the start); absent: before the trace (its start-up is not observed). */
  createdAt?: number;
  /**
   * When its start-up began (seconds from the start): bound to a node (a claimed standby: claimed);
   * absent: at its creation (the model's one pool node binds at once).
   */
  startedAt?: number;
}

const START = Date.parse('2026-01-01T00:00:00Z');

const ALGORITHM: Omit<ResolvedAlgorithm, 'scaling'> = {
  name: 'model',
  namespace: 'algorithms',
  spec: { image: 'model', resources: { gpus: 1 } },
  benchmark: { args: undefined, runs: 1, timeoutSeconds: 1 },
  placement: 'short-task',
  source: { file: 'model', line: 1 },
};

/**
 * The input of a gpuops pass at `t` seconds for the algorithm `name` (default `model`; a fleet
 * names each service): Ready pods at `u` each (percent, or the unit of `s.scaledOn`, the signal it
 * scales on; null: no sample, as when that signal has no reading), the band and limits of `s`.
 */
export function gpuopsInput(
  pods: readonly ModelPod[],
  ready: readonly ModelPod[],
  u: number | null,
  replicas: number,
  recent: DecisionRecord[],
  s: { min: number; max: number; maxReplicas: number; scaledOn?: ResolvedSignal },
  t: number,
  name = 'model',
): ScalingInput {
  const at = new Date(START + t * 1000).toISOString();
  return {
    algorithm: {
      ...ALGORITHM,
      name,
      scaling: { minReplicas: 1, maxReplicas: s.maxReplicas, utilization: { min: s.min, max: s.max } },
      ...(s.scaledOn ? { signal: s.scaledOn } : {}),
    },
    pool: 'short-task',
    replicas,
    pods: pods.map((p) => podInfoOf(p, p.readyAt <= t, name)),
    currentReplicaSet: `${name}-rs`,
    samples:
      u === null
        ? []
        : ready.map((p) => ({ namespace: 'algorithms', pod: p.name, utilization: u, at, gpus: [p.name] })),
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

/** ISO times already written, by seconds from the model's start (a pass stamps every pod). */
const stamps = new Map<number, string>();

/** An ISO time `seconds` from the model's start (a pod from before the trace: the start). */
function stamp(seconds: number | undefined): string {
  const at = Math.max(0, seconds ?? 0);
  let iso = stamps.get(at);
  if (iso === undefined) {
    // A model's pods start on its ticks: a few thousand times per trace; a bound keeps it small.
    if (stamps.size >= 100_000) stamps.clear();
    iso = new Date(START + at * 1000).toISOString();
    stamps.set(at, iso);
  }
  return iso;
}

/** The last pod info of each model pod, with what it was built from. */
interface Built {
  ready: boolean;
  algorithm: string;
  name: string;
  node: string | null | undefined;
  createdAt: number | undefined;
  startedAt: number | undefined;
  info: PodInfo;
}

/**
 * The pod info last built for each model pod: a pass reads every pod, and a pod's info changes
 * only when it turns Ready or is bound (the model's passes build hundreds of thousands).
 */
const built = new WeakMap<ModelPod, Built>();

/**
 * {@link modelPodInfo} of `p`, the one built last when nothing it is built from changed (frozen,
 * deeply: a pass only reads its input, and one that wrote to it would throw).
 */
function podInfoOf(p: ModelPod, ready: boolean, algorithm: string): PodInfo {
  const b = built.get(p);
  if (
    b !== undefined &&
    b.ready === ready &&
    b.algorithm === algorithm &&
    b.name === p.name &&
    b.node === p.node &&
    b.createdAt === p.createdAt &&
    b.startedAt === p.startedAt
  )
    return b.info;
  const info = modelPodInfo(p, ready, algorithm);
  Object.freeze(info.labels);
  Object.freeze(info.owner);
  Object.freeze(info.requests);
  Object.freeze(info);
  const { name, node, createdAt, startedAt } = p;
  built.set(p, { ready, algorithm, name, node, createdAt, startedAt, info });
  return info;
}

/**
 * The pod as the pass reads it. Its creation and start are its own (seconds from the start), so a
 * replica still starting is judged as one (`podsStarting`, `splitUnready`: capacity on its way,
 * stuck only `scaling.podStartupSeconds` after its start); a Pending pod has no start time, its
 * age runs from its creation as kube-scheduler's does.
 */
function modelPodInfo(p: ModelPod, ready: boolean, algorithm: string): PodInfo {
  const nodeName = p.node === undefined ? 'pool' : p.node;
  return {
    namespace: 'algorithms',
    name: p.name,
    uid: p.name,
    labels: {},
    nodeName,
    phase: nodeName === null ? 'Pending' : 'Running',
    ready,
    terminating: false,
    gpuRequest: 1,
    managed: true,
    algorithm,
    owner: { kind: 'ReplicaSet', name: `${algorithm}-rs` },
    unschedulable: false,
    createdAt: stamp(p.createdAt),
    requests: { cpuMillis: 0, memoryBytes: 0 },
    startedAt: nodeName === null ? null : stamp(p.startedAt ?? p.createdAt),
  };
}
