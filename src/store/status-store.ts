import type { StatusStore, Store } from './types.js';

/**
 * The store as a {@link StatusStore} when it is one (both shipped stores are), else null: a
 * partial Store given by a test or tool simply records no history and no fleet status.
 */
export function statusStoreOf(store: Store): (Store & StatusStore) | null {
  const s = store as Store & Partial<StatusStore>;
  return typeof s.saveFleetStatus === 'function' &&
    typeof s.fleetStatus === 'function' &&
    typeof s.recentDecisions === 'function' &&
    typeof s.pullRequestHistory === 'function' &&
    typeof s.pullRequestCycle === 'function' &&
    typeof s.clusters === 'function'
    ? (s as Store & StatusStore)
    : null;
}
