/**
 * The SQL of history retention (`Store.pruneHistory`): decisions and utilisation samples recorded
 * before a time go. Which time is the pass's rule (`pass/history-prune.ts`).
 */

/** SQL deleting the decisions before a time in ms (placeholder `p`); uses index `decisions_at`. */
export function pruneDecisionsSql(p: string): string {
  return `DELETE FROM decisions WHERE at_ms < ${p}`;
}

/** SQL deleting the utilisation samples before a time in ms; uses index `utilization_samples_at`. */
export function pruneSamplesSql(p: string): string {
  return `DELETE FROM utilization_samples WHERE at_ms < ${p}`;
}

/** How many rows a prune deleted. */
export interface PrunedHistory {
  decisions: number;
  samples: number;
}
