/**
 * The causal bound of a replay (pure): the best utilisation that a documented family of reacting
 * rules reaches on the trace with the loop's own delays and within the same limits, printed beside
 * gpuops so a reader sees how close to it gpuops is. `bench/replay-bound.ts` prints the same
 * bound ({@link reactionBound}) at the replay's two reaction delays, without the unserved limit.
 *
 * The family R(W, β), kinder than any real controller:
 * - it decides at the same instants as gpuops (every tick when event-driven, else every pass);
 * - it sees the offered load `sampleSeconds` late (the same lag), and sizes for M, the highest
 *   load it saw over the last W seconds: max(1, ⌈(M + β·√M) / max⌉) replicas (M in GPUs);
 * - a scale-up's pods are Ready at the first tick at least their start-up after the decision
 *   (the same start-ups, fixed or drawn, as gpuops's) and hold their GPU from the decision on, as
 *   gpuops's and the HPA's do (on a node the GPU is the pod's from admission, before Ready); a
 *   scale-down drops starting pods first and takes effect at once; no flap limit, no cooldown.
 * W ∈ {@link BOUND_WINDOWS}, β ∈ {@link BOUND_FACTORS}; the best is the highest utilisation with
 * pod-time above max and unserved load within the limits. Measured by `figures.ts`'s
 * `computeFigures`, as gpuops and the HPA are: utilisation = served ÷ allocated GPU-time (starting
 * and Ready pods), above max = Ready pod-time while load ÷ Ready > max, unserved = offered − served
 * over offered, the offered load the trace's own over each instant.
 */
import { computeFigures, type AllocationPoint } from './figures.js';
import { loadLookup } from './model-engine.js';
import { instantSeconds, type Trace } from './trace.js';

/**
 * Windows W the family tries (seconds): 15 of them, 15 s apart up to a minute, then ever wider
 * steps to 600 s. With {@link BOUND_FACTORS}, 465 rules (0.8–1.0 s CPU a loop on the bundled
 * trace, measured 2026-12-07): the bound is the best of the family, so the family is swept finely.
 */
export const BOUND_WINDOWS: readonly number[] = [
  0, 15, 30, 45, 60, 90, 120, 150, 180, 240, 300, 375, 450, 525, 600,
];
/** Headroom factors β the family tries: 0 to 3 by 0.1 (31 of them, each rounded to one decimal). */
export const BOUND_FACTORS: readonly number[] = Array.from({ length: 31 }, (_, i) => i / 10);

/** The delays and limits the bound is computed under (seconds, percent). */
export interface BoundSettings {
  tickSeconds: number;
  sampleDelaySeconds: number;
  /** Time between decisions: the tick when event-driven, else the pass interval. */
  decideEverySeconds: number;
  startupSeconds: number;
  /** Start-up of the n-th new pod (drawn); absent: `startupSeconds`. */
  startupOf?: (n: number) => number;
  max: number;
  aboveMaxPercent: number;
  unservedPercent: number;
}

/** One member of the family and its figures (percent). */
export interface BoundPoint {
  windowSeconds: number;
  beta: number;
  utilizationPercent: number;
  aboveMaxPercent: number;
  unservedPercent: number;
}

/**
 * The best member within the limits (null: none kept them), how many were tried, and every member
 * tried with its figures (W by W, β by β: the family's frontier is drawn from them, `bound-frontier.ts`).
 */
export interface CausalBound {
  best: BoundPoint | null;
  tried: number;
  points: BoundPoint[];
}

/** The causal bound of `trace` under `s`. @throws Error when the trace is empty or the tick is not positive */
export function causalBound(trace: Trace, s: BoundSettings): CausalBound {
  const { first, seen } = seenLoad(trace, s);
  let best: BoundPoint | null = null;
  const points: BoundPoint[] = [];
  for (const w of BOUND_WINDOWS) {
    const peak = windowMax(seen, Math.floor(w / s.tickSeconds) + 1);
    for (const beta of BOUND_FACTORS) {
      const p = { windowSeconds: w, beta, ...react(trace, first, peak, beta, s) };
      points.push(p);
      if (p.aboveMaxPercent > s.aboveMaxPercent || p.unservedPercent > s.unservedPercent) continue;
      if (best === null || p.utilizationPercent > best.utilizationPercent) best = p;
    }
  }
  return { best, tried: points.length, points };
}

/**
 * One member R(W, β) of the family on `trace` under `s`, with the figures {@link causalBound}
 * compares (whatever the limits). @throws Error as {@link causalBound}
 */
export function boundRule(trace: Trace, s: BoundSettings, windowSeconds: number, beta: number): BoundPoint {
  const { first, seen } = seenLoad(trace, s);
  const peak = windowMax(seen, Math.floor(windowSeconds / s.tickSeconds) + 1);
  return { windowSeconds, beta, ...react(trace, first, peak, beta, s) };
}

