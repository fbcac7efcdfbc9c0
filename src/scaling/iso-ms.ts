/**
 * Times of records and pods read again and again (pure, a bounded memo): every rule of every pass
 * compares the recorded decisions' `at` (and the starting pods' start) with the pass's clock, so
 * the same few hundred ISO-8601 strings are parsed tens of millions of times in a replay.
 * `Date.parse` costs about 20 times a `Map` lookup of the same string.
 */
import { boundedMemo } from '../util/index.js';

/**
 * `Date.parse(iso)` (epoch milliseconds; NaN for a text it cannot read), remembered by the text:
 * the same answer as `Date.parse` for every string, as the memo holds only what it returned. At
 * most 50,000 texts are held (a pass reads a few per algorithm); past that the oldest goes
 * (`boundedMemo`: a long-running process reads new times).
 */
export const isoMs: (iso: string) => number = boundedMemo(50_000, (iso: string) => Date.parse(iso));
