/**
 * Simulated time ({@link SimClock}): starts at the wall clock and runs `speed` times faster;
 * `advance(seconds)` jumps ahead. Ticks every `tickMs` real milliseconds and after every jump it
 * calls `onTick`, which runs the controllers.
 */
import type { SimClock } from './types.js';

/** The simulated clock. `wall` is the real clock (injected for tests). */
export class ScaledClock implements SimClock {
  private readonly wallStart: number;
  private readonly simStart: number;
  private offsetMs = 0;
  private timer: NodeJS.Timeout | undefined;
  private onTick: () => void = () => {};

  constructor(
    readonly speed = 1,
    private readonly wall: () => number = Date.now,
  ) {
    if (!(speed > 0)) throw new Error(`sim clock: speed must be > 0, got ${speed}`);
    this.wallStart = wall();
    this.simStart = this.wallStart;
  }

  now(): Date {
    return new Date(this.simStart + (this.wall() - this.wallStart) * this.speed + this.offsetMs);
  }

  advance(seconds: number): void {
    if (!(seconds >= 0)) throw new Error(`sim clock: cannot advance by ${seconds} s`);
    this.offsetMs += seconds * 1000;
    this.onTick();
  }

  /** Starts ticking every `tickMs` real ms, calling `onTick`. The timer does not keep the process alive. */
  start(tickMs: number, onTick: () => void): void {
    this.onTick = onTick;
    this.stop();
    this.timer = setInterval(() => this.onTick(), tickMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
