import type { Policy } from '../definitions/index.js';
import { replicasNeeded } from './size-for-load.js';
import { headroomReplicas } from './headroom-replicas.js';
import { podsJudged } from './judged-over.js';
import type { DecisionRecord } from './types.js';
import { isoMs } from './iso-ms.js';

/**
 * Holds whose utilisation was judged over every Ready pod and that were not stopped by a limit:
 * with `load` sizing each recommended the replicas its load needed, as the HPA recommends on every
 * sync. The rest (partial data, at a replica limit, no data) recommended staying.
 */
const LOAD_RECOMMENDING: ReadonlySet<string> = new Set([
  'WithinRange',
  'CooldownActive',
  'StabilizationWindow',
  'PodsStarting',
  'WouldFlap',
]);

/**
 * The oldest decision time (ISO-8601) `decideOne` may look at: callers fetch
 * `store.decisions(algorithm, historySince(policy, now))`. Twice the longest cooldown,
 * stabilisation window, scale-down peak window or flap hold, so the record that opens a window is
 * included (and both changes of a reversal whose hold has not ended: `reversalHoldEndMs`).
 */
export function historySince(policy: Policy, now: Date): string {
  const s = policy.spec.scaling;
  const longest = Math.max(
    s.scaleUp.cooldownSeconds,
    s.scaleUp.stabilizationWindowSeconds,
    s.scaleDown.cooldownSeconds,
    s.scaleDown.stabilizationWindowSeconds,
    s.scaleDown.peakWindowSeconds ?? 0,
    s.headroomFlapHoldSeconds,
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
  /**
   * `load` sizing: a hold that carried a utilisation recommended the replicas the load needed
   * (see `recommendationOf`); `step` (or absent): the step rule.
   */
  sizing?: 'step' | 'load' | 'headroom';
  /** Target utilisation of `load` sizing (percent); absent: the middle of min and max. */
  target?: number;
  /** `headroom` sizing: β (`scaling.headroomFactor`) and GPUs per pod (absent: 0 and 1). */
  headroomFactor?: number;
  /**
   * `headroom` sizing, a scale-down's window: `scaling.headroomDownMargin`, added to β for a pass
   * at or above `min` (a pass below `min` recommended the target at β, see `rules/headroom.ts`
   * `downFacts`); absent: 0.
   */
  headroomDownMargin?: number;
  gpus?: number;
}

/** Holds that do not recommend a count of their own under `headroom` sizing: they stay. */
const HEADROOM_STAYING: ReadonlySet<string> = new Set(['InsufficientSamples', 'NoData', 'AtMaxReplicas']);

/**
 * β a headroom scale-down sizes at for a load at `utilization` percent: β + `headroomDownMargin`
 * at or above `min` (the hysteresis band), β below it (`rules/headroom.ts` `downFacts`). Absent
 * factors count 0.
 */
export function downBeta(b: RecommendationBounds, utilization: number): number {
  return (b.headroomFactor ?? 0) + (utilization < b.min ? 0 : (b.headroomDownMargin ?? 0));
}

/**
 * The most replicas of `gpusPerPod` GPUs each that `loadGpus` keeps at or above `minPercent` each
 * (`floor(L × 100 / (gpus × min))`, float noise of 1e-9 forgiven: 1.2 GPUs at min 30 % keep 4);
 * Infinity when `minPercent` ≤ 0 (every count is in band).
 */
export function bandEdgeReplicas(loadGpus: number, gpusPerPod: number, minPercent: number): number {
  if (!(minPercent > 0)) return Infinity;
  return Math.floor((Math.max(0, loadGpus) * 100) / (Math.max(1, gpusPerPod) * minPercent) + 1e-9);
}

/**
 * The replicas a headroom scale-down goes to for `loadGpus` judged at `utilization` percent (the
 * pool's summed load `poolLoadGpus` shares the spare, as in `headroomReplicas`):
 * - at or above `min`: the target at β + `headroomDownMargin` (the hysteresis band);
 * - below `min`: the margin still keeps its spare, but no replica that would hold the utilisation
 *   below `min`: the target at β + margin, at most the band's edge ({@link bandEdgeReplicas}), and
 *   never less than the target at β (the up target). Why: a below-min scale-down that drops the
 *   margin altogether lands on the up target, where the next rise of the load saturates the pods
 *   and reverses it inside the flap hold (`rules/flap-hold.ts`'s saturated exception); the edge
 *   alone keeps the band's promise that no count holds the pods below `min`.
 * Margin 0 (or absent): the target at β on both sides.
 */
export function downReplicas(
  loadGpus: number,
  utilization: number,
  b: RecommendationBounds,
  poolLoadGpus?: number,
): number {
  const g = b.gpus ?? 1;
  const at = (beta: number) =>
    headroomReplicas(loadGpus, beta, g, b.max, b.minReplicas, b.maxReplicas, poolLoadGpus);
  const beta = b.headroomFactor ?? 0;
  const margin = b.headroomDownMargin ?? 0;
  const withMargin = at(beta + margin);
  if (utilization >= b.min || margin <= 0) return withMargin;
  return Math.max(at(beta), Math.min(withMargin, bandEdgeReplicas(loadGpus, g, b.min)));
}

/**
 * The replicas `loadGpus` needs at β + `headroomDownMargin` (the hysteresis band's whole spare),
 * on either side of `min`: what a recorded headroom scale-down recommends in the scale-down window
 * (see {@link recommendationOf}). Absent factors count 0.
 */
export function spareReplicas(loadGpus: number, b: RecommendationBounds): number {
  const beta = (b.headroomFactor ?? 0) + (b.headroomDownMargin ?? 0);
  return headroomReplicas(loadGpus, beta, b.gpus ?? 1, b.max, b.minReplicas, b.maxReplicas);
}

/**
 * The replica count a recorded pass recommended (HPA stabilisation works on recommendations, not
 * on applied changes). A change records its target. With `load` sizing a hold that judged every
 * Ready pod (see `LOAD_RECOMMENDING`) recommended the replicas its load needed,
 * `ceil(replicasFrom × utilisation / target)` within `minReplicas..maxReplicas`, as the HPA
 * recommends on every sync: so an in-band pass below the target no longer keeps a scale-down
 * window shut, and one above it does. `replicasFrom` stands for the Ready pods the utilisation was
 * judged over (while replicas start it is more, so the recommendation errs high: towards holding).
 * With `headroom` sizing every hold that carried a utilisation (but a partial-data, no-data or
 * at-maxReplicas hold) recommended `headroomReplicas` of its load, `utilisation × replicasFrom ×
 * gpus / 100` GPUs (erring high while replicas start, as above), at β + `headroomDownMargin` when
 * its utilisation was at or above `min` and below it at most the band's edge ({@link downReplicas};
 * exactly `min` takes the margin).
 * With `step` sizing a hold because of a cooldown or a stabilisation window recommended one step
 * in the direction its utilisation asked for. Any other hold recommended staying. Null when the
 * record carries no replica count.
 *
 * One exception to "a change records its target": with `headroom` sizing a scale-down that
 * carried a utilisation recommends the replicas its load (`utilisation × replicasFrom × gpus /
 * 100` GPUs) needs at β + margin, the band's whole spare on either side of `min`
 * ({@link spareReplicas}; below `min` without the band's edge), not the count it went to. So a
 * scale-down no longer keeps the window shut at its own count for the whole window: a load that
 * keeps falling is followed once the scale-down cooldown has passed (the flap hold's one-replica
 * guard, `rules/flap-hold.ts` `repeatedScaleDown`, bounds how far), while a scale-up still keeps
 * its count (no up → down reversal within the window).
 */
export function recommendationOf(record: DecisionRecord, b: RecommendationBounds): number | null {
  if (record.replicasFrom === null) return null;
  const from = record.replicasFrom;
  if (b.sizing === 'headroom' && record.action === 'scale-down' && record.utilization !== null)
    return spareReplicas((record.utilization * from * (b.gpus ?? 1)) / 100, b);
  if (record.action !== 'hold') return record.replicasTo ?? record.replicasFrom;
  if (b.sizing === 'headroom' && record.utilization !== null && !HEADROOM_STAYING.has(record.reason)) {
    const g = b.gpus ?? 1;
    return downReplicas((record.utilization * from * g) / 100, record.utilization, b);
  }
  if (b.sizing === 'load' && record.utilization !== null && LOAD_RECOMMENDING.has(record.reason)) {
    const needed = replicasNeeded(from, record.utilization, b.min, b.max, b.target);
    return Math.min(b.maxReplicas, Math.max(b.minReplicas, needed));
  }
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
    const t = isoMs(r.at);
    if (t <= nowMs && (last === null || t > last)) last = t;
  }
  return last;
}

