/**
 * The cluster cache's state on the controller's `/metrics` (prom-client), read from the cache at
 * scrape time, one series per resource (`nodes`, `pods`, `horizontalpodautoscalers`, …):
 *
 * - `gpuops_cluster_cache_synced{resource}`: 1 while a pass may read it (listed, heard from within
 *   the stall bound, its watch connected or down for less than it), else 0;
 * - `gpuops_cluster_cache_watch_connected{resource}`: 1 while a watch stream is open;
 * - `gpuops_cluster_cache_last_relist_timestamp_seconds{resource}`: when its newest list completed;
 * - `gpuops_cluster_cache_last_heard_timestamp_seconds{resource}`: its newest event, bookmark or list;
 * - `gpuops_cluster_cache_objects{resource}`: records held;
 * - `gpuops_cluster_cache_events_per_second{resource}`: ADDED/MODIFIED/DELETED over the last 60 s;
 * - `gpuops_cluster_cache_events_total{resource}`, `gpuops_cluster_cache_bookmarks_total{resource}`;
 * - `gpuops_cluster_cache_relists_total{resource,reason="initial"|"expired"|"stalled"}`;
 * - `gpuops_cluster_cache_reconnects_total{resource,reason="stream-ended"|"stalled"|"error"}`.
 *
 * Alert on `min(gpuops_cluster_cache_synced) == 0` for a few minutes: passes are refused then.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { CacheResourceState, ClusterCache } from './cache.js';

type State = CacheResourceState;

/** Gauges: one series per resource, `value` null leaves the resource out. */
const GAUGES: readonly { name: string; help: string; value: (s: State) => number | null }[] = [
  {
    name: 'gpuops_cluster_cache_synced',
    help: '1 while a pass may read this resource of the cluster cache (synced since its last relist, heard from within the stall bound, its watch not down past it), else 0.',
    value: (s) => (s.current ? 1 : 0),
  },
  {
    name: 'gpuops_cluster_cache_watch_connected',
    help: '1 while a watch stream of this resource is open.',
    value: (s) => (s.connected ? 1 : 0),
  },
  {
    name: 'gpuops_cluster_cache_last_relist_timestamp_seconds',
    help: 'When the newest list of this resource completed (epoch seconds).',
    value: (s) => (s.lastRelistAt === null ? null : s.lastRelistAt / 1000),
  },
  {
    name: 'gpuops_cluster_cache_last_heard_timestamp_seconds',
    help: 'When the API server was last heard from for this resource: an event, a bookmark or a list (epoch seconds).',
    value: (s) => (s.lastHeardAt === null ? null : s.lastHeardAt / 1000),
  },
  {
    name: 'gpuops_cluster_cache_objects',
    help: 'Objects of this resource held by the cluster cache.',
    value: (s) => s.objects,
  },
  {
    name: 'gpuops_cluster_cache_events_per_second',
    help: 'Watch events (added, modified, deleted) of this resource per second over the last 60 s.',
    value: (s) => s.eventsPerSecond,
  },
];

/** Counters whose running totals the cache keeps: each scrape sets them to the cache's total. */
const COUNTERS: readonly {
  name: string;
  help: string;
  labelNames: string[];
  values: (s: State) => [Record<string, string>, number][];
}[] = [
  {
    name: 'gpuops_cluster_cache_events_total',
    help: 'Watch events applied to the cluster cache.',
    labelNames: [],
    values: (s) => [[{}, s.events]],
  },
  {
    name: 'gpuops_cluster_cache_bookmarks_total',
    help: 'BOOKMARK events received.',
    labelNames: [],
    values: (s) => [[{}, s.bookmarks]],
  },
  {
    name: 'gpuops_cluster_cache_relists_total',
    help: 'Completed lists of this resource by reason (initial, expired: 410 Gone).',
    labelNames: ['reason'],
    values: (s) => Object.entries(s.relists).map(([reason, n]) => [{ reason }, n]),
  },
  {
    name: 'gpuops_cluster_cache_reconnects_total',
    help: 'Watches opened again by reason (stream-ended, stalled, error).',
    labelNames: ['reason'],
    values: (s) => Object.entries(s.reconnects).map(([reason, n]) => [{ reason }, n]),
  },
];

/** Registers the cache's gauges and counters in `registry`. */
export function registerClusterCacheMetrics(registry: Registry, cache: Pick<ClusterCache, 'state'>): void {
  for (const { name, help, value } of GAUGES)
    new Gauge({
      name,
      help,
      labelNames: ['resource'],
      registers: [registry],
      collect() {
        this.reset();
        for (const s of cache.state()) {
          const v = value(s);
          if (v !== null) this.set({ resource: s.resource }, v);
        }
      },
    });
  for (const { name, help, labelNames, values } of COUNTERS)
    new Counter({
      name,
      help,
      labelNames: ['resource', ...labelNames],
      registers: [registry],
      collect() {
        this.reset();
        for (const s of cache.state())
          for (const [labels, n] of values(s)) this.inc({ resource: s.resource, ...labels }, n);
      },
    });
}
