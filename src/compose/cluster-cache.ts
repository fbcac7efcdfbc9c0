/**
 * The watch-driven cluster cache of `gpuops run` (an adapter, built in the composition root as
 * the others are): started before the first pass, given to the passes as their `ClusterSource`, its state
 * on `/metrics` and on the status page. One-shot commands (`plan`, `reconcile --once`) list instead.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import {
  createClusterCache,
  type ClusterCache,
  registerClusterCacheMetrics,
  createKubeClient,
  cacheSource,
  type ClusterSource,
} from '../cluster/index.js';
import { cacheHealthCauses } from '../status/index.js';
import type { HealthCause } from '../status/index.js';

/** A started cache and what `gpuops run` wires to it. */
export interface RunCache {
  cache: ClusterCache;
  /** What each pass reads (`cacheSource`): memory, no request; refused while not synced. */
  clusterRead: ClusterSource;
  /** The status page's cause while the cache is not synced (none when it is). */
  healthCauses(): HealthCause[];
  stop(): Promise<void>;
}

/** Options of {@link startRunCache}. */
export interface RunCacheOptions {
  /** Where its metrics go (`/metrics` of `gpuops run`); none: not registered. */
  registry?: Registry;
  /** How long to wait for the first lists (seconds); default 60. */
  syncSeconds?: number;
  /** Each applied event (the bench's change → cache latency). */
  onEvent?: (resource: string, type: 'ADDED' | 'MODIFIED' | 'DELETED', key: string) => void;
}

/**
 * Starts the cache on `kc`, registers its metrics and waits up to `syncSeconds` for its first
 * lists, so that the first pass is not refused on a healthy cluster; a cache still not synced
 * then is logged, and passes are refused (and say why) until it is.
 */
export async function startRunCache(kc: KubeConfig, log: Logger, o: RunCacheOptions = {}): Promise<RunCache> {
  const cache = createClusterCache({
    kc,
    client: createKubeClient(kc),
    onError: (resource, what, message) =>
      log.warn({ resource, what, err: message }, 'cluster cache: request failed'),
    ...(o.onEvent ? { onEvent: o.onEvent } : {}),
  });
  if (o.registry) registerClusterCacheMetrics(o.registry, cache);
  cache.start();
  const t0 = Date.now();
  if (await cache.waitForSync(o.syncSeconds ?? 60))
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
