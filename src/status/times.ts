/**
 * The times at the top of the status page (pure), each age on one clock. The page is judged at
 * the newest pass's own time when that is later than the reading machine's clock (a simulated
 * clock — `gpuops demo`, `gpuops sim` — runs ahead of it; `view-health.ts` and `chart.ts` do the
 * same), so the snapshot's and the pass's ages are on that clock too, and the page says when it
 * is not this machine's, instead of printing a read time beside records from its future.
 */
import { ago } from './health.js';
import type { StatusView } from './view-types.js';

/** The lines' parts: when the page was read, the snapshot and pass with their ages, and whose clock. */
export interface StatusTimes {
  /** `read 2026-12-07T01:56:04.214Z (UTC, this machine's clock)`. */
  read: string;
  /** `snapshot 2026-12-07T01:50:00.000Z (6 min old) · last pass 2026-12-07T01:55:00.000Z (1 min ago)`. */
  records: string;
  /** When the records are ahead of this machine's clock: by how much, and that ages are on theirs. */
  clock: string | null;
}

/** The times of `v`, each age against the clock health is judged on (see the module comment). */
export function statusTimes(v: Pick<StatusView, 'generatedAt' | 'snapshotAt' | 'passAt'>): StatusTimes {
  const read = Date.parse(v.generatedAt) / 1000;
  const pass = v.passAt === null ? null : Date.parse(v.passAt) / 1000;
  const clock = Math.max(read, pass ?? read);
  const age = (at: string | null, word: string) =>
    at === null ? 'none yet' : `${at} (${ago(clock - Date.parse(at) / 1000)} ${word})`;
  return {
    read: `read ${v.generatedAt} (UTC, this machine's clock)`,
    records: `snapshot ${age(v.snapshotAt, 'old')} · last pass ${age(v.passAt, 'ago')}`,
    clock:
      clock > read
        ? `the records are ${ago(clock - read)} ahead of this machine's clock (a simulated clock wrote them: gpuops demo or sim); ages are on their clock`
        : null,
  };
}
