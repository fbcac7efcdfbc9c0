import type { Policy } from '../spec/types.js';
import type { DecisionRecord } from './types.js';

/**
 * The oldest decision time (ISO-8601) `decide` may look at: callers fetch
 * `store.decisions(algorithm, historySince(policy, now))`. Twice the longest cooldown or
 * stabilisation window, so the record that opens a window is included.
 */
export function historySince(policy: Policy, now: Date): string {
  const s = policy.spec.scaling;
  const longest = Math.max(
    s.scaleUp.cooldownSeconds,
    s.scaleUp.stabilizationWindowSeconds,
    s.scaleDown.cooldownSeconds,
    s.scaleDown.stabilizationWindowSeconds,
  );
  return new Date(now.getTime() - 2 * longest * 1000).toISOString();
}

/** Parameters a past recommendation is re-derived with. */
export interface RecommendationBounds {
  min: number;
  max: number;
  minReplicas: number;
  maxReplicas: number;
  step: number;
}

/**
 * The replica count a recorded pass recommended (HPA stabilisation works on recommendations, not
 * on applied changes). A change records its target; a hold because of a cooldown or a
 * stabilisation window recommended what its utilisation asked for; any other hold recommended
 * staying. Null when the record carries no replica count.
 */
export function recommendationOf(record: DecisionRecord, b: RecommendationBounds): number | null {
  if (record.replicasFrom === null) return null;
  if (record.action !== 'hold') return record.replicasTo ?? record.replicasFrom;
  const from = record.replicasFrom;
  if (
    (record.reason === 'CooldownActive' || record.reason === 'StabilizationWindow') &&
    record.utilization !== null
  ) {
    if (record.utilization < b.min) return Math.max(b.minReplicas, Math.min(from, from - b.step));
    if (record.utilization > b.max) return Math.min(b.maxReplicas, Math.max(from, from + b.step));
  }
  return from;
}

/** Time (ms) of the newest record that changed replicas or moved nodes, or null. */
export function lastChangeMs(records: readonly DecisionRecord[], nowMs: number): number | null {
  let last: number | null = null;
  for (const r of records) {
    const changed = r.action === 'relabel' || (r.replicasTo !== null && r.replicasTo !== r.replicasFrom);
    if (!changed) continue;
    const t = Date.parse(r.at);
    if (t <= nowMs && (last === null || t > last)) last = t;
  }
  return last;
}
