/**
 * Decodes a Prometheus query answer as its bytes arrive: the envelope
 * (`{"status":…,"data":{"resultType":…,"result":[…]}}`, any key order, `warnings`/`infos`
 * beside) is walked byte by byte, and each item of `data.result` is handed to `JSON.parse` and
 * then to the same {@link answerBuilder} `parseQueryAnswer` uses as soon as it is complete. So the
 * answer's text (10 MB at 10,000 GPU nodes) and a JSON tree of all of it never exist: what is held
 * is one chunk, the item that straddles it, and the series built so far. UTF-8 is never decoded
 * outside a complete item or key (no byte of a multi-byte character is an ASCII delimiter).
 * With the label sets of the last answer of the same query (`LabelSetMemo`, `answer-item.ts`), an
 * item whose `metric` object is the bytes the last answer's item at its place had is not walked
 * through nor parsed there: only its values are read.
 */
import { Buffer } from 'node:buffer';
import {
  answerBuilder,
  noticesOf,
  type AnswerBuilder,
  type QueryAnswer,
  type QueryResultOptions,
} from './answer-builder.js';
import { LabelSetReader, METRIC_KEY_LENGTH, type LabelSetMemo } from './answer-item.js';
import { AnswerTooLargeError, DEFAULT_ANSWER_LIMITS, type AnswerLimits } from './answer-limits.js';
import { MetricsParseError } from './dcgm-text.js';
import { RESULT_TYPE_MESSAGE, statusMessage } from './query-result.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/** A batch item's `open` when it was read as it was walked; its `close` is then its `keep` index. */
const READ = -2;

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** Where the envelope walk stands: the top object, `data`, `data.result`. */
interface Frame {
  name: 'top' | 'data' | 'result';
  /** first: after the opening bracket; key/value: after a comma or colon; colon; next: after a value. */
  state: 'first' | 'key' | 'colon' | 'value' | 'next';
  key: string;
}

/** A key, a value not walked into, or an item, being read to its end. */
interface Capture {
  what: 'key' | 'value' | 'item';
  type: 'string' | 'nested' | 'scalar';
  /** Index in the current chunk where it starts (0 when it began in an earlier chunk). */
  start: number;
  /** Its bytes from earlier chunks. */
  parts: Uint8Array[];
  depth: number;
  inString: boolean;
  escape: boolean;
  /** An item's first nested value: where it opens and just after it closes (-1: not yet). */
  open: number;
  close: number;
}

/**
 * One answer's decoder: `write` each chunk of the body, then `end`. The series are those of
 * `parseQueryAnswer(JSON.parse(body))` for every body, in the same order.
 * @throws MetricsParseError (from `write` or `end`) naming the source: not a JSON object, JSON that
 *   is not well formed (with the byte offset), a body that ends before the answer does
 *   ("truncated"), an answer whose `status` is not `success` (with `errorType` and `error`), a
 *   `data` that is not a vector or matrix result, an item of the wrong shape
 */
export class QueryAnswerDecoder {
  private readonly text = new TextDecoder();
  private readonly frames: Frame[] = [];
  private cap: Capture | null = null;
  /** The last capture completed, made again by the next `begin` (one per answer, not one per item). */
  private spare: Capture | null = null;
  private started = false;
  private closed = false;
  /** Bytes before the current chunk. */
  private offset = 0;
  private readonly top: Record<string, unknown> = {};
  private readonly data: Record<string, unknown> = {};
  private dataIsObject = false;
  private resultIsArray = false;
  private builder: AnswerBuilder | null = null;
  /** Items read before `resultType` (an answer that names it after `result`). */
  private early: unknown[] | null = [];
  private items = 0;
  /**
   * Items complete in the current chunk, read at its end: start and end indexes, and those of
   * each one's first nested value (`Capture.open`, `close`), or `READ` and its `keep` index.
   */
  private batch: number[] = [];
  private readonly reader: LabelSetReader | null;

