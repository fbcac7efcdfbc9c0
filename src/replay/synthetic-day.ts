/**
 * A synthetic day of per-pod GPU utilisation, generated from a seed (pure and deterministic: the
 * same seed gives the same trace on every machine), for `gpuops replay --synthetic` and
 * `npm run replay` on a clone without the real trace. No row of the trace is in it: every number
 * below is a published figure of the Alibaba GenAI serving trace (`cluster-trace-v2026-GenAI`,
 * its README's "facts for replay" and the measures in docs/replay.md), and the generator is a
 * model that reproduces them:
 *
 * - **replica churn**: 72 pods report all day; others arrive (about 1.45 an hour) and leave
 *   (about 1.35 an hour), 37 of them already there at the start; each pod misses about 3 % of its
 *   reports, so the count moves at most instants (median 109, between about 100 and 114);
 * - **level and daily swing**: the fleet's summed load follows a day with a busy morning (about 16
 *   GPU-equivalents, 12–19 % of the pods' GPUs, hours 1–10) and a quiet evening (about 1.5, 1–2 %,
 *   hours 16–23), with one busy hour that dips (to about 6 %) and a slow wander (12 %, 30 min);
 * - **jumps that mean-revert**: on top, a fast deviation of 34 % of the level, correlated 0.6 from
 *   one minute to the next and gone within 5–10 minutes, with jumps of 1.5–2.5 times that (about
 *   1.75 an hour rise 2 standard deviations above the hourly mean, and are back within 2 minutes);
 * - **spiky pods**: a pod is busy or at exactly 0 (two thirds of all samples); the busier the
 *   fleet, the more pods are busy (a pod's chance is its share of the load ÷ 20 %); a busy pod's
 *   value is log-normal (median 17 %, 90th percentile about 40 %), pods differ in how often they
 *   are busy, and the values of an instant add up to the load, each at most 99.7 %.
 *
 * Units: time in seconds from 0, one instant a minute; values in percent of one GPU (1 GPU per pod).
 */
import { prng } from '../util/index.js';
import type { Trace, TraceInstant } from './trace.js';

/** The published figures the generator follows (see the module comment and docs/replay.md). */
export const SYNTHETIC_FIGURES = {
  stablePods: 72,
  podsAtStart: 109,
  arrivalsPerHour: 1.45,
  /** Mean time a pod present at the start stays, and one that arrives (hours; many outlive the day). */
  stayHoursAtStart: 30,
  stayHoursArrived: 14,
  missedReports: 0.03,
  /** Hour of the day → the fleet's summed load (GPU-equivalents), linear in between. */
  dayProfile: [
    [0, 2],
    [0.75, 8],
    [1.5, 15],
    [9.5, 16.5],
    [10.5, 6.5],
    [12, 4.4],
    [14, 3.3],
    [16, 2],
    [17, 1.4],
    [23, 1.6],
    [24, 2],
  ] as const,
  dipFactor: 0.45,
  wanderSd: 0.12,
  wanderMinutes: 30,
  jumpCorrelation: 0.6,
  deviationSd: 0.34,
  jumpsPerHour: 2.2,
  busyShareDivisor: 20,
  busyMedianPercent: 17,
  busySigma: 0.7,
  maxPercent: 99.7,
} as const;

/** Options of {@link syntheticDay}. */
export interface SyntheticOptions {
  /** Seed of the generator (default 1). */
  seed?: number;
  /** Length (hours; default 24) and spacing of instants (seconds; default 60). */
  hours?: number;
  stepSeconds?: number;
}

const F = SYNTHETIC_FIGURES;

/** A standard normal draw (Box–Muller). */
const normal = (r: () => number): number => Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());
/** An exponential draw of mean `mean`. */
const exponential = (r: () => number, mean: number): number => -mean * Math.log(1 - r());

/** The day profile at `hour` (0–24, wrapping), GPU-equivalents. */
export function dayLevel(hour: number): number {
  const h = ((hour % 24) + 24) % 24;
  const p = F.dayProfile;
  for (let i = 0; i + 1 < p.length; i++) {
    const [h0, v0] = p[i]!;
    const [h1, v1] = p[i + 1]!;
    if (h >= h0 && h <= h1) return v0 + ((v1 - v0) * (h - h0)) / (h1 - h0);
  }
  return p[0]![1];
}

/** One pod: when it reports (seconds, `[from, to)`) and how often it is busy (weight, mean ≈ 1). */
interface Pod {
  name: string;
  from: number;
  to: number;
  weight: number;
}

/** The pods of the day (see the module comment's replica churn). */
function podsOf(r: () => number, seconds: number): Pod[] {
  const pods: Pod[] = [];
  const weight = () => Math.exp(0.8 * normal(r) - 0.32);
  const add = (from: number, stayHours: number | null) =>
    pods.push({
      name: `pod-${String(pods.length).padStart(3, '0')}`,
      from,
      to: stayHours === null ? Infinity : from + stayHours * 3600,
      weight: weight(),
    });
  for (let i = 0; i < F.stablePods; i++) add(0, null);
  for (let i = F.stablePods; i < F.podsAtStart; i++) add(0, exponential(r, F.stayHoursAtStart));
  for (
    let t = exponential(r, 3600 / F.arrivalsPerHour);
    t < seconds;
    t += exponential(r, 3600 / F.arrivalsPerHour)
  )
    add(t, exponential(r, F.stayHoursArrived));
  return pods;
}

