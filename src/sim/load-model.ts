/**
 * The simulated GPU load: what drives the utilisation the dcgm-exporter pages report and the HPAs
 * react to. It lives in the simulator process and is changed at run time (a demo raises and
 * lowers it; a test sets it); it is injected, never a module-level singleton.
 *
 * Units: offered load of an algorithm is in "GPU-percent" — 100 is one GPU fully busy, 250 is two
 * and a half GPUs' worth of work. Rules (evaluated at the simulated clock's `now`):
 * - An algorithm's offered load is its schedule's last step at or before `now`, else the value of
 *   {@link LoadModel.setLoad}, else `defaultLoadPercent` (0).
 * - It is spread evenly over the GPUs of its serving pods: pods labelled `gpuops.dev/algorithm`,
 *   Running, Ready, not being deleted, not owned by a Job, with a `nvidia.com/gpu` request. Each
 *   GPU shows min(100, load / GPUs) percent. So one more replica lowers every replica's
 *   utilisation — scaling works — and an overloaded algorithm shows 100 %.
 * - A Running pod owned by a Job (a benchmark) shows `jobUtilizationPercent` (95) per GPU.
 * - A Running pod without the algorithm label (a workload gpuops does not manage) shows
 *   `foreignUtilizationPercent` (70) per GPU.
 * - GPUs of pods that are not Running, and GPUs no pod holds, show 0.
 * - A batching service ({@link LoadModel.setBatching}: an LLM server that batches requests) keeps
 *   its GPUs busy whatever its load: each of its serving GPUs shows `batchingUtilizationPercent`
 *   (97) while it has any load, and its queue carries the load instead: each serving pod has
 *   `offered load / serving GPUs / 10` requests waiting ({@link LoadModel.requestsWaiting}; one
 *   request per 10 GPU-percent), so the queue rises and falls with load and falls as replicas
 *   are added, while `DCGM_FI_DEV_GPU_UTIL` stays near 100 %.
 */
import type { KubeObject } from './types.js';
import { ALGORITHM_LABEL, controllerOf, isServing, phaseOf, podGpus } from './controllers/pods.js';

/** One step of a load schedule: from `at` on, the algorithm's offered load is `load` (GPU-percent). */
export interface LoadStep {
  at: Date | string;
  load: number;
}

/** Options of {@link LoadModel}; percentages are 0..100 per GPU, loads GPU-percent. */
export interface LoadModelOptions {
  foreignUtilizationPercent?: number;
  jobUtilizationPercent?: number;
  defaultLoadPercent?: number;
}

function checkLoad(what: string, value: number, max = Number.POSITIVE_INFINITY): number {
  if (!Number.isFinite(value) || value < 0 || value > max) {
    throw new Error(`load model: ${what}: expected a number between 0 and ${max}, got ${value}`);
  }
  return value;
}

/** Offered load per algorithm, settable at run time; see the module comment for the rules. */
export class LoadModel {
  readonly foreignUtilizationPercent: number;
  readonly jobUtilizationPercent: number;
  readonly defaultLoadPercent: number;
  private readonly loads = new Map<string, number>();
  private readonly schedules = new Map<string, { atMs: number; load: number }[]>();
  private readonly batching = new Set<string>();
  /** GPU utilisation (percent) of a batching service's serving GPUs while it has load. */
  readonly batchingUtilizationPercent = 97;
  private changes = 0;

  /** @throws Error naming the option when a value is negative, not finite or a percent above 100 */
  constructor(options: LoadModelOptions = {}) {
    this.foreignUtilizationPercent = checkLoad(
      'foreignUtilizationPercent',
      options.foreignUtilizationPercent ?? 70,
      100,
    );
    this.jobUtilizationPercent = checkLoad('jobUtilizationPercent', options.jobUtilizationPercent ?? 95, 100);
    this.defaultLoadPercent = checkLoad('defaultLoadPercent', options.defaultLoadPercent ?? 0);
  }

  /** Sets an algorithm's offered load (GPU-percent, ≥ 0) from now on; a schedule still wins from its first step. */
  setLoad(algorithm: string, totalPercent: number): void {
    this.loads.set(algorithm, checkLoad(`load of ${algorithm}`, totalPercent));
    this.changes++;
  }

  /** A counter that moves on every change of a load or schedule (for caches of derived figures). */
  version(): number {
    return this.changes;
  }

  /**
   * Replaces an algorithm's schedule: a step function over simulated time. Before the first step
   * the plain load (or the default) applies. @throws Error on a bad time or load
   */
  setSchedule(algorithm: string, steps: LoadStep[]): void {
    const parsed = steps.map((s, i) => {
      const atMs = s.at instanceof Date ? s.at.getTime() : Date.parse(s.at);
      if (Number.isNaN(atMs))
        throw new Error(`load model: schedule of ${algorithm}: step ${i}: invalid time ${String(s.at)}`);
      return { atMs, load: checkLoad(`schedule of ${algorithm}: step ${i}`, s.load) };
    });
    this.schedules.set(
      algorithm,
      parsed.sort((a, b) => a.atMs - b.atMs),
    );
    this.changes++;
  }

