/**
 * The readings of the signals a pass's algorithms scale on besides the policy's metric
 * (`gpuEngineActive`, `gpuMemory`, each service metric per namespace): one query each, in
 * parallel, attached to the main reading as `signals` (`src/scaling/signal-reading.ts`).
 */
import { gpuMemorySeries } from '../metrics/index.js';
import type {
  DcgmMetric,
  UtilizationQuery,
  UtilizationReading,
  UtilizationSource,
} from '../metrics/index.js';
import type { ResolvedAlgorithm, Policy } from '../definitions/index.js';
import { mainSignalKey, signalKey, signalOf } from '../scaling/index.js';
import { DCGM } from '../util/index.js';

/**
 * The other signals' readings by key (empty when every algorithm scales on the policy's metric).
 * A source that cannot run a service metric's PromQL gives "no data" saying so.
 */
export async function readOtherSignals(
  source: UtilizationSource,
  policy: Policy,
  algorithms: readonly ResolvedAlgorithm[],
  base: Omit<UtilizationQuery, 'metric' | 'namespaces'>,
): Promise<Record<string, UtilizationReading>> {
  const main = mainSignalKey(policy);
  const byKey = new Map<string, ResolvedAlgorithm[]>();
  for (const a of algorithms) {
    const key = signalKey(a);
    if (key !== main) byKey.set(key, [...(byKey.get(key) ?? []), a]);
  }
  const namespaces = (list: readonly ResolvedAlgorithm[]) =>
    [...new Set(list.map((a) => a.namespace))].sort();
  const dcgm = (metric: DcgmMetric, list: readonly ResolvedAlgorithm[]) =>
    source.read({ ...base, metric, namespaces: namespaces(list) });
  const entries = await Promise.all(
    [...byKey].map(async ([key, list]): Promise<[string, UtilizationReading]> => {
      const signal = signalOf(list[0]!);
      if (signal.kind === 'gpuUtil') return [key, await dcgm(DCGM.GPU_UTIL, list)];
      if (signal.kind === 'gpuEngineActive') return [key, await dcgm(DCGM.GR_ENGINE_ACTIVE, list)];
      if (signal.kind === 'gpuMemory') {
        const [used, free] = await Promise.all([dcgm(DCGM.FB_USED, list), dcgm(DCGM.FB_FREE, list)]);
        return [key, memoryReading(used, free)];
      }
      if (signal.kind === 'serviceMetric' && signal.serviceMetric && source.readServiceMetric) {
        const m = signal.serviceMetric;
        const q = {
          name: m.name,
          template: m.query,
          namespace: list[0]!.namespace,
          windowSeconds: base.windowSeconds,
        };
        return [key, await source.readServiceMetric(q)];
      }
      return [
        key,
        {
          ok: false,
          reason: 'Empty',
          message: `${source.name} cannot read a service metric (it needs --prometheus-url)`,
        },
      ];
    }),
  );
  return Object.fromEntries(entries);
}

/** The `gpuMemory` reading of the two framebuffer readings: no data when either has none. */
function memoryReading(used: UtilizationReading, free: UtilizationReading): UtilizationReading {
  if (!used.ok) return used;
  if (!free.ok) return free;
  const series = gpuMemorySeries(used.series, free.series);
  if (series.length === 0) {
    return {
      ok: false,
      reason: 'Empty',
      message: `no GPU has both ${DCGM.FB_USED} and ${DCGM.FB_FREE}`,
    };
  }
  const warnings = [...(used.warnings ?? []), ...(free.warnings ?? [])];
  const evaluatedAt = Math.min(used.evaluatedAt ?? Infinity, free.evaluatedAt ?? Infinity);
  return {
    ok: true,
    series,
    errors: [...used.errors, ...free.errors],
    ...(Number.isFinite(evaluatedAt) ? { evaluatedAt } : {}),
    ...(warnings.length ? { warnings } : {}),
  };
}
