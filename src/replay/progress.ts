/**
 * Progress of a replay's simulated engines on stderr (pure: the caller gives the clock): one line
 * at most every `everySeconds`, naming each engine's share of the trace replayed and the time
 * since the start, so a run of minutes is never silent (`  running: hpa 42 %, gpuops-patch 31 %,
 * gpuops-pr 28 % (2 min 10 s)`).
 */

/** `2 min 10 s`, `45 s`. */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`;
}

/** A progress reporter: `update(engine, fraction, nowMs)` returns the line to print, or null while it is too soon. */
export interface ProgressReporter {
  update(engine: string, fraction: number, nowMs: number): string | null;
}

/**
 * A reporter for `engines` (in this order), started at `startMs`, that answers a line at most every
 * `everySeconds` (the first one `everySeconds` after the start).
 */
export function progressReporter(
  engines: readonly string[],
  startMs: number,
  everySeconds = 15,
): ProgressReporter {
  const done = new Map(engines.map((e) => [e, 0]));
  let last = startMs;
  return {
    update(engine, fraction, nowMs) {
      done.set(engine, Math.max(done.get(engine) ?? 0, Math.min(1, fraction)));
      if (nowMs - last < everySeconds * 1000) return null;
      last = nowMs;
      const parts = [...done].map(([e, f]) => `${e} ${Math.floor(f * 100)} %`);
      return `  running: ${parts.join(', ')} (${duration((nowMs - startMs) / 1000)})`;
    },
  };
}
