/**
 * Round axis ticks (pure): a step of 1, 2, 2.5 or 5 times a power of ten, so that a value axis
 * reads 0, 5, 10, 15, 20 and never 0, 14, 29, 43, 58.
 */

/** The round step (1, 2, 2.5, 5 × 10^k) nearest above `raw` (> 0); 1 for a raw step of 0 or less. */
export function roundStep(raw: number): number {
  if (!(raw > 0) || !Number.isFinite(raw)) return 1;
  const p = 10 ** Math.floor(Math.log10(raw));
  const m = raw / p;
  // 1.0000001 × 10^k is taken as 1 × 10^k (floating point of a quotient that is exactly a step).
  const nice = m <= 1 + 1e-9 ? 1 : m <= 2 + 1e-9 ? 2 : m <= 2.5 + 1e-9 ? 2.5 : m <= 5 + 1e-9 ? 5 : 10;
  return nice * p;
}

/**
 * An axis from 0 that holds `max`: about `count` round steps, the top the first step at or above
 * `max` (at least one step).
 * @returns the top of the axis and its ticks from 0 to the top
 */
export function zeroAxis(max: number, count = 4): { top: number; ticks: number[] } {
  const step = roundStep(max / count);
  const n = Math.max(1, Math.ceil(max / step - 1e-9));
  return { top: step * n, ticks: Array.from({ length: n + 1 }, (_, i) => round(step * i)) };
}

/** The next round step below `step` (10 → 5 → 2.5 → 2 → 1 → 0.5 …). */
function smaller(step: number): number {
  const p = 10 ** Math.floor(Math.log10(step) + 1e-9);
  const m = Math.round((step / p) * 10) / 10;
  return m > 5 ? 5 * p : m > 2.5 ? 2.5 * p : m > 2 ? 2 * p : m > 1 ? p : p / 2;
}

/**
 * Round ticks inside `lo..hi` (an end is included when it falls on a step): the round step of
 * about `count` intervals, made smaller until at least three ticks fall inside.
 */
export function ticksWithin(lo: number, hi: number, count = 4): number[] {
  let step = roundStep((hi - lo) / count);
  const at = (s: number) => {
    const out: number[] = [];
    for (let i = Math.ceil(lo / s - 1e-9); i * s <= hi + s * 1e-9; i++) out.push(round(i * s));
    return out;
  };
  let ticks = at(step);
  while (ticks.length < 3 && hi > lo) ticks = at((step = smaller(step)));
  return ticks;
}

/** Drops floating-point noise (0.30000000000000004 → 0.3) and the sign of a zero. */
const round = (v: number): number => Math.round(v * 1e9) / 1e9 + 0;