  /** Makes an algorithm a batching service (see the module rules), or a plain one again. */
  setBatching(algorithm: string, on = true): void {
    if (on) this.batching.add(algorithm);
    else this.batching.delete(algorithm);
    this.changes++;
  }

  /**
   * Requests waiting per serving pod of each batching service, keyed `namespace/name`: the offered
   * load per serving GPU / 10, times the pod's GPUs (see the module rules). Pass all pods.
   */
  requestsWaiting(pods: readonly KubeObject[], now: Date): Map<string, number> {
    const gpus = new Map<string, number>();
    for (const p of pods) {
      const a = servingAlgorithm(p);
      if (a !== undefined && this.batching.has(a)) gpus.set(a, (gpus.get(a) ?? 0) + podGpus(p));
    }
    const out = new Map<string, number>();
    for (const p of pods) {
      const a = servingAlgorithm(p);
      if (a === undefined || !this.batching.has(a)) continue;
      const perGpu = this.offeredLoad(a, now) / (gpus.get(a) ?? 1);
      out.set(`${p.metadata.namespace}/${p.metadata.name}`, (perGpu / 10) * podGpus(p));
    }
    return out;
  }

  /** Removes an algorithm's load and schedule. */
  clear(algorithm: string): void {
    this.loads.delete(algorithm);
    this.schedules.delete(algorithm);
    this.changes++;
  }

  /** The algorithms with a load or a schedule, sorted. */
  algorithms(): string[] {
    return [...new Set([...this.loads.keys(), ...this.schedules.keys()])].sort();
  }

  /** Offered load of an algorithm at `now` (GPU-percent). */
  offeredLoad(algorithm: string, now: Date): number {
    const t = now.getTime();
    let fromSchedule: number | undefined;
    for (const step of this.schedules.get(algorithm) ?? []) {
      if (step.atMs <= t) fromSchedule = step.load;
      else break;
    }
    return fromSchedule ?? this.loads.get(algorithm) ?? this.defaultLoadPercent;
  }

  /**
   * Utilisation per GPU (percent, 0..100) of every pod of `pods` that holds GPUs, keyed
   * `namespace/name`. Pass all pods of the cluster: the spread needs every serving pod of an
   * algorithm, wherever it runs.
   */
  podUtilization(pods: readonly KubeObject[], now: Date): Map<string, number> {
    const gpusByAlgorithm = new Map<string, number>();
    for (const p of pods) {
      const algorithm = servingAlgorithm(p);
      if (algorithm !== undefined)
        gpusByAlgorithm.set(algorithm, (gpusByAlgorithm.get(algorithm) ?? 0) + podGpus(p));
    }
    const out = new Map<string, number>();
    for (const p of pods) {
      if (podGpus(p) <= 0) continue;
      out.set(`${p.metadata.namespace}/${p.metadata.name}`, this.utilizationOf(p, gpusByAlgorithm, now));
    }
    return out;
  }

  /** Utilisation per GPU (percent) an algorithm's serving pods show when they hold `gpus` GPUs in all. */
  algorithmUtilization(algorithm: string, gpus: number, now: Date): number {
    if (gpus <= 0) return 0;
    const load = this.offeredLoad(algorithm, now);
    if (this.batching.has(algorithm)) return load > 0 ? this.batchingUtilizationPercent : 0;
    return Math.min(100, load / gpus);
  }

  private utilizationOf(pod: KubeObject, gpusByAlgorithm: Map<string, number>, now: Date): number {
    if (phaseOf(pod) !== 'Running' || pod.metadata.deletionTimestamp) return 0;
    const algorithm = pod.metadata.labels?.[ALGORITHM_LABEL];
    if (algorithm === undefined) return this.foreignUtilizationPercent;
    if (controllerOf(pod)?.kind === 'Job') return this.jobUtilizationPercent;
    if (!isServing(pod)) return 0;
    return this.algorithmUtilization(algorithm, gpusByAlgorithm.get(algorithm) ?? 0, now);
  }
}

/** The algorithm a pod serves load for, or undefined (see the module rules). */
export function servingAlgorithm(pod: KubeObject): string | undefined {
  const algorithm = pod.metadata.labels?.[ALGORITHM_LABEL];
  if (algorithm === undefined || !isServing(pod) || podGpus(pod) <= 0) return undefined;
  if (controllerOf(pod)?.kind === 'Job') return undefined;
  return algorithm;
}
