/**
 * Times of records and pods read again and again (pure, a bounded memo): every rule of every pass
 * compares the recorded decisions' `at` (and the starting pods' start) with the pass's clock, so
 * the same few hundred ISO-8601 strings are parsed tens of millions of times in a replay.
 * `Date.parse` costs about 20 times a `Map` lookup of the same string.
 */

/** Parsed times by their text; cleared whole when full (a long-running process reads new times). */
const parsed = new Map<string, number>();
/** At most this many times are remembered (a pass reads a few per algorithm). */
const LIMIT = 50_000;

/**
 * `Date.parse(iso)` (epoch milliseconds; NaN for a text it cannot read), remembered by the text:
 * the same answer as `Date.parse` for every string, as the memo holds only what it returned.
 */
export function isoMs(iso: string): number {
  let ms = parsed.get(iso);
  if (ms === undefined) {
    if (parsed.size >= LIMIT) parsed.clear();
    ms = Date.parse(iso);
    parsed.set(iso, ms);
  }
  return ms;
}