/**
 * The load the family sees at each tick of the trace (GPUs, `sampleDelaySeconds` late) and the
 * first instant's load it starts sized for. @throws Error as {@link causalBound}
 */
function seenLoad(trace: Trace, s: BoundSettings): { first: number; seen: Float64Array } {
  if (trace.instants.length === 0) throw new Error(`${trace.source}: no instants for the bound`);
  if (!(s.tickSeconds > 0)) throw new Error(`causalBound: tick ${s.tickSeconds} s must be positive`);
  const lookup = loadLookup(trace);
  const last = trace.instants.length - 1;
  const endS = trace.instants[last]!.t - trace.instants[0]!.t + instantSeconds(trace, last);
  const seen = new Float64Array(Math.max(1, Math.ceil(endS / s.tickSeconds)));
  for (let i = 0; i < seen.length; i++) seen[i] = lookup(i * s.tickSeconds - s.sampleDelaySeconds) / 100;
  return { first: lookup(0) / 100, seen };
}

/** The highest of the last `len` values at each index (a monotonic queue). */
export function windowMax(xs: Float64Array, len: number): Float64Array {
  const out = new Float64Array(xs.length);
  const q: number[] = [];
  let head = 0;
  for (let i = 0; i < xs.length; i++) {
    while (q.length > head && xs[q[q.length - 1]!]! <= xs[i]!) q.pop();
    q.push(i);
    if (q[head]! <= i - len) head++;
    out[i] = xs[q[head]!]!;
  }
  return out;
}

/**
 * One member's run: the replicas it keeps per tick, as allocation points measured by
 * `computeFigures`, the function that measures gpuops and the HPA. A starting pod holds its GPU
 * from the decision that creates it (the scheduler binds it at once: capacity never binds here),
 * as on a node, where the kubelet's device manager allocates the GPU at admission, before the
 * container starts and long before the pod is Ready.
 */
function react(
  trace: Trace,
  seen0: number,
  peak: Float64Array,
  beta: number,
  s: BoundSettings,
): Omit<BoundPoint, 'windowSeconds' | 'beta'> {
  const per = s.max / 100;
  const want = (m: number) => Math.max(1, Math.ceil((m + beta * Math.sqrt(m)) / per - 1e-9));
  const every = Math.max(1, Math.round(s.decideEverySeconds / s.tickSeconds));
  let ready = want(seen0);
  let starting: number[] = []; // the tick index each starting pod is Ready at, ascending
  let serial = 0;
  const points: AllocationPoint[] = [];
  for (let i = 0; i < peak.length; i++) {
    while (starting.length > 0 && starting[0]! <= i) {
      starting.shift();
      ready++;
    }
    if (i % every === 0) {
      const target = want(peak[i]!);
      const have = ready + starting.length;
      if (target > have) {
        for (let k = have; k < target; k++) {
          const up = s.startupOf ? s.startupOf(serial++) : s.startupSeconds;
          starting.push(i + Math.ceil(up / s.tickSeconds));
        }
        starting.sort((a, b) => a - b);
      } else if (target < have) {
        const drop = have - target;
        const fromStarting = Math.min(drop, starting.length);
        starting = starting.slice(0, starting.length - fromStarting);
        ready = Math.max(1, ready - (drop - fromStarting));
      }
    }
    const held = ready + starting.length;
    const prev = points[points.length - 1];
    if (prev?.allocated !== held || prev.ready !== ready)
      points.push({ t: i * s.tickSeconds, allocated: held, ready, replicas: held });
  }
  const f = computeFigures(trace, points, { engine: 'causal bound', max: s.max, flapWindowSeconds: 0 });
  return {
    utilizationPercent: f.utilizationPercent,
    aboveMaxPercent: f.aboveMaxPercent,
    unservedPercent: f.unservedPercent,
  };
}

/**
 * The delays from a load change to a Ready replica that `bench/replay-bound.ts` prints the bound
 * at (seconds): the replay's sample delay (15 s) with the decision at once or a pass (30 s) later,
 * each followed by its 60 s start-up: 75 s and 105 s to Ready.
 */
export const REACTION_DELAYS = [15, 45] as const;

/**
 * The bound `bench/replay-bound.ts` prints: {@link causalBound} on the replay's 15 s tick, deciding
 * every tick, seeing the load `sampleDelaySeconds` late, new pods Ready 60 s after the decision
 * and holding their GPU from it, within ≤ 2 % pod-time above `max` and no limit on unserved load
 * (how much utilisation any reactive sizing reaches at that delay). Not a second family: the
 * same rules measured by the same `figures.ts` as the replay's own bound, so the two agree.
 * @throws Error as {@link causalBound}
 */
export function reactionBound(trace: Trace, sampleDelaySeconds: number, max: number): CausalBound {
  return causalBound(trace, {
    tickSeconds: 15,
    sampleDelaySeconds,
    decideEverySeconds: 15,
    startupSeconds: 60,
    max,
    aboveMaxPercent: 2,
    unservedPercent: 100,
  });
}
