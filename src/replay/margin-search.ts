/**
 * The scale-down margins the first-half choice tries with one headroom factor (pure): every
 * listed margin, then the least margin that keeps the limits, refined by bisection between the
 * listed margins that bracket it to {@link MARGIN_RESOLUTION}.
 *
 * Why: at one β a larger margin (`scaling.headroomDownMargin`, units of √load) only holds more
 * spare, so the utilisation and the pod-time above max both fall as it grows (on the bundled
 * trace's fast loop at β 0.5, margins 1.5 → 2 in steps of 0.1: 54.4 → 52.4 % and 3.12 → 1.45 %
 * above max on the first half, each step lower). The best margin within the limits is then the
 * least one that keeps them, and a coarse grid misses it by up to a grid step: a finer uniform
 * grid would find it too, but it multiplies the runs (0.05 over 0–2.5 is 51 margins per β
 * against 5) and moves every choice, where bisection adds about log2(step ÷ resolution) runs
 * and refines only between the two listed margins around the limit. Should the trend not hold
 * somewhere, bisection still only ever returns margins it ran; the choice stays honest (chosen
 * on the first half, reported on the second).
 */

/** The step the least margin within the limits is refined to (units of √load). */
export const MARGIN_RESOLUTION = 0.05;

/** One tried margin and what its run gave. */
export interface MarginRun<T> {
  margin: number;
  result: T;
}

/**
 * Every margin of `listed` (sorted ascending, duplicates once) run through `run`; then, when a
 * listed margin keeps the limits (`keeps`) and one below it does not, bisection between the
 * greatest that does not (lo) and the least that does (hi) on the multiples of `resolution`: a
 * midpoint that keeps becomes hi, one that does not becomes lo, until no multiple of `resolution`
 * lies strictly between them. Returns every run in the order made (the listed ones first). No
 * refinement when the least listed margin keeps the limits, or none does. Margins are rounded
 * to 1e-9 (0.1 + 0.05 is 0.15, not 0.15000000000000002).
 * @throws Error when `resolution` is not positive
 */
export function marginsTried<T>(
  listed: readonly number[],
  run: (margin: number) => T,
  keeps: (result: T) => boolean,
  resolution = MARGIN_RESOLUTION,
): MarginRun<T>[] {
  if (!(resolution > 0)) throw new Error(`marginsTried: resolution ${resolution} must be positive`);
  const clean = (x: number) => Math.round(x * 1e9) / 1e9;
  const sorted = [...new Set(listed.map(clean))].sort((a, b) => a - b);
  const out = sorted.map((margin) => ({ margin, result: run(margin) }));
  const first = out.findIndex((r) => keeps(r.result));
  if (first <= 0) return out;
  let lo = out[first - 1]!.margin;
  let hi = out[first]!.margin;
  for (;;) {
    const steps = Math.ceil(clean(lo / resolution) + 1e-9);
    const mid = clean(Math.round((lo + hi) / 2 / resolution) * resolution);
    const next = mid > lo && mid < hi ? mid : clean(steps * resolution);
    if (!(next > lo && next < hi)) return out;
    const r = { margin: next, result: run(next) };
    out.push(r);
    if (keeps(r.result)) hi = next;
    else lo = next;
  }
}
