/**
 * Reading a vector item of a query answer without building what a pass throws away. A pass reads
 * the same GPUs' series again and again; between two answers their labels stay the same and only
 * the values move. So an item in Prometheus's own compact form,
 * `{"metric":{…},"value":[<seconds>,"<value>"]}`, is read apart: its `metric` text is looked up
 * among the label sets of the last answer (the same bytes give the same {@link SeriesLabels}, the
 * same object), and only the two values are read. Anything else (another key order, blanks, an
 * escape or a byte that is not ASCII in the value, a number JSON would not accept) is left to
 * `JSON.parse` of the whole item, so the series are those `parseQueryAnswer` gives for every body.
 */
import { Buffer } from 'node:buffer';
import { isObject, seriesLabelsOf, type SeriesLabels } from './answer-builder.js';
import { parseSampleValue } from './dcgm-text.js';

/**
 * One item's label set and the bytes of its `metric` object, as Latin-1 text (one character a
 * byte: equal texts are equal bytes; a string, not a buffer of its own per series, which the
 * collector would track one by one).
 */
interface Kept {
  text: string;
  labels: SeriesLabels;
}

/**
 * The label sets of the last answer read through it, in the answer's order (Prometheus answers
 * the same query over the same series in the same order, so item `i` is compared with the last
 * answer's item `i` first). One is kept per utilisation source: each answer read with it replaces
 * the sets it holds with that answer's own (about 250 bytes a series of the scoped query), unless
 * a later read on it started meanwhile: of two reads in flight (a pass's dropped early read and
 * its own, `pass/early-reading.ts`) the one started last keeps its sets, whichever ends last.
 */
export class LabelSetMemo {
  /** @internal the sets of the last answer ended (`LabelSetReader.finish`). */
  last: Kept[] = [];
  /** @internal readers made on it so far: the newest one's `finish` alone sets `last`. */
  started = 0;
}

const METRIC_PREFIX = '{"metric":';
/** Bytes of `{"metric":`, before the `metric` object of an item in the compact form. */
export const METRIC_KEY_LENGTH = METRIC_PREFIX.length;
const VALUE_PREFIX = ',"value":[';
/** A JSON number (RFC 8259), which `Number` alone would widen (`01`, `1.`, `0x1`, `Infinity`). */
const JSON_NUMBER = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;
const QUOTE = 0x22;
/** Items out of their place parsed before the last answer's sets are indexed by their bytes. */
const LOOKUPS_AFTER = 256;
const BACKSLASH = 0x5c;
const MINUS = 0x2d;
const DOT = 0x2e;
const ZERO = 0x30;
/** 10^0 … 10^22, each an exact double (read from its decimal text, which converts exactly). */
const POW10 = Array.from({ length: 23 }, (_, i) => Number(`1e${i}`));

/**
 * The number the decimal `-?<digits>(.<digits>)?` at `from..to` of `bytes` spells, read without
 * a string when one division gives `Number`'s own result: the digits, read as an integer, stay at
 * most 2^53 − 1 and there are at most 22 of them after the point, so the integer and the power of
 * ten are exact doubles and IEEE division rounds their exact quotient, the decimal's value, once,
 * as `Number` of its text does (Clinger's fast path). Undefined for any other text (an exponent,
 * `NaN`, `+Inf`, blanks, more digits), which the caller converts from its string. `json`: a number
 * JSON would not accept (`01`) is undefined too.
 */
export function decimalAt(bytes: Uint8Array, from: number, to: number, json: boolean): number | undefined {
  let i = from;
  const negative = bytes[i] === MINUS;
  if (negative) i++;
  const first = i;
  let m = 0;
  for (; i < to; i++) {
    const d = bytes[i]! - ZERO;
    if (d < 0 || d > 9) break;
    m = m * 10 + d;
  }
  if (i === first || (json && i - first > 1 && bytes[first] === ZERO)) return undefined;
  let scale = 0;
  if (i < to) {
    if (bytes[i] !== DOT) return undefined;
    const point = ++i;
    for (; i < to; i++) {
      const d = bytes[i]! - ZERO;
      if (d < 0 || d > 9) return undefined;
      m = m * 10 + d;
    }
    scale = i - point;
    if (scale === 0 || scale > 22) return undefined;
  }
  // Past 2^53 − 1 the sum above may have rounded: such a text is converted from its string.
  if (m > Number.MAX_SAFE_INTEGER) return undefined;
  const v = scale === 0 ? m : m / POW10[scale]!;
  return negative ? -v : v;
}

