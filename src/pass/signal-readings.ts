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
import { mainSignalKey, signalKey, signalOf, type Watchlist } from '../scaling/index.js';
import { DCGM } from '../util/index.js';

/**
 * The other signals' readings by key (empty when every algorithm scales on the policy's metric).
 * A source that cannot run a service metric's PromQL gives "no data" saying so.
 */
export async function readOtherSignals(
  source: UtilizationSource,
  policy: Policy,
  algorithms: readonly Pick<ResolvedAlgorithm, 'signal' | 'namespace'>[],
  base: Omit<UtilizationQuery, 'metric' | 'namespaces'>,
): Promise<Record<string, UtilizationReading>> {
  const main = mainSignalKey(policy);
  const byKey = new Map<string, Pick<ResolvedAlgorithm, 'signal' | 'namespace'>[]>();
  for (const a of algorithms) {
    const key = signalKey(a);
    if (key !== main) byKey.set(key, [...(byKey.get(key) ?? []), a]);
  }
  const namespaces = (list: readonly Pick<ResolvedAlgorithm, 'namespace'>[]) =>
    [...new Set(list.map((a) => a.namespace))].sort();
  const dcgm = (metric: DcgmMetric, list: readonly Pick<ResolvedAlgorithm, 'namespace'>[]) =>
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

/**
 * One reading of the crossing trigger (`controller/crossing-trigger.ts`): the signals the watched
 * algorithms scale on, each read as the pass reads it with the pass's window and no history — the
 * policy's metric once for the algorithms that scale on it (their namespaces; no query when none
 * does), each other signal once (`readOtherSignals`, attached as `signals`).
 */
export async function readWatchSignals(
  source: UtilizationSource,
  watch: Watchlist,
): Promise<UtilizationReading> {
  const policy = watch.judge.policy;
  const main = mainSignalKey(policy);
  const onMain = watch.algorithms.filter((a) => signalKey(a) === main);
  const base = { windowSeconds: watch.windowSeconds };
  const [reading, signals] = await Promise.all([
    onMain.length > 0
      ? source.read({
          ...base,
          metric: watch.metric,
          namespaces: [...new Set(onMain.map((a) => a.namespace))].sort(),
        })
      : Promise.resolve<UtilizationReading>({ ok: true, series: [], errors: [] }),
    readOtherSignals(source, policy, watch.algorithms, base),
  ]);
  return Object.keys(signals).length > 0 ? { ...reading, signals } : reading;
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
