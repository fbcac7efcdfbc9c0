/**
 * The pass's utilisation read, started beside the specs read. The query is built from the policy
 * and the algorithms' namespaces, which the specs give, so today's read could start only once the
 * specs are in (40–70 ms at 2,000 GPU nodes). A pass over an unchanged repo asks exactly what the
 * last pass asked: so the last pass's requests are sent again at the pass's start
 * ({@link startEarlyReading}), and once the specs are in their answer is used only when the
 * requests the specs give are the same, text for text, to the same source ({@link passReading});
 * otherwise it is dropped (not cancelled: it is received and decoded, and its label sets never
 * replace the used read's, `LabelSetMemo`) and the specs' requests are read, as without it.
 */
import type { Policy, ResolvedAlgorithm } from '../definitions/index.js';
import type { UtilizationReading, UtilizationSource } from '../metrics/index.js';
import type { ReconcilerMemory } from '../plan/index.js';
import { readUtilization } from './stored-inputs.js';

/** A utilisation read started before the specs were in: what it asked, and its answer. */
export interface EarlyReading {
  /** {@link utilizationRequests} of the read. */
  requests: string;
  /** Its answer; a rejection is handled (never unhandled), and read again when it would be used. */
  reading: Promise<UtilizationReading>;
}

/**
 * Every request `readUtilization(source, policy, algorithms)` makes of `source`, in order, and the
 * `signals` it answers, as one JSON text: `[[["read", UtilizationQuery], ["readServiceMetric",
 * ServiceMetricQuery], …], {signalKey: UtilizationReading}]`. It is found by running
 * `readUtilization` on a stand-in of the source that records each call and answers "no data" at
 * once (no request is sent), so it is what the read asks by construction. The stand-in's
 * `signals` hold the keys the read answers and, for a signal answered without a request (a
 * service metric on a source without `readServiceMetric`), that answer: a renamed one differs.
 * A source builds its request from the query and its own settings, fixed when it is made (the
 * PromQL text of `PrometheusSource`: metric, window, history, namespaces, job matchers, selector):
 * the same source given the same text sends the same request.
 */
export async function utilizationRequests(
  source: UtilizationSource,
  policy: Policy,
  algorithms: readonly ResolvedAlgorithm[],
): Promise<string> {
  const asked: unknown[] = [];
  const none: UtilizationReading = { ok: false, reason: 'Empty', message: 'not read' };
  const recorder: UtilizationSource = {
    name: source.name,
    read: (query) => {
      asked.push(['read', query]);
      return Promise.resolve(none);
    },
    // Only when the source has it: without it, a service metric is "no data" without a request.
    ...(source.readServiceMetric
      ? {
          readServiceMetric: (query) => {
            asked.push(['readServiceMetric', query]);
            return Promise.resolve(none);
          },
        }
      : {}),
  };
  // What the read answers without asking (a service metric the source cannot read, a signal with
  // no definition: `readOtherSignals`) is part of the key too, so a rename there reads again.
  const answered = await readUtilization(recorder, policy, algorithms);
  return JSON.stringify([asked, answered.signals ?? {}]);
}

/**
 * Sends again the requests of the last pass's utilisation read (`memory.utilization`), when there
 * was one on this same source (the same object); null otherwise (the first pass, no source, a
 * source replaced). Sent at once: the first request is on its way when this returns.
 */
export function startEarlyReading(
  source: UtilizationSource | null,
  memory: Pick<ReconcilerMemory, 'utilization'>,
): EarlyReading | null {
  const last = memory.utilization;
  if (!source || !last || last.source !== source) return null;
  const reading = readUtilization(source, last.policy, last.algorithms);
  reading.catch(() => undefined); // awaited only when used: a dropped read that fails is not unhandled
  return { requests: last.requests, reading };
}

/**
 * The pass's utilisation reading for the specs it read: `early`'s answer when its requests are
 * exactly those of `readUtilization(source, policy, algorithms)` (then no second request is
 * sent), else that read, started now, as a pass without `early` reads. An early read that failed
 * (rejected: a source is not meant to throw) is read again, so its failure is the fresh read's.
 * Remembers these requests in `memory.utilization` for the next pass's early read.
 */
export async function passReading(
  source: UtilizationSource | null,
  policy: Policy,
  algorithms: readonly ResolvedAlgorithm[],
  memory: Pick<ReconcilerMemory, 'utilization'>,
  early: EarlyReading | null,
): Promise<UtilizationReading> {
  if (!source) return readUtilization(null, policy, algorithms);
  const requests = await utilizationRequests(source, policy, algorithms);
  memory.utilization = { source, policy, algorithms, requests };
  if (early && early.requests === requests) {
    return early.reading.catch(() => readUtilization(source, policy, algorithms));
  }
  return readUtilization(source, policy, algorithms);
}
