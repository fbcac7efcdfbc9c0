/**
 * How much of one answer gpuops reads before it gives up: bytes of the body and items of
 * `data.result` (series, one per GPU and half of the utilisation query). A scoped answer at
 * 10,000 GPU nodes is about 10 MB and 320,000 items at most (8 GPUs a node, 4 halves), so the
 * defaults leave room for that fleet while keeping one pass's memory bounded: a store that answers
 * without end (a misconfigured proxy, an unscoped selector on a huge store) is "no data", never
 * the controller killed for memory.
 */
export interface AnswerLimits {
  /** Bytes of the body (default 128 MiB). */
  maxBytes: number;
  /** Items of `data.result` (default 500,000). */
  maxSeries: number;
}

/** {@link AnswerLimits} when none are given. */
export const DEFAULT_ANSWER_LIMITS: AnswerLimits = { maxBytes: 128 * 2 ** 20, maxSeries: 500_000 };

/** An answer past its {@link AnswerLimits}: what was over, the limit, and how far reading got. */
export class AnswerTooLargeError extends Error {
  constructor(
    readonly source: string,
    readonly what: 'bytes' | 'series',
    readonly limit: number,
  ) {
    super(
      what === 'bytes'
        ? `${source}: the answer is larger than ${limit} bytes; reading stopped there (narrow the selector, or raise the limit)`
        : `${source}: the answer has more than ${limit} series; reading stopped there (narrow the selector, or raise the limit)`,
    );
    this.name = 'AnswerTooLargeError';
  }
}
