/**
 * What the crossing trigger of `gpuops run` watches between passes, and its test on one reading
 * (pure). The last pass leaves a {@link Watchlist}: per algorithm its band (`BandView`), its Ready
 * replicas and when the hold it decided can change. On each reading of the signal the trigger
 * attributes the series to those pods only — the workload pod a series names, as `attribute` does
 * — and asks `bandCrossing` of each algorithm's mean utilisation. It fires for an algorithm that
 * has just left its band (inside at the previous reading, outside now), and again while outside
 * once its hold can change (`heldUntilMs`: the decision's `DecisionClock.actionUntilMs`), so a
 * cooldown or flap hold that ends is acted on at once, not at the next periodic pass. A reading
 * that covers none of an algorithm's pods says nothing about it (no crossing, its state kept).
 */
import type { DcgmMetric, GpuSeries } from '../metrics/index.js';
import { workloadPod } from './attribute.js';
import { bandCrossing, type BandView } from './band-crossing.js';
import { DCGM } from '../util/index.js';

/** One algorithm the trigger watches. */
export interface WatchedAlgorithm {
  name: string;
  namespace: string;
  view: BandView;
  /** Its Ready replicas' pod names (in `namespace`). */
  pods: readonly string[];
  /** When the action of its last decision can change with only the clock moving (ms; Infinity: never). */
  heldUntilMs: number;
}

/** What the trigger reads and watches until the next pass. */
export interface Watchlist {
  metric: DcgmMetric;
  /** The pass's averaging window (seconds, `scaling.windowSeconds`): the trigger reads as the pass does. */
  windowSeconds: number;
  /** The namespaces the pass read (its scoped query). */
  namespaces: readonly string[];
  algorithms: readonly WatchedAlgorithm[];
}

/** The trigger's memory between readings: the algorithms outside their band at the last reading. */
export type WatchState = ReadonlySet<string>;

/** The outcome of one reading: the algorithms to pass for, and the new state. */
export interface WatchOutcome {
  crossed: string[];
  state: Set<string>;
}

/**
 * Tests one reading's `series` at `nowMs` (see the module comment). A series of another metric, a
 * value that is not finite, or a pod the list does not hold is left out; a ratio metric
 * (`DCGM_FI_PROF_GR_ENGINE_ACTIVE`) counts ×100, as attribution normalises it. A pod's value is the
 * mean of its GPUs'; the algorithm's the mean of its pods' over as many Ready pods as had a value.
 */
export function watchReading(
  w: Watchlist,
  series: readonly GpuSeries[],
  before: WatchState,
  nowMs: number,
): WatchOutcome {
  const owner = new Map<string, WatchedAlgorithm>();
  for (const a of w.algorithms) for (const p of a.pods) owner.set(`${a.namespace}/${p}`, a);
  const scale = w.metric === DCGM.GR_ENGINE_ACTIVE ? 100 : 1;
  const byPod = new Map<string, { sum: number; n: number }>();
  for (const s of series) {
    if (s.metric !== w.metric || !Number.isFinite(s.value)) continue;
    const { namespace, pod } = workloadPod(s.labels);
    const key = `${namespace}/${pod}`;
    if (!owner.has(key)) continue;
    const acc = byPod.get(key) ?? { sum: 0, n: 0 };
    acc.sum += s.value * scale;
    acc.n++;
    byPod.set(key, acc);
  }
  const byAlgorithm = new Map<string, { sum: number; pods: number }>();
  for (const [key, acc] of byPod) {
    const a = owner.get(key)!;
    const m = byAlgorithm.get(a.name) ?? { sum: 0, pods: 0 };
    m.sum += acc.sum / acc.n;
    m.pods++;
    byAlgorithm.set(a.name, m);
  }
  const crossed: string[] = [];
  const state = new Set<string>();
  for (const a of w.algorithms) {
    const m = byAlgorithm.get(a.name);
    if (!m) {
      if (before.has(a.name)) state.add(a.name);
      continue;
    }
    if (bandCrossing(a.view, m.sum / m.pods, m.pods) === null) continue;
    state.add(a.name);
    if (!before.has(a.name) || nowMs >= a.heldUntilMs) crossed.push(a.name);
  }
  return { crossed, state };
}
