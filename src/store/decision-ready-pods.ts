/**
 * Migration 13: the Ready pods a scaling decision judged its utilisation over, in a column of its
 * own (`decisions.ready_pods`), so the readers of recorded load (`recentPeak`, the standby hold)
 * no longer read the count back out of the decision's message. NULL: the decision named no such
 * count (paused, not placed, another autoscaler, replica limits, refused, no data, the HPA's
 * capacity holds; `ScalingDecision.readyPods`), or the row was written before this migration, when
 * only the message carried it (`podsJudged` in `scaling/judged-over.ts` reads those as before).
 */
import type { Migration } from './migration-types.js';

/** Migration 13: `decisions.ready_pods` (whole pods, NULL allowed; see the module comment). */
export const READY_PODS_MIGRATION: Migration = {
  id: 13,
  name: 'decision ready pods',
  sql: () => `
ALTER TABLE decisions ADD COLUMN ready_pods INTEGER;
`,
};
