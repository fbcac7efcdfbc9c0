import { sleep } from '../retry/index.js';

/**
 * The time source of the benchmark runner: `now` for timestamps and deadlines, `sleep` between
 * polls. Injected, so tests drive it with the simulated cluster's clock.
 */
export interface RunnerClock {
  now(): Date;
  /** Waits `seconds` (of this clock's time). */
  sleep(seconds: number): Promise<void>;
}

/** The wall clock. */
export const systemClock: RunnerClock = {
  now: () => new Date(),
  sleep: (seconds) => sleep(seconds * 1000),
};
