/**
 * The watch-driven cluster cache's cause on the status page's summary line (pure): while a
 * resource of the cache is not current (not listed yet, relisting after 410 Gone, or its watch down
 * for longer than the stall bound), every pass of `gpuops run` is refused — it never decides on
 * records that are not known to be right — and the page says so, naming each resource and why.
 */
import { plural, type HealthCause } from './health.js';

/** One resource of the cache as `ClusterCache.state()` reports it (the fields read here). */
export interface CacheResourceHealth {
  /** e.g. `pods`. */
  resource: string;
  /** A pass may read it. */
  current: boolean;
  /** Why not, e.g. `pods: relisting after its watch expired (410 Gone)`; null when current. */
  reason: string | null;
}

/** What the status page shows of one resource of the cache (`ClusterCache.state()`'s fields). */
export interface CacheResourceState extends CacheResourceHealth {
  /** A watch stream is open now. */
  connected: boolean;
  /** When the newest list completed (ms since the epoch), null before the first. */
  lastRelistAt: number | null;
  /** Records held. */
  objects: number;
  /** Watch events (added, modified, deleted) per second over the last 60 s. */
  eventsPerSecond: number;
}

/** One row of the status page's cluster cache section. Times ISO-8601 UTC. */
export interface StatusCacheResource {
  resource: string;
  /** A pass may read it (synced since its last relist, its watch not down past the stall bound). */
  synced: boolean;
  connected: boolean;
  lastRelistAt: string | null;
  objects: number;
  /** Rounded to 0.1. */
  eventsPerSecond: number;
  /** Why it is not synced, or null. */
  reason: string | null;
}

/** The cache section of a view read from the database alone (which does not know the cache). */
export const NO_CACHE =
  'not known here (read from the database); the running controller knows its cluster cache: its page at / of its health address, or gpuops status --controller-url with that address';

/** The rows of the cluster cache section, in the cache's order (nodes, pods, replicasets, HPAs). */
export function statusCacheRows(resources: readonly CacheResourceState[]): StatusCacheResource[] {
  return resources.map((r) => ({
    resource: r.resource,
    synced: r.current,
    connected: r.connected,
    lastRelistAt: r.lastRelistAt === null ? null : new Date(r.lastRelistAt).toISOString(),
    objects: r.objects,
    eventsPerSecond: Math.round(r.eventsPerSecond * 10) / 10,
    reason: r.reason,
  }));
}

/**
 * `ClusterCacheNotSynced` (critical: no pass decides until it clears) when any resource is not
 * current, naming them (`cluster cache not synced, passes refused: pods: relisting after its
 * watch expired (410 Gone)`); none when every resource is current or there is no cache (`[]`,
 * the one-shot commands list instead).
 */
export function cacheHealthCauses(resources: readonly CacheResourceHealth[]): HealthCause[] {
  const behind = resources.filter((r) => !r.current);
  if (behind.length === 0) return [];
  const why = behind.map((r) => r.reason ?? `${r.resource}: not synced`).join('; ');
  return [
    {
      level: 'critical',
      reason: 'ClusterCacheNotSynced',
      message: `cluster cache not synced (${plural(behind.length, 'resource')}), passes refused: ${why}`,
    },
  ];
}
