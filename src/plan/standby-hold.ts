/**
 * Hysteresis of a standby set's size (pure; docs/standby.md): the size `ceil(β·√ΣL / …)` moves
 * across a ceil boundary with every small wobble of ΣL, and each move would open or update a pull
 * request and delete or backfill a standby (a cold start). So a set grows at once, as the headroom
 * rule's scale-up does, and shrinks only to a size every pass of the last scale-down window asked
 * no more than: the window is `standbyHoldSeconds` (`scaling/rules/claim.ts`), the policy's own
 * `scaleDown.stabilizationWindowSeconds` on every loop, the one the replay's standby fleet holds
 * its set with (never one sized to the loop: the set is the spare for the load's own swings, the
 * rule of a claim's scale-down windows, `claimPolicy`).
 *
 * The past sizes come from the stored scaling decisions of the set's algorithms (`recent`, the
 * records every pass stores and the scaling rule's own windows read back): a pass's ΣL is, over
 * the set's algorithms it recorded, utilisation × the Ready pods it was judged over × `gpus` / 100
 * (the record's `readyPods` through `podsJudged`, `recentPeak`'s reading, which errs high while
 * replicas start: towards holding). They survive a
 * restart and need no memory of the reconciler. The lower size must hold since the pass that opens
 * the window (the newest at or before now − window): with a history shorter than the window the
 * set keeps its size.
 *
 * Each size a pass plans is stored too (kind `standby`, subject `standby/<set>`: Git's pods → the
 * size the pass planned, one per pass that planned a change, {@link standbySizeRecord}), the set's
 * own history beside its algorithms' decisions. Since the hold is the policy's own window on every
 * loop (`standbyHoldSeconds`), no pass reads them back: the status page's recent decisions show them.
 */
import type { StandbySet } from '../definitions/index.js';
import { podsJudged, standbyReplicas } from '../scaling/index.js';
import type { DecisionRecord } from '../scaling/index.js';
import type { StandbyEvidence } from '../change-sets/index.js';

/** The subject of a standby set's size records: `standby/<set>`, as its change set's subject (never an algorithm's name). */
export function standbySubject(set: Pick<StandbySet, 'name'>): string {
  return `standby/${set.name}`;
}

/**
 * The record of a pass's planned size of a standby set (kind `standby`, subject
 * {@link standbySubject}, action `scale-up`/`scale-down`, `replicasFrom` Git's pods, `replicasTo`
 * the planned size, at `now`), or null when the pass planned no change (the same size, or a set
 * Git does not hold yet: its first size is no reversal of anything).
 */
export function standbySizeRecord(evidence: StandbyEvidence, now: Date): DecisionRecord | null {
  const { from, to } = evidence.replicas;
  if (from === null || from === to) return null;
  const up = to > from;
  return {
    kind: 'standby',
    subject: standbySubject({ name: evidence.set }),
    action: up ? 'scale-up' : 'scale-down',
    reason: up ? 'StandbyGrows' : 'StandbyShrinks',
    message: `standby set ${evidence.set}: ${from} → ${to} pod(s) for ΣL ${evidence.loadGpus ?? 'n/a'} GPU(s) at β ${evidence.beta}`,
    replicasFrom: from,
    replicasTo: to,
    utilization: null,
    at: now.toISOString(),
  };
}

/** The size each past pass of the set asked for, by its time (ms), from the set's algorithms' records. */
export function pastStandbySizes(
  records: readonly DecisionRecord[],
  set: StandbySet,
  beta: number,
  max: number,
): Map<number, number> {
  const names = new Set(set.algorithms);
  const load = new Map<number, number>();
  for (const r of records) {
    if (r.kind !== 'scaling' || !names.has(r.subject)) continue;
    if (r.utilization === null || r.replicasFrom === null) continue;
    const t = Date.parse(r.at);
    if (Number.isNaN(t)) continue;
    const pods = podsJudged(r)!;
    load.set(t, (load.get(t) ?? 0) + (r.utilization / 100) * pods * set.gpus);
  }
  const out = new Map<number, number>();
  for (const [t, l] of load) out.set(t, standbyReplicas(l, beta, set.gpus, max));
  return out;
}

/**
 * The size the set keeps: `sized` (this pass's) when it is at least `from` (Git's replicas; null:
 * the set is new) — growth at once; else the highest size asked by the passes from the one that
 * opens the window (the newest at or before `nowMs − windowSeconds`) to now, `sized` included, at
 * most `from`; `from` when no pass opens the window (a history shorter than the window). A
 * window of 0 (the policy's turned off) shrinks at once.
 */
export function heldStandbySize(
  from: number | null,
  sized: number,
  past: ReadonlyMap<number, number>,
  nowMs: number,
  windowSeconds: number,
): number {
  if (from === null || sized >= from || windowSeconds <= 0) return sized;
  const start = nowMs - windowSeconds * 1000;
  let opener: number | null = null;
  for (const t of past.keys()) if (t <= start && (opener === null || t > opener)) opener = t;
  if (opener === null) return from;
  let held = sized;
  for (const [t, size] of past) if (t >= opener && t <= nowMs) held = Math.max(held, size);
  return Math.min(from, held);
}
