/**
 * How long the per-pass history stays in the database (pure). A reconciler records a decision per
 * algorithm and the samples that changed on every pass: at 5,000 algorithms and a pass every 30 s
 * that is 14 million decision rows a day, so without retention the database grows without bound.
 * Each pass deletes what has aged out (`Store.pruneHistory`), a pass's worth at a time, so no pass
 * deletes a backlog of days at once (but the first after an upgrade).
 */
import type { Policy } from '../definitions/index.js';
import { historySince } from '../scaling/index.js';

/** Decisions and utilisation samples are kept 7 days (the status page charts the last 24 h). */
export const KEEP_HISTORY_SECONDS = 7 * 24 * 3600;

/**
 * The store's resolution of utilisation history (seconds): a pass stores its samples only when
 * this long has passed since the samples it last stored (`saveNewSamples`). Their one reader is
 * the status page's chart (`store.samples`; no scaling rule reads them: the windows read the
 * metrics source and the recorded decisions), whose buckets are 1 min wide from its 1-hour view
 * up; 60 s is also `gpuops run --interval`'s default, so a controller at that pace stores as
 * before, and the passes between (the crossing trigger's, every few seconds) store none.
 */
export const SAMPLE_INTERVAL_SECONDS = 60;

/**
 * The time (ISO-8601) before which decisions and samples may go: `keepSeconds` (default
 * {@link KEEP_HISTORY_SECONDS}) before `now`, or earlier when the policy's rules read further back
 * (`historySince`: twice the longest cooldown or window), so a rule never loses a record it reads.
 * @throws RangeError when `keepSeconds` is not a number of seconds > 0
 */
export function historyPruneBefore(policy: Policy, now: Date, keepSeconds = KEEP_HISTORY_SECONDS): string {
  if (!Number.isFinite(keepSeconds) || keepSeconds <= 0)
    throw new RangeError(`keepSeconds must be a number of seconds > 0, got ${String(keepSeconds)}`);
  const kept = now.getTime() - keepSeconds * 1000;
  const read = Date.parse(historySince(policy, now));
  return new Date(Math.min(kept, read)).toISOString();
}
