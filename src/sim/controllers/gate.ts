import type { SimStore } from '../types.js';

/**
 * Lets a controller skip a pass when nothing it reads can have changed: the store's
 * resourceVersion is the one it last read and no timed work (a Job deadline, a container's end)
 * is due yet. Keeps reconcile cheap on large fleets, where listing 20,000 pods per write adds up.
 */
export class ChangeGate {
  private seen: string | undefined;
  private dueAt = Number.POSITIVE_INFINITY;

  /** True when the controller must run: the store changed, or `now` reached the next due time. */
  open(store: SimStore, now: Date): boolean {
    return store.resourceVersion() !== this.seen || now.getTime() >= this.dueAt;
  }

  /**
   * Records the resourceVersion read at the start of the pass (so the controller's own writes
   * trigger one more, idle, pass) and the next time (epoch ms) timed work falls due.
   */
  close(readVersion: string, nextDueMs: number = Number.POSITIVE_INFINITY): void {
    this.seen = readVersion;
    this.dueAt = nextDueMs;
  }
}
