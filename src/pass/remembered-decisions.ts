/**
 * The recorded decisions the scaling windows read back each pass (`decisionsSince` over twice the
 * longest window), from the reconciler's memory where it can say what the store holds: the read
 * of the last pass plus the records that pass stored. Three ways, cheapest first:
 * - **kept, no read** (a store with `decisionsMark`, SQLite): the mark has moved by exactly the
 *   records this reconciler stored since its last read, so no other writer's record came in; the
 *   kept records are the store's (its numbers are stored bit for bit, `sqlite-batch-insert.ts`).
 * - **read from the last stored pass on** (a store without a mark: PostgreSQL): the records at or
 *   after the stored pass's time are read, and used when there are as many as were stored. It
 *   cannot see another writer's record of an older time (a clock behind) stored after the last
 *   read; on SQLite the mark does, so there a mark that moved by more reads in full.
 * - **read in full**: a new reconciler (a restart), a dry run, a failed write, a longer window, a
 *   new subject, or another writer's records (a replica that led meanwhile, `reconcile --once`).
 * The Lease (`controller/leader-election.ts`) keeps two replicas' passes apart, but the store is
 * not behind its write fence and a person may run a one-shot pass: another writer is possible, so
 * the memory is used only while a read would give the same.
 */
import type { ReconcilerMemory, RememberedDecisions } from '../plan/index.js';
import type { DecisionRecord, Store } from '../store/index.js';
import { decisionAsStored } from '../store/index.js';

/**
 * What `store.decisionsSince(subjects, since)` gives, from `memory` where it can (the module
 * comment says when); keeps what it returns in `memory` for the next pass, with the store's mark
 * read first (`rememberStoredDecisions` adds what the pass stores).
 * @throws what `decisionsSince` and `decisionsMark` throw (the memory is then empty: the next
 *   pass reads all)
 */
export async function rememberedDecisions(
  store: Pick<Store, 'decisionsSince' | 'decisionsMark'>,
  subjects: readonly string[],
  since: string,
  memory: Pick<ReconcilerMemory, 'decisions'>,
): Promise<Map<string, DecisionRecord[]>> {
  const kept = memory.decisions;
  memory.decisions = undefined;
  const sinceMs = Date.parse(since);
  // Read before the records: a write between the two shows as a mark moved by more than ours.
  const mark = store.decisionsMark ? await store.decisionsMark() : undefined;
  const usable = kept && keptCovers(kept, subjects, sinceMs) ? kept : null;
  // With a mark, the memory is used only when it says no other record came in: the read from the
  // stored pass on cannot see another writer's record of an older time stored after the last read.
  const read =
    usable && mark !== undefined
      ? keptSinceStored(usable, subjects, sinceMs, mark)
      : usable
        ? await readSinceStored(store, usable, subjects, sinceMs)
        : null;
  const bySubject = read ?? (await store.decisionsSince(subjects, since));
  memory.decisions = {
    sinceMs,
    subjects: new Set(subjects),
    bySubject,
    ...(mark === undefined ? {} : { mark }),
  };
  return bySubject;
}

/** Whether `kept` and what its pass stored cover the read of `subjects` from `sinceMs`. */
function keptCovers(kept: RememberedDecisions, subjects: readonly string[], sinceMs: number): boolean {
  const stored = kept.stored;
  if (!stored || !(sinceMs >= kept.sinceMs && sinceMs <= stored.atMs)) return false;
  return subjects.every((s) => kept.subjects.has(s));
}

/**
 * The records since `sinceMs` from `kept` and what its pass stored, without a read: null unless
 * the store's mark is the one after that write (nothing since) and the write was the only one
 * since the kept read, and every kept record is no later than the stored pass (the store's order).
 */
function keptSinceStored(
  kept: RememberedDecisions,
  subjects: readonly string[],
  sinceMs: number,
  mark: number,
): Map<string, DecisionRecord[]> | null {
  const stored = kept.stored!;
  if (!stored.records || stored.mark !== mark) return null;
  const out = new Map<string, DecisionRecord[]>();
  for (const s of subjects) {
    const before = kept.bySubject.get(s) ?? [];
    const last = before[before.length - 1];
    if (last && Date.parse(last.at) > stored.atMs) return null;
    let from = 0;
    while (from < before.length && Date.parse(before[from]!.at) < sinceMs) from++;
    const mine = stored.records.get(s) ?? [];
    const records = [...before.slice(from), ...mine];
    if (records.length > 0) out.set(s, records);
  }
  return out;
}

/** The records since `sinceMs` from `kept` and a read from its stored pass on; null when they cannot be (see above). */
async function readSinceStored(
  store: Pick<Store, 'decisionsSince'>,
  kept: RememberedDecisions,
  subjects: readonly string[],
  sinceMs: number,
): Promise<Map<string, DecisionRecord[]> | null> {
  const stored = kept.stored!;
  const newer = await store.decisionsSince(subjects, stored.at);
  // Records are only added (pruning takes those before `since`): one more than stored is another writer's.
  for (const s of new Set(subjects))
    if ((newer.get(s)?.length ?? 0) !== (stored.count.get(s) ?? 0)) return null;
  const out = new Map<string, DecisionRecord[]>();
  for (const s of subjects) {
    const before = kept.bySubject.get(s) ?? [];
    // Oldest first: drop those before `since` from the front, stop at the stored pass.
    let from = 0;
    while (from < before.length && Date.parse(before[from]!.at) < sinceMs) from++;
    let to = before.length;
    while (to > from && Date.parse(before[to - 1]!.at) >= stored.atMs) to--;
    const records = [...before.slice(from, to), ...(newer.get(s) ?? [])];
    if (records.length > 0) out.set(s, records);
  }
  return out;
}

/**
 * Notes in `memory` the records a pass stored (after `rememberedDecisions` read the ones before
 * them): all at one time, the pass's. Records of another time, or no read kept, leave no note.
 * With `markAfter` (the store's `decisionsMark` read after the write) moved from the read's mark
 * by exactly these records, the records themselves are kept too, as the store reads them back
 * (`decisionAsStored`), so the next pass need not read them.
 */
export function rememberStoredDecisions(
  memory: Pick<ReconcilerMemory, 'decisions'>,
  records: readonly DecisionRecord[],
  markAfter?: number,
): void {
  const kept = memory.decisions;
  if (!kept || records.length === 0) return;
  const at = records[0]!.at;
  if (records.some((r) => r.at !== at)) return;
  const count = new Map<string, number>();
  for (const r of records) count.set(r.subject, (count.get(r.subject) ?? 0) + 1);
  kept.stored = { atMs: Date.parse(at), at, count };
  if (markAfter === undefined || kept.mark === undefined || markAfter - kept.mark !== records.length) return;
  const bySubject = new Map<string, DecisionRecord[]>();
  for (const r of records) {
    const list = bySubject.get(r.subject);
    if (list) list.push(decisionAsStored(r));
    else bySubject.set(r.subject, [decisionAsStored(r)]);
  }
  kept.stored.records = bySubject;
  kept.stored.mark = markAfter;
}