  /** `memo`: the label sets of the same query's last answer (`answer-item.ts`); same series without. */
  constructor(
    private readonly options: QueryResultOptions,
    private readonly maxSeries = DEFAULT_ANSWER_LIMITS.maxSeries,
    memo?: LabelSetMemo,
  ) {
    this.reader = memo ? new LabelSetReader(memo) : null;
  }

  private fail(message: string): never {
    throw new MetricsParseError(this.options.source, null, message);
  }

  /** Reads one chunk of the body. */
  write(chunk: Uint8Array): void {
    // A byte-order mark before the answer is skipped, as `Response.text()` skips it.
    let i = this.offset === 0 && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf ? 3 : 0;
    for (;;) {
      // A capture is scanned even at the chunk's end, so that the bytes it began with are kept.
      if (this.cap) {
        const end = this.scan(chunk, i);
        if (end < 0) {
          this.cap.parts.push(chunk.slice(this.cap.start));
          this.cap.start = 0;
          break;
        }
        this.complete(chunk, end);
        i = end;
        continue;
      }
      if (i >= chunk.length) break;
      const c = chunk[i]!;
      if (isSpace(c)) i++;
      else i = this.envelope(chunk, i, c);
    }
    this.flushBatch(chunk);
    this.offset += chunk.length;
  }

  /** The answer, once the body has ended. */
  end(): QueryAnswer {
    if (!this.started) this.fail('not a JSON object (the answer is empty)');
    if (!this.closed) {
      const inner = this.frames[this.frames.length - 1];
      const where =
        inner?.name === 'result'
          ? `data.result[${this.items}]`
          : inner?.name === 'data'
            ? 'data'
            : 'the answer object';
      this.fail(`the answer is truncated: it ends after ${this.offset} bytes, inside ${where}`);
    }
    if (this.top.status !== 'success') {
      const type = typeof this.top.errorType === 'string' ? ` (${this.top.errorType})` : '';
      this.fail(statusMessage(this.top.status, this.top.error) + type);
    }
    if (!this.dataIsObject || !this.resultIsArray || this.builder === null) this.fail(RESULT_TYPE_MESSAGE);
    this.reader?.finish();
    return { ...this.builder.finish(), ...noticesOf(this.top) };
  }

  /** One byte of the envelope outside any capture; returns where to go on. */
  private envelope(chunk: Uint8Array, i: number, c: number): number {
    const at = () => `byte ${this.offset + i}`;
    if (!this.started) {
      if (c !== OPEN_OBJECT) this.fail('not a JSON object');
      this.started = true;
      this.frames.push({ name: 'top', state: 'first', key: '' });
      return i + 1;
    }
    const f = this.frames[this.frames.length - 1];
    if (!f) this.fail(`not JSON: text after the answer at ${at()}`);
    const closer = f.name === 'result' ? CLOSE_ARRAY : CLOSE_OBJECT;
    if (c === closer && (f.state === 'first' || f.state === 'next')) {
      this.frames.pop();
      if (this.frames.length === 0) this.closed = true;
      else this.frames[this.frames.length - 1]!.state = 'next';
      return i + 1;
    }
    if (f.state === 'next') {
      if (c !== COMMA) this.fail(`not JSON: expected "," at ${at()}`);
      f.state = f.name === 'result' ? 'value' : 'key';
      return i + 1;
    }
    if (f.name !== 'result' && (f.state === 'first' || f.state === 'key')) {
      if (c !== QUOTE) this.fail(`not JSON: expected a key at ${at()}`);
      this.begin('key', 'string', i);
      return i + 1;
    }
    if (f.state === 'colon') {
      if (c !== COLON) this.fail(`not JSON: expected ":" at ${at()}`);
      f.state = 'value';
      return i + 1;
    }
    // A value: walked into (`data`, `data.result`) or read whole.
    if (f.name === 'top' && f.key === 'data' && c === OPEN_OBJECT) {
      this.dataIsObject = true;
      this.frames.push({ name: 'data', state: 'first', key: '' });
      return i + 1;
    }
    if (f.name === 'data' && f.key === 'result' && c === OPEN_ARRAY) {
      this.resultIsArray = true;
      this.frames.push({ name: 'result', state: 'first', key: '' });
      return i + 1;
    }
    if (c === CLOSE_ARRAY || c === CLOSE_OBJECT || c === COMMA || c === COLON)
      this.fail(`not JSON: expected a value at ${at()}`);
    if (f.name === 'result' && c === OPEN_OBJECT && this.reader) return this.skipMetric(chunk, i, f);
    const type = c === QUOTE ? 'string' : c === OPEN_OBJECT || c === OPEN_ARRAY ? 'nested' : 'scalar';
    this.begin(f.name === 'result' ? 'item' : 'value', type, i);
    return type === 'scalar' ? i : i + 1;
  }

