import {
  answerBuilder,
  isObject,
  noticesOf,
  type QueryAnswer,
  type QueryResultOptions,
} from './answer-builder.js';
import { MetricsParseError } from './dcgm-text.js';
import type { GpuSeries } from './types.js';

export type { QueryAnswer, QueryResultOptions } from './answer-builder.js';

/** Parses an answer into series; see {@link parseQueryAnswer}. */
export function parseQueryResult(body: unknown, options: QueryResultOptions): GpuSeries[] {
  return parseQueryAnswer(body, options).series;
}

/**
 * Parses a Prometheus `/api/v1/query` or `/api/v1/query_range` answer
 * (https://prometheus.io/docs/prometheus/latest/querying/api/), already parsed as JSON, into
 * per-GPU series (a response body is decoded as it arrives by `QueryAnswerDecoder`, item by item
 * through the same `answerBuilder`, so both give the same series):
 *
 * - `resultType: "vector"` (`{"metric":{…},"value":[<seconds>,"<value>"]}`): the answer of
 *   `utilizationQuery` (`gpuops_stat` = `avg` | `last` | `max` | `first`, joined per series:
 *   value from `avg`, timestamp from `last` — with no `last` the newest sample is older than the
 *   lookback —, window from `max` and `first`), or a plain vector such as a saved
 *   `avg_over_time(...)` result (timestamp = evaluation time, no window: one instant);
 * - `resultType: "matrix"` (`{"metric":{…},"values":[[<seconds>,"<value>"],…]}`, a `query_range`
 *   answer or an instant range selector): evaluated at its newest point; each series' value is
 *   the mean of its points in the last `windowSeconds`, its timestamp its newest point, and its
 *   window the highest point of the last `historySeconds` and its oldest point.
 *
 * The answer's `warnings` and `infos` (a partial answer says so there) come with the series
 * (`noticesOf`). Values `"NaN"`, `"+Inf"` and `"-Inf"` are kept as numbers (attribution drops such a sample with
 * a reason: a gap, never the whole answer).
 *
 * @throws MetricsParseError when the document is not a successful vector or matrix answer.
 */
export function parseQueryAnswer(body: unknown, options: QueryResultOptions): QueryAnswer {
  const fail = (message: string): never => {
    throw new MetricsParseError(options.source, null, message);
  };
  if (!isObject(body)) return fail('not a JSON object');
  if (body.status !== 'success') return fail(statusMessage(body.status, body.error));
  const data = body.data;
  if (
    !isObject(data) ||
    (data.resultType !== 'vector' && data.resultType !== 'matrix') ||
    !Array.isArray(data.result)
  ) {
    return fail(RESULT_TYPE_MESSAGE);
  }
  const builder = answerBuilder(data.resultType, options, fail);
  const items = data.result as unknown[];
  for (let i = 0; i < items.length; i++) builder.add(items[i], i);
  return { ...builder.finish(), ...noticesOf(body) };
}

/** The message of an answer whose `data` is not a vector or matrix result. */
export const RESULT_TYPE_MESSAGE = 'data.resultType must be "vector" or "matrix" with a result array';

/** The message of an answer whose `status` is not `success` (Prometheus: `error`, with `error`). */
export function statusMessage(status: unknown, error: unknown): string {
  return `status is ${JSON.stringify(status)}: ${String(error ?? 'no error text')}`;
}
