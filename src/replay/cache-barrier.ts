/**
 * The replay's engines read the cluster as `gpuops run` does, from its watch-driven cache
 * (`compose/cluster-cache.ts`), not by listing every pass. A real cache lags the API server by
 * the time its streams take; the replay's clock stands still while the engine waits, so it waits
 * that lag out before each pass: the pass then reads what a list would read at that instant, and
 * the replay's decisions do not depend on the machine's speed.
 */
import type { ClusterCache } from '../cluster/index.js';
import type { SimCluster } from '../sim/index.js';

/** How long the cache may take to catch up (real milliseconds) before the replay gives up. */
const CATCH_UP_TIMEOUT_MS = 30_000;
/** Real milliseconds between bookmarks asked again (a watch re-opening missed the last one). */
const BOOKMARK_AGAIN_MS = 100;

const immediate = () => new Promise<void>((resolve) => setImmediate(resolve));
const later = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** True when every resource of `cache` is synced at `version` (a store resourceVersion) or past it. */
function caughtUpTo(cache: Pick<ClusterCache, 'state'>, version: number): boolean {
  return cache.state().every((s) => s.synced && Number(s.resourceVersion) >= version);
}

/**
 * Resolves once `cache` has applied every write the simulator's store holds and the store is
 * still (no controller run pending): the store's resourceVersion is read after pending callbacks
 * ran, a BOOKMARK carrying it is sent on every open watch (`allowWatchBookmarks`, KEP-956; a
 * stream sends its events in order, so the bookmark arrives after them), and the wait ends when
 * every resource has resumed past it, and the store has not moved since.
 * @throws Error naming the resources behind when they have not caught up within 30 s (real time)
 */
export async function cacheCaughtUp(
  sim: Pick<SimCluster, 'store' | 'watchFaults'>,
  cache: Pick<ClusterCache, 'state'>,
): Promise<void> {
  const deadline = Date.now() + CATCH_UP_TIMEOUT_MS;
  for (;;) {
    await immediate();
    const version = Number(sim.store.resourceVersion());
    let asked = 0;
    while (!caughtUpTo(cache, version)) {
      if (Date.now() - asked >= BOOKMARK_AGAIN_MS) {
        sim.watchFaults.bookmark();
        asked = Date.now();
      }
      if (Date.now() > deadline) {
        const behind = cache
          .state()
          .filter((s) => !s.synced || Number(s.resourceVersion) < version)
          .map((s) => `${s.resource} at ${s.resourceVersion || 'none'}`);
        throw new Error(
          `replay: the watch cache did not catch up with the simulator's version ${version} in ${CATCH_UP_TIMEOUT_MS / 1000} s (${behind.join(', ')})`,
        );
      }
      // A few turns of the event loop let the streams' data in; then wait in real time.
      await (Date.now() - asked < 5 ? immediate() : later(1));
    }
    await immediate();
    if (Number(sim.store.resourceVersion()) === version) return;
  }
}
