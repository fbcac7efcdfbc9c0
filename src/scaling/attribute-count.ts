/**
 * Counting attributed series (pure): one GPU counts once — for one pod (time-slicing: the first
 * by `namespace/name`, flagged `SharedGpu`) and from one series (duplicates: the newest) — and a
 * pod's GPUs give it one sample. The second half of `attribute` (`attribute.ts`).
 */
import type { AlgorithmAttribution, AttributionFlag, DroppedSeries, PodSample } from './types.js';
import type { SampleOrder, SeriesMemo } from './series-identity.js';

/** One usable series, attributed to a pod of an algorithm (percent). */
export interface Candidate {
  gpu: string;
  namespace: string;
  pod: string;
  podKey: string;
  algorithm: string;
  /** The pod's `nvidia.com/gpu` request: how many GPUs may count for it. */
  gpuRequest: number;
  utilization: number;
  timestamp: number;
  window: PodSample['window'];
}

/** Candidates reduced to one per GPU, with what was dropped and flagged on the way. */
interface CountedOnce {
  byPod: Grouped<Candidate>;
  dropped: DroppedSeries[];
  flags: AttributionFlag[];
  droppedByAlgorithm: Map<string, DroppedSeries[]>;
  flagsByAlgorithm: Map<string, AttributionFlag[]>;
}

/**
 * One GPU counts once: for one pod (time-slicing: the first by `namespace/name`, flagged) and
 * from one series (duplicates: the newest); then a pod named by more GPUs than it requests loses
 * every one of them (`TooManyGpus`, see {@link dropOverclaimed}).
 */
export function countEachGpuOnce(byGpu: ReadonlyMap<string, Candidate | Candidate[]>): CountedOnce {
  const out: CountedOnce = {
    byPod: new Map(),
    dropped: [],
    flags: [],
    droppedByAlgorithm: new Map(),
    flagsByAlgorithm: new Map(),
  };
  for (const [gpu, list] of byGpu) {
    if (Array.isArray(list)) {
      list.sort((a, b) => (a.podKey < b.podKey ? -1 : a.podKey > b.podKey ? 1 : b.timestamp - a.timestamp));
      countOneGpu(gpu, list, out);
    }
    const first = firstOf(list);
    addTo(out.byPod, first.podKey, first);
  }
  dropOverclaimed(out);
  return out;
}

/**
 * A pod holds the GPUs it requests and no more (the device plugin hands out exactly that many):
 * more GPUs naming it than its `nvidia.com/gpu` request means a series that is not its own (a
 * forged page, a mislabelled exporter). Which one cannot be told, so none counts: the pod gets no
 * sample, which the rules read as missing data (never a scale-down).
 */
function dropOverclaimed(out: CountedOnce): void {
  for (const [podKey, group] of out.byPod) {
    const first = firstOf(group);
    if (sizeOf(group) <= first.gpuRequest) continue;
    const list = listOf(group);
    out.byPod.delete(podKey);
    const gpus = list.map((c) => c.gpu).sort();
    for (const c of list) {
      const d: DroppedSeries = {
        gpu: c.gpu,
        namespace: c.namespace,
        pod: c.pod,
        reason: 'TooManyGpus',
        message: `pod ${podKey} requests ${first.gpuRequest} GPU(s) but ${list.length} GPUs name it (${gpus.join(', ')}); none counts`,
      };
      out.dropped.push(d);
      pushTo(out.droppedByAlgorithm, c.algorithm, d);
    }
  }
}

/** The series of one GPU beyond the first (sorted) are dropped; several pods on it are flagged. */
function countOneGpu(gpu: string, list: readonly Candidate[], out: CountedOnce): void {
  const kept = list[0]!;
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
    out.dropped.push(d);
    pushTo(out.droppedByAlgorithm, c.algorithm, d);
  }
  if (podKeys.length < 2) return;
  const flag: AttributionFlag = {
    kind: 'TimeSlicedGpu',
    gpu,
    pods: podKeys,
    countedFor: kept.podKey,
    message: `GPU ${gpu} is reported under ${podKeys.length} pods (${podKeys.join(', ')}): time-sliced; counted once, for ${kept.podKey}`,
  };
  out.flags.push(flag);
  for (const alg of new Set(list.map((c) => c.algorithm))) pushTo(out.flagsByAlgorithm, alg, flag);
}

/**
 * Per algorithm: one sample per pod (sorted by pod), its flags and drops. With a `memo`, an
 * algorithm whose samples come in the same pod order as the last answer's is put in the order
 * sorting gave then (issue 42: a steady pass re-sorted every algorithm's samples), and the orders
 * of this answer are kept for the next.
 */