/** True when `text` (ASCII, or Latin-1: one character a byte) is at `start` of `bytes`. */
function at(bytes: Uint8Array, start: number, text: string): boolean {
  if (start + text.length > bytes.length) return false;
  for (let i = 0; i < text.length; i++) if (bytes[start + i] !== text.charCodeAt(i)) return false;
  return true;
}

/** `chunk`'s bytes as a Buffer (no copy). */
function bufferOf(chunk: Uint8Array): Buffer {
  return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

/** One answer's reader of items in the compact form, over a {@link LabelSetMemo}. */
export class LabelSetReader {
  private readonly text = new TextDecoder();
  /** This answer's sets by item index (an item parsed whole leaves a hole). */
  private readonly seen: Kept[] = [];
  /** The last answer's sets by their bytes (Latin-1), built at the first item out of its place. */
  private byText: Map<string, Kept> | null = null;
  private misses = 0;
  /** The join keys of the label sets parsed in this answer, each kept once (see `labelsOf`). */
  private readonly keys = new Map<string, string>();
  private viewOf: Uint8Array | null = null;
  private viewBuf: Buffer | null = null;
  /**
   * The item's labels, seconds and value (`parseSampleValue` of its text): after a `read` that
   * returned true; `labels` after a `skip` that matched, `seconds` and `value` after a `tail` that did.
   */
  labels: SeriesLabels | null = null;
  seconds = 0;
  value = 0;

  /** Items read whole (`skip`, then `tail`) kept by `keep` until `take`: labels; seconds and value. */
  private readonly pending: SeriesLabels[] = [];
  private readonly pendingValues: number[] = [];

  /** Its number among the memo's readers (`LabelSetMemo.started`). */
  private readonly ticket: number;

  constructor(private readonly memo: LabelSetMemo) {
    this.ticket = ++memo.started;
  }

  /** Keeps the item just read by `skip` and `tail` (its `labels`, `seconds`, `value`); its index. */
  keep(): number {
    this.pendingValues.push(this.seconds, this.value);
    return this.pending.push(this.labels!) - 1;
  }

  /** Sets `labels`, `seconds` and `value` to those of kept item `j`; -1: forgets every kept item. */
  take(j: number): void {
    if (j < 0) {
      this.pending.length = 0;
      this.pendingValues.length = 0;
      return;
    }
    this.labels = this.pending[j]!;
    this.seconds = this.pendingValues[2 * j]!;
    this.value = this.pendingValues[2 * j + 1]!;
  }

  /**
   * Reads item `index` (of `data.result`) at `start..end` of `chunk` whose first nested value is
   * at `open..close`; false when it is not in the compact form (the caller parses it whole).
   */
  read(chunk: Uint8Array, index: number, start: number, end: number, open: number, close: number): boolean {
    if (open !== start + METRIC_KEY_LENGTH || chunk[open] !== 0x7b) return false;
    if (!at(chunk, start, METRIC_PREFIX)) return false;
    if (this.tail(chunk, close, end) !== end) return false;
    const labels = this.labelsOf(this.view(chunk), index, open, close);
    if (labels === null) return false;
    this.labels = labels;
    return true;
  }

  /**
   * Reads the rest of an item in the compact form after its `metric` object, which ends at
   * `close` of `chunk`: `,"value":[<seconds>,"<value>"]}` (no blank, no escape, ASCII), within
   * `chunk[..limit]`. Sets `seconds` and `value`; returns the index just after the item's closing
   * brace, or -1 when the bytes are not that form or run past `limit` (they are left as they are).
   */
  tail(chunk: Uint8Array, close: number, limit: number): number {
    const v = close + VALUE_PREFIX.length;
    if (v > limit || !at(chunk, close, VALUE_PREFIX)) return -1;
    const comma = chunk.indexOf(0x2c, v);
    if (comma < 0 || comma >= limit || chunk[comma + 1] !== QUOTE) return -1;
    let seconds = decimalAt(chunk, v, comma, true);
    if (seconds === undefined) {
      const number = this.view(chunk).toString('latin1', v, comma);
      if (!JSON_NUMBER.test(number)) return -1;
      seconds = Number(number);
    }
    let q = comma + 2;
    for (let c = chunk[q]!; c !== QUOTE; c = chunk[++q]!)
      if (q >= limit || c === BACKSLASH || c < 0x20 || c > 0x7e) return -1;
    if (q + 3 > limit || chunk[q + 1] !== 0x5d || chunk[q + 2] !== 0x7d) return -1;
    this.seconds = seconds;
    this.value =
      decimalAt(chunk, comma + 2, q, false) ??
      parseSampleValue(this.view(chunk).toString('latin1', comma + 2, q));
    return q + 3;
  }

  /**
   * Where the `metric` object of item `index` ends (just after it) when the item at `start` of
   * `chunk` begins as the last answer's item `index` did (`{"metric":` and the same bytes of the
   * object, all in this chunk), with `labels` set to its label set; -1 otherwise.
   */
  skip(chunk: Uint8Array, start: number, index: number): number {
    const here = this.memo.last[index];
    if (here === undefined) return -1;
    const open = start + METRIC_KEY_LENGTH;
    const close = open + here.text.length;
    if (close > chunk.length || !at(chunk, start, METRIC_PREFIX)) return -1;
    // The bytes as Latin-1 text against the kept text: one native copy and one memory compare
    // cost less than comparing byte by byte in JavaScript (a short-lived string per item).
    if (this.view(chunk).toString('latin1', open, close) !== here.text) return -1;
    this.seen[index] = here;
    this.labels = here.labels;
    return close;
  }

  /** `chunk` as a Buffer, made once a chunk. */
  private view(chunk: Uint8Array): Buffer {
    if (this.viewOf !== chunk) [this.viewOf, this.viewBuf] = [chunk, bufferOf(chunk)];
    return this.viewBuf!;
  }

  /** The answer ended whole: its label sets are the memo's now, unless a later read started. */
  finish(): void {
    if (this.ticket === this.memo.started) this.memo.last = this.seen;
  }

  /**
   * `labels` with the join key of an equal set parsed before it in this answer (the other half of
   * its series): the builder joins the halves in a `Map` by that key, and a key that is the very
   * string it was stored under is found by identity, where an equal copy built apart (a rope of
   * ~15 pieces) is compared character by character, every pass, once the memo keeps both.
   */
  private interned(labels: SeriesLabels): SeriesLabels {
    if (labels.key === '') return labels;
    const key = this.keys.get(labels.key);
    if (key === undefined) this.keys.set(labels.key, labels.key);
    else labels.key = key;
    return labels;
  }

  /** The labels of the `metric` object at `open..close`: the memo's, or parsed (null: not an object). */
  private labelsOf(buf: Buffer, index: number, open: number, close: number): SeriesLabels | null {
    const skipped = this.seen[index];
    if (skipped !== undefined) return skipped.labels;
    const last = this.memo.last;
    const text = buf.toString('latin1', open, close);
    const here = last[index];
    let kept = here?.text === text ? here : undefined;
    // An item out of its place: a few (the last answer parsed an item cut by a chunk's end whole,
    // so it kept none at that place) are parsed; past that (series came or went before them), the
    // last answer's sets are looked up by their bytes.
    if (kept === undefined && ++this.misses > LOOKUPS_AFTER) {
      // Latin-1 maps each byte to one character: equal keys are equal bytes.
      this.byText ??= new Map(last.filter(Boolean).map((k) => [k.text, k]));
      kept = this.byText.get(text);
    }
    if (kept === undefined) {
      let metric: unknown;
      try {
        metric = JSON.parse(this.text.decode(buf.subarray(open, close)));
      } catch {
        return null;
      }
      if (!isObject(metric)) return null;
      kept = { text, labels: this.interned(seriesLabelsOf(metric as Record<string, string>)) };
    }
    this.seen[index] = kept;
    return kept.labels;
  }
}
