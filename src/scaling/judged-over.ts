/**
 * How many Ready pods a scaling decision judged its utilisation over. `decideOne` writes the count
 * into the decision's message for people ("over S of R Ready pod(s)", {@link judgedOver}) and
 * carries it structured (`ScalingDecision.readyPods`, stored as `decisions.ready_pods`, migration
 * 13); the readers of recorded load (`recentPeak` in history.ts, the standby hold) take it from the
 * record through {@link podsJudged}, never from the message, so the message may be reworded freely.
 * Only a record stored before migration 13 has the count in its message alone: it is read there
 * with the phrase as gpuops wrote it then ({@link legacyReadyPods}, frozen: not {@link judgedOver}).
 */
import type { DecisionRecord } from './types.js';

/** "over S of R Ready pod(s)": `sampled` (S) pods with a GPU sample of `ready` (R) Ready pods. */
export function judgedOver(sampled: number, ready: number): string {
  return `over ${sampled} of ${ready} Ready pod(s)`;
}

/** The phrase as gpuops wrote it before migration 13; never to change with {@link judgedOver}. */
const LEGACY_JUDGED_OVER = /\bover \d+ of (\d+) Ready pod\(s\)/;

/**
 * The Ready pod count (R) of a message written before migration 13 ("over S of R Ready pod(s)");
 * null when it has none.
 */
export function legacyReadyPods(message: string): number | null {
  const m = LEGACY_JUDGED_OVER.exec(message);
  return m ? Number(m[1]) : null;
}

/**
 * The pods a recorded utilisation stands for (its load is `utilisation × pods`): the Ready pods
 * it was judged over (`readyPods`), at most `replicasFrom`; `replicasFrom` when the record names
 * none (errs high while replicas start: towards holding). A record without `readyPods` is either
 * one that judged no Ready pods (its message names none either) or one stored before migration 13,
 * whose message is read ({@link legacyReadyPods}): both read as they did before the column.
 * Null when the record has no `replicasFrom`.
 */
export function podsJudged(r: Pick<DecisionRecord, 'readyPods' | 'message' | 'replicasFrom'>): number | null {
  if (r.replicasFrom === null) return null;
  const named = r.readyPods ?? legacyReadyPods(r.message);
  return named === null ? r.replicasFrom : Math.min(r.replicasFrom, named);
}