/** The summed load (GPU-equivalents) at each instant: the day, one dipped hour, the wander, the jumps. */
function loadsOf(r: () => number, n: number, step: number): number[] {
  const dipHour = 2 + Math.floor(r() * 7);
  const wanderPhi = Math.exp(-step / (F.wanderMinutes * 60));
  const jumpPhi = Math.pow(F.jumpCorrelation, step / 60);
  const jumpChance = (F.jumpsPerHour * step) / 3600;
  // Innovation of the fast deviation: its stationary sd is deviationSd, jumps included.
  const innovation = F.deviationSd * Math.sqrt(1 - jumpPhi * jumpPhi) * 0.75;
  let wander = 0;
  let fast = 0;
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const hour = (i * step) / 3600;
    wander = wanderPhi * wander + F.wanderSd * Math.sqrt(1 - wanderPhi * wanderPhi) * normal(r);
    fast = jumpPhi * fast + innovation * normal(r);
    if (r() < jumpChance) fast += F.deviationSd * (1.5 + r());
    const dip = Math.floor(hour) === dipHour ? F.dipFactor : 1;
    out.push(Math.max(0, dayLevel(hour) * dip * (1 + wander) * (1 + fast)));
  }
  return out;
}

/** The values of one instant: busy pods drawn, then scaled so that they add up to `load` GPUs. */
function valuesOf(r: () => number, pods: readonly Pod[], load: number): number[] {
  const share = (100 * load) / Math.max(1, pods.length);
  const busy = Math.min(0.95, share / F.busyShareDivisor);
  const raw = pods.map((p) =>
    r() < Math.min(0.98, busy * p.weight) ? F.busyMedianPercent * Math.exp(F.busySigma * normal(r)) : 0,
  );
  const sum = raw.reduce((a, b) => a + b, 0);
  if (sum === 0) return raw;
  // Scale to the load, capping each pod at the most a GPU shows; what a cap cuts goes to the others.
  let values = raw.map((v) => (v * 100 * load) / sum);
  for (let round = 0; round < 4; round++) {
    const over = values.reduce((a, v) => a + Math.max(0, v - F.maxPercent), 0);
    values = values.map((v) => Math.min(v, F.maxPercent));
    const room = values.reduce((a, v) => a + (v > 0 && v < F.maxPercent ? v : 0), 0);
    if (over <= 1e-9 || room === 0) break;
    values = values.map((v) => (v > 0 && v < F.maxPercent ? v * (1 + over / room) : v));
  }
  return values.map((v) => Math.round(Math.min(v, F.maxPercent) * 1000) / 1000);
}

/** One generated instant: its time (seconds) and each reporting pod's name and value (percent). */
interface NamedInstant {
  t: number;
  pods: string[];
  values: number[];
}

/** The day's instants with the names of the pods that report (see the module comment). */
function generate(o: SyntheticOptions): NamedInstant[] {
  const step = o.stepSeconds ?? 60;
  const seconds = (o.hours ?? 24) * 3600;
  const n = Math.max(1, Math.floor(seconds / step));
  const r = prng(o.seed ?? 1);
  const pods = podsOf(r, seconds);
  const loads = loadsOf(r, n, step);
  const out: NamedInstant[] = [];
  for (let i = 0; i < n; i++) {
    const t = i * step;
    const present = pods.filter((p) => t >= p.from && t < p.to && r() >= F.missedReports);
    out.push({ t, pods: present.map((p) => p.name), values: valuesOf(r, present, loads[i]!) });
  }
  return out;
}

/** What a synthetic day is called in messages and reports: `synthetic day (seed 1)`. */
export const syntheticName = (seed = 1): string => `synthetic day (seed ${seed})`;

/**
 * The synthetic day (see the module comment) as a replay trace: `source` names it
 * ({@link syntheticName}), one instant every `stepSeconds` from 0 for `hours`.
 */
export function syntheticDay(o: SyntheticOptions = {}): Trace {
  const instants = generate(o);
  const seen = new Set(instants.flatMap((x) => x.pods));
  return {
    source: syntheticName(o.seed),
    instants: instants.map(({ t, values }): TraceInstant => ({ t, values })),
    pods: seen.size,
  };
}

/**
 * The synthetic day as the trace's CSV (`value,timestamp_anon,container_ip`, one row per pod and
 * instant), for the replay paths that read a trace's text (a fleet of `--services K`).
 */
export function syntheticDayCsv(o: SyntheticOptions = {}): string {
  const lines = ['value,timestamp_anon,container_ip'];
  for (const x of generate(o)) x.pods.forEach((p, i) => lines.push(`${x.values[i]},${x.t},${p}`));
  return `${lines.join('\n')}\n`;
}
