/**
 * A first-in, first-out counting semaphore over GPUs: benchmarks run at once only while the GPUs
 * they hold fit in `capacity` (the free GPUs of the test pool). A request larger than the whole
 * capacity waits until nothing else runs and then takes all of it, so the scheduler, not gpuops,
 * says whether it fits (it ends Unschedulable when it does not). First-in, first-out: a large
 * request is never starved by a stream of small ones.
 */
export class GpuSlots {
  private inUse = 0;
  private peak = 0;
  private readonly queue: { gpus: number; resolve: () => void }[] = [];

  /** @param capacity free GPUs (whole GPUs, ≥ 1) */
  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`GpuSlots: capacity must be an integer ≥ 1, got ${capacity}`);
    }
  }

  /** GPUs held now. */
  get held(): number {
    return this.inUse;
  }

  /** Most GPUs held at once so far. */
  get peakHeld(): number {
    return this.peak;
  }

  /** Waits for `gpus` GPUs (clamped to the capacity); returns the function that gives them back. */
  async acquire(gpus: number): Promise<() => void> {
    const want = Math.min(Math.max(1, gpus), this.capacity);
    if (this.queue.length === 0 && this.inUse + want <= this.capacity) {
      this.take(want);
    } else {
      await new Promise<void>((resolve) => this.queue.push({ gpus: want, resolve }));
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inUse -= want;
      this.drain();
    };
  }

  private take(gpus: number): void {
    this.inUse += gpus;
    this.peak = Math.max(this.peak, this.inUse);
  }

  private drain(): void {
    while (this.queue.length > 0 && this.inUse + this.queue[0]!.gpus <= this.capacity) {
      const next = this.queue.shift()!;
      this.take(next.gpus);
      next.resolve();
    }
  }
}
