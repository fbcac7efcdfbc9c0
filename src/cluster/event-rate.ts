/**
 * Events per second over a sliding window, counted in one-second buckets (a ring of `window`
 * counters), so a rate costs O(window) to read and O(1) to record, however many events arrive.
 * Pure apart from the times it is given (milliseconds since the epoch).
 */
export class EventRate {
  private readonly counts: number[];
  /** The second (epoch seconds) each bucket counts, or -1 when unused. */
  private readonly seconds: number[];

  /** @param windowSeconds width of the window (whole seconds ≥ 1); default 60 */
  constructor(private readonly windowSeconds = 60) {
    if (!Number.isInteger(windowSeconds) || windowSeconds < 1)
      throw new Error(`window must be a whole number of seconds ≥ 1, got ${windowSeconds}`);
    this.counts = new Array<number>(windowSeconds).fill(0);
    this.seconds = new Array<number>(windowSeconds).fill(-1);
  }

  /** Counts `n` events at `atMs`. */
  record(atMs: number, n = 1): void {
    const s = Math.floor(atMs / 1000);
    const i = s % this.windowSeconds;
    if (this.seconds[i] !== s) {
      this.seconds[i] = s;
      this.counts[i] = 0;
    }
    this.counts[i]! += n;
  }

  /**
   * Events per second over the window that ends at `atMs` (the current second included, the
   * oldest second of the window left out so that the window is exactly `windowSeconds` long).
   */
  perSecond(atMs: number): number {
    const now = Math.floor(atMs / 1000);
    let sum = 0;
    for (let i = 0; i < this.windowSeconds; i++) {
      const s = this.seconds[i]!;
      if (s > now - this.windowSeconds && s <= now) sum += this.counts[i]!;
    }
    return sum / this.windowSeconds;
  }
}
