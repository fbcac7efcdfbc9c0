/**
 * Reads an algorithm's scaling signal for its benchmark pod from the metrics source the scaler
 * uses, so the band a spec may have proposed from it (`signal-at-load.ts`) is in the very unit and
 * reading the scaler judges. The query is scoped as the scaler's is (the algorithm's namespace;
 * a service metric's template for that namespace), and the answer is narrowed to the one pod.
 */
import type { ResolvedAlgorithm } from '../definitions/index.js';
import { GPU_MEMORY_METRIC, gpuMemorySeries } from '../metrics/index.js';
import type { GpuSeries, UtilizationReading, UtilizationSource } from '../metrics/index.js';
import { workloadPod, signalOf } from '../scaling/index.js';
import { DCGM } from '../util/index.js';

/** One pod's value of the signal (in its unit), or why there is none. */
export type PodSignal =
  | { signal: string; unit: string; value: number; reason: null }
  | { signal: string; unit: string; value: null; reason: string };

/** Reads the signal of `alg` for pod `pod` of its namespace. Never throws. */
export type BenchmarkSignalReader = (alg: ResolvedAlgorithm, pod: string) => Promise<PodSignal>;

/** The signal key a sample records: the signal's kind, `serviceMetric:<name>` for a service metric. */
export function sampleSignalKey(alg: Pick<ResolvedAlgorithm, 'signal'>): string {
  const s = signalOf(alg);
  return s.kind === 'serviceMetric' ? `serviceMetric:${s.serviceMetric?.name ?? ''}` : s.kind;
}

/**
 * The value of one pod in a reading (pure): the mean of its GPUs' series for a GPU signal
 * (`ratio`: a 0..1 field such as `DCGM_FI_PROF_GR_ENGINE_ACTIVE`, read as percent, as the scaler
 * reads it), the one series of a service metric. No series for the pod, several series of a
 * service metric, or a value that is not a finite number ≥ 0 is no value, with the reason.
 */
export function podValue(
  reading: UtilizationReading,
  namespace: string,
  pod: string,
  o: { metric: string; service: boolean; ratio: boolean },
): { value: number; reason: null } | { value: null; reason: string } {
  if (!reading.ok) return { value: null, reason: `${reading.reason}: ${reading.message}` };
  const mine = reading.series.filter((s: GpuSeries) => {
    if (s.metric !== o.metric) return false;
    const w = workloadPod(s.labels);
    return w.namespace === namespace && w.pod === pod;
  });
  if (mine.length === 0) return { value: null, reason: `no series for pod ${namespace}/${pod}` };
  if (o.service && mine.length > 1)
    return { value: null, reason: `SeveralSeries: ${mine.length} series for pod ${namespace}/${pod}` };
  const bad = mine.find((s) => !(Number.isFinite(s.value) && s.value >= 0));
  if (bad)
    return { value: null, reason: `value ${bad.value} for pod ${namespace}/${pod} is not a number ≥ 0` };
  const mean = mine.reduce((sum, s) => sum + s.value, 0) / mine.length;
  return { value: o.ratio ? mean * 100 : mean, reason: null };
}

/**
 * A reader over `source` with the policy's averaging window (`scaling.windowSeconds`). A source
 * that cannot run PromQL has no service metric: no value, saying so.
 */
export function benchmarkSignalReader(
  source: UtilizationSource,
  windowSeconds: number,
): BenchmarkSignalReader {
  return async (alg, pod) => {
    const signal = signalOf(alg);
    const key = sampleSignalKey(alg);
    const base = { windowSeconds, namespaces: [alg.namespace] };
    const answer = (v: ReturnType<typeof podValue>): PodSignal => ({ signal: key, unit: signal.unit, ...v });
    try {
      if (signal.kind === 'serviceMetric') {
        const m = signal.serviceMetric;
        if (!m || !source.readServiceMetric)
          return answer({
            value: null,
            reason: `${source.name} cannot read a service metric (it needs --prometheus-url)`,
          });
        const q = { name: m.name, template: m.query, namespace: alg.namespace, windowSeconds };
        return answer(
          podValue(await source.readServiceMetric(q), alg.namespace, pod, {
            metric: m.name,
            service: true,
            ratio: false,
          }),
        );
      }
      if (signal.kind === 'gpuMemory') {
        const [used, free] = await Promise.all([
          source.read({ ...base, metric: DCGM.FB_USED }),
          source.read({ ...base, metric: DCGM.FB_FREE }),
        ]);
        const reading: UtilizationReading =
          used.ok && free.ok
            ? { ok: true, series: gpuMemorySeries(used.series, free.series), errors: [] }
            : !used.ok
              ? used
              : free;
        return answer(
          podValue(reading, alg.namespace, pod, { metric: GPU_MEMORY_METRIC, service: false, ratio: false }),
        );
      }
      const metric = signal.kind === 'gpuEngineActive' ? DCGM.GR_ENGINE_ACTIVE : DCGM.GPU_UTIL;
      const ratio = signal.kind === 'gpuEngineActive';
      return answer(
        podValue(await source.read({ ...base, metric }), alg.namespace, pod, {
          metric,
          service: false,
          ratio,
        }),
      );
    } catch (err) {
      return answer({
        value: null,
        reason: `${source.name}: ${err instanceof Error ? err.message : String(err)}`,
      });
    }
  };
}