  /**
   * An item (an object) of `data.result` at `i`. With the `metric` object the last answer's item
   * at its place had and the compact form's rest, all in this chunk, it is read here and left in
   * the batch as read; with only that `metric` object, the walk goes on after it (the capture at
   * depth 1, outside any string); else from its first byte.
   */
  private skipMetric(chunk: Uint8Array, i: number, f: Frame): number {
    this.begin('item', 'nested', i);
    const reader = this.reader!;
    const close = reader.skip(chunk, i, this.items + this.batch.length / 4);
    if (close < 0) return i + 1;
    const end = this.builder?.addSample ? reader.tail(chunk, close, chunk.length) : -1;
    const cap = this.cap!;
    if (end < 0) {
      cap.open = i + METRIC_KEY_LENGTH;
      cap.close = close;
      return close;
    }
    this.cap = null;
    this.spare = cap;
    f.state = 'next';
    this.batch.push(i, end, READ, reader.keep());
    return end;
  }

  private begin(what: Capture['what'], type: Capture['type'], start: number): void {
    const cap = this.spare ?? ({ parts: [] } as unknown as Capture);
    this.spare = null;
    if (cap.parts.length > 0) cap.parts = [];
    cap.what = what;
    cap.type = type;
    cap.start = start;
    cap.depth = 1;
    cap.inString = type === 'string';
    cap.escape = false;
    cap.open = -1;
    cap.close = -1;
    this.cap = cap;
  }