/**
 * When the policy's own windows stop standing in for the loop's after a reversal (epoch ms), or
 * null when no reversal holds them at `nowMs`. A reversal is counted as the replay counts a flap
 * (`changesAndFlaps`, `src/replay/figures.ts`): a replica change at or before `nowMs` whose
 * direction is opposite to the change before it and made less than `seconds` after it (exactly
 * `seconds` apart is no reversal). It holds for `seconds` from the reversing change: a hold
 * exactly `seconds` old has ended, as a cooldown has (null), one millisecond less holds.
 * `seconds` is the policy's own flap window (`scaling.headroomFlapHoldSeconds`); 0: off. Why: the
 * windows sized to the loop assume the load turns no faster than the loop sees its changes; a
 * reversal within the policy's flap window shows it did, so the policy's windows stand until
 * that window has passed without one. Changes are the records that changed the replica count
 * (a node move alone is none), ordered by time.
 */
export function reversalHoldEndMs(
  records: readonly DecisionRecord[],
  nowMs: number,
  seconds: number,
): number | null {
  const changes: { t: number; dir: number }[] = [];
  for (const r of records) {
    if (r.replicasFrom === null || r.replicasTo === null || r.replicasTo === r.replicasFrom) continue;
    const t = isoMs(r.at);
    if (t <= nowMs) changes.push({ t, dir: Math.sign(r.replicasTo - r.replicasFrom) });
  }
  changes.sort((a, b) => a.t - b.t);
  const ms = seconds * 1000;
  for (let i = changes.length - 1; i > 0; i--) {
    const { t, dir } = changes[i]!;
    if (nowMs - t >= ms) return null;
    const before = changes[i - 1]!;
    if (dir !== before.dir && t - before.t < ms) return t + ms;
  }
  return null;
}

