/**
 * The crossing trigger of `gpuops run`: react on the crossing, not on the tick. Every
 * `intervalSeconds` it reads the utilisation source as the pass does, without the history — the
 * policy's metric for the algorithms that scale on it, and each other signal a watched algorithm
 * scales on (`gpuEngineActive`, `gpuMemory`, a service metric), one scoped query each
 * (`pass/signal-readings.ts`, `readWatchSignals`) — and tests each algorithm on its own signal
 * against the watchlist the last pass left (`scaling/crossing-watch.ts`). When an
 * algorithm has left its band it wakes the loop, which starts a pass at once instead of waiting
 * out the interval; the periodic pass stays, as the level-triggered backstop. A failed reading is
 * logged at debug and changes nothing for the algorithms on that signal (the periodic pass reads again); no watchlist yet (before
 * the first pass, or while following): nothing is read.
 */
import type { Logger } from 'pino';
import type { UtilizationSource } from '../metrics/index.js';
import { watchReading, type WatchState, type Watchlist } from '../scaling/index.js';
import { sleep } from '../retry/index.js';
import { readWatchSignals } from '../pass/index.js';

/**
 * Wakes the controller loop out of its wait between passes. `sleep` resolves after `ms`, on
 * abort, or at `wake()`; a wake while no one sleeps is kept for the next `sleep` (a crossing seen
 * during a pass starts the next pass at once).
 */
export class PassWaker {
  private pending = false;
  private waiting: (() => void) | null = null;

  /** Wakes the current (or next) sleep. */
  wake(): void {
    if (this.waiting) this.waiting();
    else this.pending = true;
  }

  /**
   * Waits `ms`, or until woken or `signal` aborts; returns at once when `signal` has already
   * aborted (a stop during a pass: its 'abort' event has fired and will not fire again).
   */
  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return;
    if (this.pending) {
      this.pending = false;
      return;
    }
    const ac = new AbortController();
    const onAbort = () => ac.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    this.waiting = () => ac.abort();
    try {
      await sleep(ms, ac.signal);
    } finally {
      this.waiting = null;
      signal?.removeEventListener('abort', onAbort);
    }
  }
}

/** What {@link runCrossingTrigger} needs. */
export interface CrossingTriggerOptions {
  source: UtilizationSource;
  /** Time between readings (seconds). */
  intervalSeconds: number;
  /** The last pass's watchlist (null: nothing to watch). */
  watchlist: () => Watchlist | null;
  /** Called with the algorithms that crossed (one call per reading with any). */
  onCrossing: (algorithms: string[]) => void;
  /** Only while this holds (the leader); absent: always. */
  active?: () => boolean;
  now: () => number;
  log: Logger;
  /** Aborting ends the trigger after the reading in flight. */
  signal: AbortSignal;
}

/** Reads and tests until `signal` aborts; resolves with the number of readings made. */
export async function runCrossingTrigger(o: CrossingTriggerOptions): Promise<number> {
  let state: WatchState = new Map();
  let readings = 0;
  while (!o.signal.aborted) {
    await sleep(o.intervalSeconds * 1000, o.signal);
    if (o.signal.aborted) break;
    const watch = o.active === undefined || o.active() ? o.watchlist() : null;
    if (watch === null || watch.algorithms.length === 0) continue;
    const reading = await readWatchSignals(o.source, watch);
    readings++;
    for (const r of [reading, ...Object.values(reading.signals ?? {})])
      if (!r.ok) o.log.debug({ reason: r.reason, message: r.message }, 'crossing trigger: no reading');
    const out = watchReading(watch, reading, state, o.now());
    state = out.state;
    if (out.crossed.length === 0) continue;
    o.log.info({ algorithms: out.crossed }, 'utilisation left its band: starting a pass');
    o.onCrossing(out.crossed);
  }
  return readings;
}
