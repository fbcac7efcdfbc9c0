/**
 * Bounds on a utilisation trace's times (pure), so that a replay of a trace that passes
 * {@link checkTraceTimes} runs in bounded time and never meets a time its engines cannot hold.
 *
 * - A time is Unix seconds (Prometheus `query_range` answers; the Alibaba GenAI trace's
 *   `timestamp_anon`, 1662858720 onwards) between 0 and {@link MAX_TRACE_TIME_SECONDS}
 *   (2100-01-01); a larger one is most often milliseconds, and the message says so.
 * - Two consecutive instants are at most {@link MAX_TRACE_GAP_SECONDS} apart (the shipped trace
 *   samples every 57 s or less; a Prometheus export's `step` is seconds to minutes). A replay
 *   simulates every reconcile pass of the gap, so one year between two lines would run for hours.
 * A long trace of short steps is a long replay by choice (`--hours` cuts it); it is not bounded here.
 */

/** The latest time accepted (Unix seconds): 2100-01-01T00:00:00Z. */
export const MAX_TRACE_TIME_SECONDS = 4_102_444_800;
/** The longest gap accepted between two consecutive instants (seconds). */
export const MAX_TRACE_GAP_SECONDS = 3600;

/**
 * Checks one time read from a trace.
 * @param t the time read (seconds)
 * @param where `file:line: field` or `file: JSON path`, for the message
 * @returns `t` when it is within 0..{@link MAX_TRACE_TIME_SECONDS}
 * @throws Error naming `where` and the bound it crosses
 */
export function checkTraceTime(t: number, where: string): number {
  if (t < 0) throw new Error(`${where}: expected a time in Unix seconds (0 or later), got ${t}`);
  if (t > MAX_TRACE_TIME_SECONDS)
    throw new Error(
      `${where}: time ${t} is past 2100-01-01 (${MAX_TRACE_TIME_SECONDS} s); ` +
        `times are Unix seconds${t > MAX_TRACE_TIME_SECONDS * 100 ? ' (is this milliseconds?)' : ''}`,
    );
  return t;
}

/**
 * Checks the gaps between a trace's sorted times.
 * @param times the distinct instants' times, sorted ascending (seconds)
 * @param whereOf where each time was first read (`file:line: field`), for the message
 * @throws Error naming the line of the later instant of a gap above {@link MAX_TRACE_GAP_SECONDS}
 */
export function checkTraceGaps(times: readonly number[], whereOf: (t: number) => string): void {
  for (let i = 1; i < times.length; i++) {
    const gap = times[i]! - times[i - 1]!;
    if (gap > MAX_TRACE_GAP_SECONDS)
      throw new Error(
        `${whereOf(times[i]!)}: ${gap} s after the previous instant (${times[i - 1]}); ` +
          `at most ${MAX_TRACE_GAP_SECONDS} s between samples`,
      );
  }
}