/** The highest load of a peak window (see {@link recentPeak}). */
export interface RecentPeak {
  /** GPU-percent: utilisation × replicas (100 = one GPU fully busy). */
  load: number;
  /** The record it came from: its utilisation (percent), replica count and time (ISO-8601). */
  utilization: number;
  replicas: number;
  at: string;
}

/**
 * The highest load recorded in the last `seconds` before `nowMs` (ms), for the scale-down peak
 * rule (policy `scaling.scaleDown.peakWindowSeconds`): over the records with a utilisation and a
 * replica count, `utilization × pods` (GPU-percent), where `pods` are the Ready pods the
 * utilisation was judged over as the record carries them (`readyPods`; `podsJudged`), at most
 * `replicasFrom`; a record without them stands for `replicasFrom` (errs high while replicas
 * start: towards holding, as in `recommendationOf`). Right after a scale-up the Ready
 * pods are the old count, so the new replicas do not inflate the peak. `replicas` in the answer
 * is that pod count. A record exactly `seconds` old is inside the window
 * (the peak errs towards holding); records after `nowMs` are not. The first of equal peaks wins.
 * Null when `seconds` ≤ 0 or no record of the window carries both numbers (no evidence: the rule
 * does not apply; missing data is the other rules' business).
 */
export function recentPeak(
  records: readonly DecisionRecord[],
  nowMs: number,
  seconds: number,
): RecentPeak | null {
  if (seconds <= 0) return null;
  const start = nowMs - seconds * 1000;
  let peak: RecentPeak | null = null;
  for (const r of records) {
    if (r.utilization === null || r.replicasFrom === null) continue;
    const t = isoMs(r.at);
    if (t < start || t > nowMs) continue;
    const pods = podsJudged(r)!;
    const load = r.utilization * pods;
    if (peak === null || load > peak.load)
      peak = { load, utilization: r.utilization, replicas: pods, at: r.at };
  }
  return peak;
}
