/**
 * Reads what the status page shows from the database (never the cluster): the newest snapshot,
 * the newest pass's fleet status, 24 h of samples and scaling decisions per algorithm, the
 * cluster's pull requests and the newest decisions.
 */
import type { StatusStore, Store } from '../store/index.js';
import type { CacheResourceState } from './cache-health.js';
import type { HealthCause } from './health.js';
import { buildStatusView, CHART_WINDOW_SECONDS, chartEnd, type StatusView } from './model.js';

/** How many of the newest decisions the page lists. */
export const RECENT_DECISIONS = 20;

/** What the running controller adds to the database's view (`gpuops run`'s page). */
export interface LiveStatus {
  /** Its watch-driven cluster cache (`ClusterCache.state()`): the cache section and its cause. */
  cache?: readonly CacheResourceState[];
  /** Causes other parts know (the Git writer), beside the summary line's built-in ones. */
  healthCauses?: readonly HealthCause[];
}

/**
 * Loads the view of `cluster` at `now`; `live` (what only the running controller knows: its
 * cluster cache) adds its section and causes.
 * @throws StoreError when a read fails
 */
export async function loadStatusView(
  store: Store & StatusStore,
  cluster: string,
  now: Date,
  live: LiveStatus = {},
): Promise<StatusView> {
  const [snapshot, fleet, pullRequests, pullRequestCycles] = await Promise.all([
    store.latestSnapshot(),
    store.fleetStatus(cluster),
    store.pullRequests(cluster),
    store.pullRequestHistory(cluster),
  ]);
  const since = new Date((chartEnd(now, fleet) - CHART_WINDOW_SECONDS) * 1000).toISOString();
  const names = (fleet?.algorithms ?? []).map((a) => a.name);
  const [samples, history, recentDecisions] = await Promise.all([
    Promise.all(names.map(async (n) => [n, await store.samples(n, since)] as const)),
    Promise.all(names.map(async (n) => [n, await store.decisions(n, since)] as const)),
    store.recentDecisions('1970-01-01T00:00:00.000Z', RECENT_DECISIONS),
  ]);
  return buildStatusView({
    cluster,
    now,
    snapshot,
    fleet,
    samples: new Map(samples),
    history: new Map(history),
    pullRequests,
    pullRequestCycles,
    recentDecisions,
    ...(live.healthCauses ? { healthCauses: live.healthCauses } : {}),
    ...(live.cache ? { cache: live.cache } : {}),
  });
}
