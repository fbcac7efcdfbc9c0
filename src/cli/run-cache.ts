/**
 * The watch-driven cluster cache of `gpuops run` (an adapter, built here as the others are in
 * `cli/`): started before the first pass, given to the passes as their `ClusterSource`, its state
 * on `/metrics` and on the status page. One-shot commands (`plan`, `reconcile --once`) list instead.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { createClusterCache, type ClusterCache } from '../cluster/cache.js';
import { registerClusterCacheMetrics } from '../cluster/cache-metrics.js';
import { createKubeClient } from '../cluster/kube-client.js';
import { cacheSource, type ClusterSource } from '../cluster/source.js';
import { cacheHealthCauses } from '../status/cache-health.js';
import type { HealthCause } from '../status/health.js';

/** A started cache and what `gpuops run` wires to it. */
export interface RunCache {
  cache: ClusterCache;
  /** What each pass reads (`cacheSource`): memory, no request; refused while not synced. */
  clusterRead: ClusterSource;
  /** The status page's cause while the cache is not synced (none when it is). */
  healthCauses(): HealthCause[];
  stop(): Promise<void>;
}

/**
 * Starts the cache on `kc`, registers its metrics in `registry` and waits up to `syncSeconds`
 * (default 60) for its first lists, so that the first pass is not refused on a healthy cluster;
 * a cache still not synced then is logged, and passes are refused (and say why) until it is.
 */
export async function startRunCache(
  kc: KubeConfig,
  log: Logger,
  registry: Registry,
  syncSeconds = 60,
): Promise<RunCache> {
  const cache = createClusterCache({
    kc,
    client: createKubeClient(kc),
    onError: (resource, what, message) =>
      log.warn({ resource, what, err: message }, 'cluster cache: request failed'),
  });
  registerClusterCacheMetrics(registry, cache);
  cache.start();
  const t0 = Date.now();
  if (await cache.waitForSync(syncSeconds))
    log.info(
      { ms: Date.now() - t0, objects: cache.state().map((s) => `${s.resource}=${s.objects}`) },
      'cluster cache synced',
    );
  else
    log.warn(
      { causes: cacheHealthCauses(cache.state()).map((c) => c.message) },
      'cluster cache not synced yet: passes are refused until it is',
    );
  return {
    cache,
    clusterRead: cacheSource(cache),
    healthCauses: () => cacheHealthCauses(cache.state()),
    stop: () => cache.stop(),
  };
}