  /** Scans the capture on from `i`; the index just after its end, or -1 when the chunk ends first. */
  private scan(chunk: Uint8Array, i: number): number {
    const cap = this.cap!;
    if (cap.type === 'scalar') {
      for (; i < chunk.length; i++) {
        const c = chunk[i]!;
        if (c === COMMA || c === CLOSE_OBJECT || c === CLOSE_ARRAY || isSpace(c)) return i;
      }
      return -1;
    }
    let { depth, inString, escape } = cap;
    for (; i < chunk.length; i++) {
      const c = chunk[i]!;
      if (inString) {
        if (escape) escape = false;
        else if (c === BACKSLASH) escape = true;
        else if (c === QUOTE) {
          inString = false;
          if (cap.type === 'string') return i + 1;
        }
      } else if (c === QUOTE) inString = true;
      else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
        if (++depth === 2 && cap.open < 0) cap.open = i;
      } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
        if (--depth === 0) return i + 1;
        if (depth === 1 && cap.close < 0) cap.close = i + 1;
      }
    }
    Object.assign(cap, { depth, inString, escape });
    return -1;
  }

  /** A capture ended at `end` (exclusive) in `chunk`. */
  private complete(chunk: Uint8Array, end: number): void {
    const cap = this.cap!;
    this.cap = null;
    const f = this.frames[this.frames.length - 1]!;
    f.state = cap.what === 'key' ? 'colon' : 'next';
    if (cap.what === 'item' && cap.parts.length === 0) {
      this.batch.push(cap.start, end, cap.open, cap.close); // read with the chunk's other items at its end
      this.spare = cap;
      return;
    }
    const tail = chunk.subarray(cap.start, end); // no copy when the capture is in this one chunk
    const bytes = cap.parts.length === 0 ? tail : Buffer.concat([...cap.parts, tail]);
    const where = cap.what === 'item' ? `data.result[${this.items}]` : 'the answer';
    const value = this.parse(bytes, this.offset + end - bytes.length, where);
    if (cap.what === 'key') f.key = value as string;
    else if (cap.what === 'item') this.add(value);
    else if (f.name === 'top') this.top[f.key] = value;
    else {
      this.data[f.key] = value;
      if (f.key === 'resultType') this.typed(value);
    }
    this.spare = cap;
  }

  private typed(resultType: unknown): void {
    const early = this.early ?? [];
    this.early = null;
    if (resultType !== 'vector' && resultType !== 'matrix') return;
    this.builder = answerBuilder(resultType, this.options, (m) => this.fail(m));
    early.forEach((item, i) => this.builder!.add(item, i));
  }

  private add(item: unknown): void {
    if (this.items >= this.maxSeries)
      throw new AnswerTooLargeError(this.options.source, 'series', this.maxSeries);
    const index = this.items++;
    if (this.builder) this.builder.add(item, index);
    else this.early?.push(item); // null: not a vector or matrix, the items are not read
  }

  /**
   * Reads the items complete in this chunk: each in the compact form through the label sets'
   * reader (a vector, with a memo), the others in one `JSON.parse` (the bytes between them are
   * commas and blanks), in their order.
   */
  private flushBatch(chunk: Uint8Array): void {
    const b = this.batch;
    if (b.length === 0) return;
    this.batch = [];
    const reader = this.builder?.addSample ? this.reader : null;
    if (reader === null) return this.parseItems(chunk, b, 0, b.length);
    let from = 0; // the first item not read yet
    for (let k = 0; k < b.length; k += 4) {
      if (b[k + 2] === READ) reader.take(b[k + 3]!);
      else if (!reader.read(chunk, this.items, b[k]!, b[k + 1]!, b[k + 2]!, b[k + 3]!)) continue;
      this.parseItems(chunk, b, from, k);
      from = k + 4;
      if (this.items >= this.maxSeries)
        throw new AnswerTooLargeError(this.options.source, 'series', this.maxSeries);
      this.items++;
      this.builder!.addSample!(reader.labels!, reader.seconds, reader.value);
    }
    this.parseItems(chunk, b, from, b.length);
    reader.take(-1);
  }

  /** Parses the batch's items `from..to` (indexes into `b`) in one `JSON.parse`. */
  private parseItems(chunk: Uint8Array, b: number[], from: number, to: number): void {
    if (from >= to) return;
    let items: unknown[];
    try {
      items = JSON.parse(`[${this.text.decode(chunk.subarray(b[from], b[to - 3]))}]`) as unknown[];
    } catch {
      // Name the item that is not JSON.
      for (let k = from; k < to; k += 4) {
        const where = `data.result[${this.items}]`;
        this.add(this.parse(chunk.subarray(b[k], b[k + 1]), this.offset + b[k]!, where));
      }
      return;
    }
    for (const item of items) this.add(item);
  }

  /** `bytes` as JSON; `where` names them in the error (`data.result[3]`, `the answer`). */
  private parse(bytes: Uint8Array, at: number, where: string): unknown {
    try {
      return JSON.parse(this.text.decode(bytes)) as unknown;
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      return this.fail(`not JSON: ${where} at byte ${at}: ${why}`);
    }
  }
}

/**
 * Decodes a whole body from its chunks (a `fetch` response's `body`, a file stream), reading no
 * more than `limits` allow: the chunk that would pass `maxBytes` is not read, and leaving the loop
 * cancels the stream.
 * @throws MetricsParseError as {@link QueryAnswerDecoder}; AnswerTooLargeError past a limit;
 *   whatever the stream throws (an abort)
 */
export async function decodeQueryAnswer(
  chunks: AsyncIterable<Uint8Array>,
  options: QueryResultOptions,
  limits: AnswerLimits = DEFAULT_ANSWER_LIMITS,
  memo?: LabelSetMemo,
): Promise<QueryAnswer> {
  const decoder = new QueryAnswerDecoder(options, limits.maxSeries, memo);
  let bytes = 0;
  for await (const chunk of chunks) {
    bytes += chunk.length;
    if (bytes > limits.maxBytes) throw new AnswerTooLargeError(options.source, 'bytes', limits.maxBytes);
    decoder.write(chunk);
  }
  return decoder.end();
}