export function byAlgorithm(once: CountedOnce, memo?: SeriesMemo): Map<string, AlgorithmAttribution> {
  const out = new Map<string, AlgorithmAttribution>();
  const entry = (algorithm: string): AlgorithmAttribution => {
    let e = out.get(algorithm);
    if (!e) {
      e = {
        algorithm,
        samples: [],
        flags: once.flagsByAlgorithm.get(algorithm) ?? [],
        dropped: once.droppedByAlgorithm.get(algorithm) ?? [],
      };
      out.set(algorithm, e);
    }
    return e;
  };
  const iso = isoOfLast();
  for (const group of once.byPod.values())
    entry(firstOf(group).algorithm).samples.push(
      Array.isArray(group) ? podSample(group, iso) : oneGpuSample(group, iso),
    );
  for (const alg of [...once.flagsByAlgorithm.keys(), ...once.droppedByAlgorithm.keys()]) entry(alg);
  if (!memo) {
    for (const e of out.values()) e.samples.sort(byPod);
    return out;
  }
  const orders = new Map<string, SampleOrder>();
  for (const e of out.values()) e.samples = sortedByPod(e.algorithm, e.samples, memo.sampleOrders, orders);
  memo.sampleOrders = orders;
  return out;
}

const byPod = (a: PodSample, b: PodSample): number => (a.pod < b.pod ? -1 : a.pod > b.pod ? 1 : 0);

/** `samples` sorted by pod (stable): by the kept order when the pods came as they did then; kept in `next`. */
function sortedByPod(
  algorithm: string,
  samples: PodSample[],
  last: ReadonlyMap<string, SampleOrder>,
  next: Map<string, SampleOrder>,
): PodSample[] {
  if (samples.length < 2) return samples;
  let kept = last.get(algorithm);
  if (kept === undefined || !samePods(kept.pods, samples)) {
    const order = samples.map((_, i) => i).sort((i, j) => byPod(samples[i]!, samples[j]!) || i - j);
    kept = { pods: samples.map((s) => s.pod), order };
  }
  next.set(algorithm, kept);
  const sorted: PodSample[] = [];
  for (const i of kept.order) sorted.push(samples[i]!);
  return sorted;
}

function samePods(pods: readonly string[], samples: readonly PodSample[]): boolean {
  if (pods.length !== samples.length) return false;
  for (let i = 0; i < pods.length; i++) if (pods[i] !== samples[i]!.pod) return false;
  return true;
}

/** A pod's one sample: the mean of its GPUs, at its newest sample; the window when every GPU has one. */
function podSample(list: readonly Candidate[], iso: (ms: number) => string): PodSample {
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
    at: iso(newest),
    gpus: list.length === 1 ? [first.gpu] : list.map((c) => c.gpu).sort(),
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
  return sample;
}

/** {@link podSample} of a pod with one GPU (no list made for it). */
function oneGpuSample(c: Candidate, iso: (ms: number) => string): PodSample {
  const sample: PodSample = {
    namespace: c.namespace,
    pod: c.pod,
    // `0 +` as the mean's sum starts: a -0 comes out as 0, as it does there.
    utilization: 0 + c.utilization,
    at: iso(c.timestamp),
    gpus: [c.gpu],
  };
  if (c.window) sample.window = { max: 0 + c.window.max, coveredSeconds: c.window.coveredSeconds };
  return sample;
}

/**
 * `new Date(ms).toISOString()`, the last answer given again for the same `ms`: the series of one
 * answer mostly share their sample time, and a pass formats one per pod.
 */
function isoOfLast(): (ms: number) => string {
  let lastMs = NaN;
  let last = '';
  return (ms) => {
    if (ms !== lastMs) {
      last = new Date(ms).toISOString();
      lastMs = ms;
    }
    return last;
  };
}

/**
 * Values by key where a key with one value holds it alone, not in a list (most GPUs have one
 * series and most pods one GPU: no array is made for each of them, every pass).
 */
export type Grouped<T extends object> = Map<string, T | T[]>;

/** Adds `value` to the values of `key` (in order). */
export function addTo<T extends object>(map: Grouped<T>, key: string, value: T): void {
  const had = map.get(key);
  if (had === undefined) map.set(key, value);
  else if (Array.isArray(had)) had.push(value);
  else map.set(key, [had, value]);
}

const firstOf = <T extends object>(g: T | T[]): T => (Array.isArray(g) ? g[0]! : g);
const sizeOf = <T extends object>(g: T | T[]): number => (Array.isArray(g) ? g.length : 1);
const listOf = <T extends object>(g: T | T[]): T[] => (Array.isArray(g) ? g : [g]);

/** Appends `value` to the list of `key`. */
export function pushTo<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
