/**
 * Which reading an algorithm's signal is judged on (pure). The pass reads the policy's metric once
 * for every GPU (the "main" reading) and each other signal its algorithms scale on once more; the
 * others ride along in `reading.signals`, keyed by {@link signalKey}.
 */
import type { UtilizationReading } from '../metrics/index.js';
import type { Policy, ResolvedAlgorithm, ResolvedSignal } from '../definitions/index.js';
import { DCGM } from '../util/index.js';

/** The signal of an algorithm whose spec names none and was resolved before signals existed. */
const GPU_UTIL: ResolvedSignal = { kind: 'gpuUtil', unit: '%' };

/** The algorithm's resolved signal (`gpuUtil` when absent). */
export function signalOf(a: Pick<ResolvedAlgorithm, 'signal'>): ResolvedSignal {
  return a.signal ?? GPU_UTIL;
}

/**
 * A reading as a decision records and shows it: one decimal for the GPU signals (percent), as
 * always. A service metric's unit may make every value small (requests per second per replica:
 * 0.01–0.2), where one decimal is no precision at all: the recorded reading is what the
 * stabilisation window re-derives its recommendations from (`recommendationOf`), and 0.18 recorded
 * as 0.2 would size on 11 % more load than was read. So a service metric below 10 keeps three
 * significant digits (from 10 on, one decimal is as many or more).
 */
export function roundReading(x: number, signal: ResolvedSignal): number {
  if (signal.kind !== 'serviceMetric' || Math.abs(x) >= 10) return Math.round(x * 10) / 10;
  return Number(x.toPrecision(3));
}

/** The key of the pass's main reading: the signal of the policy's `scaling.metric`. */
export function mainSignalKey(policy: Policy): string {
  return policy.spec.scaling.metric === DCGM.GR_ENGINE_ACTIVE ? 'gpuEngineActive' : 'gpuUtil';
}

/**
 * The key of the reading an algorithm is judged on: the signal's kind for the GPU signals (one
 * query for every GPU), `serviceMetric:<name>:<namespace>` for a service metric (its template is
 * read for one namespace).
 */
export function signalKey(a: Pick<ResolvedAlgorithm, 'signal' | 'namespace'>): string {
  const s = signalOf(a);
  return s.kind === 'serviceMetric' ? `serviceMetric:${s.serviceMetric?.name ?? ''}:${a.namespace}` : s.kind;
}

/**
 * The reading an algorithm is judged on: the main reading when its key is the policy's, else the
 * one the pass read for its key; a key the pass did not read is "no data" naming it (never 0 %).
 */
export function readingFor(
  a: Pick<ResolvedAlgorithm, 'signal' | 'namespace'>,
  reading: UtilizationReading,
  policy: Policy,
): UtilizationReading {
  const key = signalKey(a);
  if (key === mainSignalKey(policy)) return reading;
  return (
    reading.signals?.[key] ?? {
      ok: false,
      reason: 'Empty',
      message: `signal ${key} was not read in this pass`,
    }
  );
}
