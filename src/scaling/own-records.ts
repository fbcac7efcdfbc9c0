/**
 * The recorded decisions a kept decision was made on, compared with a later pass's (pure; the
 * decision memo's, `decision-memo.ts`): a kept decision stands only while its records are the
 * same, but for records of its own quiet hold made since and, for an in-band hold, the oldest
 * leaving the history window.
 */
import type { DecisionClock } from './rules/facts.js';
import type { DecisionRecord, ScalingDecision } from './types.js';

/** What {@link onlyOwnRecordsSince} reads of a kept decision (`DecisionEntry`). */
export interface KeptRecords {
  /** Its recorded decisions as they were (kind `scaling`, this algorithm). */
  records: readonly DecisionRecord[];
  decision: ScalingDecision;
  clock: Pick<DecisionClock, 'readsHolds'>;
  /** When it was decided (ms since the epoch). */
  decidedAtMs: number;
}

/** The scaling records of `name` among `recent`, in their order (what the rules read). */
export function ownRecords(recent: readonly DecisionRecord[], name: string): readonly DecisionRecord[] {
  // `decideScaling` hands each algorithm only its own scaling records: no copy then.
  const own = (r: DecisionRecord) => r.kind === 'scaling' && r.subject === name;
  return recent.every(own) ? recent : recent.filter(own);
}

/**
 * `records` is the entry's records (with `aged`, less some of the oldest: those the history window
 * left behind) followed only by records of its own quiet hold made since.
 */
export function onlyOwnRecordsSince(
  entry: KeptRecords,
  records: readonly DecisionRecord[],
  nowMs: number,
  aged = false,
): boolean {
  const all = entry.records;
  // How many of the oldest kept records are gone: the first record now is the kept one there.
  let gone = 0;
  if (aged && records.length > 0) while (gone < all.length && !sameRecord(records[0]!, all[gone]!)) gone++;
  const kept = gone === 0 ? all : all.slice(gone);
  if (records.length < kept.length) return false;
  for (let i = 0; i < kept.length; i++) if (!sameRecord(records[i]!, kept[i]!)) return false;
  if (records.length === kept.length) return true;
  const d = entry.decision;
  if (
    entry.clock.readsHolds ||
    d.action !== 'hold' ||
    d.replicas.to !== d.replicas.from ||
    d.nodes.length > 0
  )
    return false;
  for (let i = kept.length; i < records.length; i++) {
    const r = records[i]!;
    const at = Date.parse(r.at);
    if (!(at >= entry.decidedAtMs && at <= nowMs) || !isRecordOf(r, d)) return false;
  }
  return true;
}

/**
 * True when `r` is the record of `d` (`toDecisionRecord(d, at)`) at any `at`: as
 * `sameRecord(r, toDecisionRecord(d, …), 'at')` answers, without building that record (issue 42:
 * a steady pass compared each in-band hold's own record made since this way, 1,000 a pass). The
 * same number of fields as that record, and each of `r`'s but `at` equal to that record's (a
 * field it lacks reads as undefined, as there).
 */
export function isRecordOf(r: DecisionRecord, d: ScalingDecision): boolean {
  const keys = Object.keys(r) as (keyof DecisionRecord)[];
  // toDecisionRecord's fields (src/scaling/decision-record.ts): 9, and `readyPods` when the decision
  // has it. A field added there must be added here and in recordField.
  if (keys.length !== (d.readyPods === undefined ? 9 : 10)) return false;
  for (const k of keys) if (k !== 'at' && r[k] !== recordField(d, k)) return false;
  return true;
}

/** The field `k` of `toDecisionRecord(d, …)` (undefined where that record has none; `at` not read). */
function recordField(d: ScalingDecision, k: keyof DecisionRecord): unknown {
  switch (k) {
    case 'kind':
      return 'scaling';
    case 'subject':
      return d.algorithm;
    case 'action':
      return d.action;
    case 'reason':
      return d.reason;
    case 'message':
      return d.message;
    case 'replicasFrom':
      return d.replicas.from;
    case 'replicasTo':
      return d.replicas.to;
    case 'utilization':
      return d.utilization;
    case 'readyPods':
      return d.readyPods;
    default:
      return undefined;
  }
}

/** Field by field (every field a record has is a string, a number or null). */
function sameRecord(a: DecisionRecord, b: DecisionRecord): boolean {
  // The same object first: the records a reconciler keeps between passes are handed out again.
  if (a === b) return true;
  const keys = Object.keys(a) as (keyof DecisionRecord)[];
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
}
