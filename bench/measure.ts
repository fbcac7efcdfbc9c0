/** Helpers for bench scripts: wall time and peak RSS of a piece of work. */

/** Runs `fn` `repeat` times after one warm-up and returns the median wall time (milliseconds). */
export async function medianMs(fn: () => unknown, repeat = 5): Promise<number> {
  await fn();
  const times: number[] = [];
  for (let i = 0; i < repeat; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

/** Samples RSS every 5 ms while `fn` runs; returns the peak (MB) and `fn`'s result. */
export async function peakRssMb<T>(fn: () => Promise<T> | T): Promise<{ result: T; peakMb: number }> {
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 5);
  try {
    const result = await fn();
    peak = Math.max(peak, process.memoryUsage.rss());
    return { result, peakMb: peak / 1024 / 1024 };
  } finally {
    clearInterval(timer);
  }
}
