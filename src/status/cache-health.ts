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
