/**
 * The recorded decisions a pass reads back for the scaling windows, from the reconciler's memory
 * (`rememberedDecisions`: the kept read plus the records from the last stored pass on) against
 * the store's own read (`decisionsSince`), on SQLite (a real file) and a real PostgreSQL server:
 * after every pass of a run the two are equal, subject by subject and in order, and the memory
 * read asks the store only from the last stored pass on while this reconciler is the one writer.
 * Another writer (a replica that led meanwhile, with its clock ahead, behind by less than its
 * term, or the same), a dry run, a failed write, a longer window, a new subject, a gap longer than
 * the window: each reads in full, and the answer is still the store's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReconcilerMemory, type ReconcilerMemory } from '../../src/plan/memory.js';
import { rememberedDecisions, rememberStoredDecisions } from '../../src/pass/remembered-reads.js';
import { openStore } from '../../src/store/open-store.js';
import type { DecisionRecord, Store } from '../../src/store/types.js';
import { prng } from '../../src/util/prng.js';
import { storeBackends } from '../support/store-backends.js';

const T0 = Date.UTC(2026, 11, 6, 12, 0, 0);
const at = (s: number) => new Date(T0 + s * 1000).toISOString();
/** The scaling windows' read: twice a 300 s window before the pass. */
const sinceOf = (s: number, window = 300) => at(s - 2 * window);

function record(subject: string, atS: number, utilization: number, action = 'hold'): DecisionRecord {
  return {
    kind: 'scaling',
    subject,
    action,
    reason: 'WithinRange',
    message: `utilisation ${utilization} % within the band`,
    replicasFrom: 2,
    replicasTo: action === 'hold' ? 2 : 3,
    utilization,
    at: at(atS),
  };
}

/** The store with each `decisionsSince`'s `since` noted (what the memory read asked for). */
function counted(store: Store) {
  const asked: string[] = [];
  return {
    asked,
    store: {
      decisionsSince: (subjects: readonly string[], since: string) => {
        asked.push(since);
        return store.decisionsSince(subjects, since);
      },
    },
  };
}

const { backends, setup, teardown } = storeBackends('remembered_decisions');
beforeAll(setup, 120_000);
afterAll(teardown);

describe.each(backends)('remembered decisions on $name', (backend) => {
  let store: Store;
  beforeAll(async () => {
    store = await openStore(await backend.url());
  });
  afterAll(() => store?.close());

  /** Runs a reconciler's passes: read (memory and store compared), then store its records. */
  function reconciler(subjects: string[]) {
    const memory: ReconcilerMemory = createReconcilerMemory();
    const c = counted(store);
    return {
      memory,
      asked: c.asked,
      async pass(s: number, o: { store?: boolean; window?: number; names?: string[]; fail?: boolean } = {}) {
        const names = o.names ?? subjects;
        const since = sinceOf(s, o.window);
        const remembered = await rememberedDecisions(c.store, names, since, memory);
        expect(remembered).toEqual(await store.decisionsSince(names, since));
        if (o.store === false) return remembered;
        const records = names.map((n, i) => record(n, s, 40 + ((s / 30 + i) % 7) * 0.3));
        if (o.fail) return remembered; // the write failed: nothing stored, nothing noted
        await store.recordDecisions!(records);
        rememberStoredDecisions(memory, records);
        return remembered;
      },
    };
  }

  it('a steady run reads back only the last stored pass, and equals the store every pass', async () => {
    const r = reconciler(['steady-a', 'steady-b', 'steady-c']);
    for (let s = 0; s <= 900; s += 30) await r.pass(s);
    // The first pass reads from its window; each later one from the pass before it.
    expect(r.asked[0]).toBe(sinceOf(0));
    expect(r.asked.slice(1)).toEqual(Array.from({ length: 30 }, (_, i) => at(i * 30)));
    const last = await r.pass(930);
    expect(last.get('steady-a')).toHaveLength(20); // 600 s of passes every 30 s, from 330 s to 900 s
  });

  it.each([
    ['another writer ahead of this clock', 1010],
    ['another writer at the time of the last stored pass', 990],
    ['another writer since the last stored pass, its clock behind by less than its term', 995],
  ])('%s: read in full, equal to the store', async (_, foreignS) => {
    const names = [`w-${foreignS}-a`, `w-${foreignS}-b`];
    const r = reconciler(names);
    for (let s = 900; s <= 1000; s += 30) await r.pass(s);
    // Another replica led and wrote (this one ran no pass meanwhile), then this one leads again.
    await store.recordDecisions!([record(names[1]!, foreignS, 77, 'scale-up')]);
    const asked = r.asked.length;
    const after = await r.pass(1020);
    expect(r.asked.slice(asked)).toEqual([at(990), sinceOf(1020)]);
    expect(after.get(names[1]!)!.some((d) => d.action === 'scale-up')).toBe(true);
    await r.pass(1050); // and from the memory again
    expect(r.asked.at(-1)).toBe(at(1020));
  });

  it.each([
    ['a dry run (nothing stored)', { store: false }],
    ['a failed write', { fail: true }],
  ])('after %s the next pass reads in full', async (name, o) => {
    const names = [`d-${name.length}-a`];
    const r = reconciler(names);
    await r.pass(2000);
    await r.pass(2030, o);
    const asked = r.asked.length;
    await r.pass(2060);
    expect(r.asked.slice(asked)).toEqual([sinceOf(2060)]);
  });

  it('a longer window, a new subject, a gap longer than the window: read in full', async () => {
    const names = ['g-a', 'g-b'];
    const r = reconciler(names);
    for (let s = 3000; s <= 3060; s += 30) await r.pass(s);
    let asked = r.asked.length;
    await r.pass(3090, { window: 600 });
    expect(r.asked.slice(asked)).toEqual([sinceOf(3090, 600)]);
    await r.pass(3120, { names: [...names, 'g-c'] });
    asked = r.asked.length;
    await r.pass(3150, { names: [...names, 'g-c'] });
    expect(r.asked.slice(asked)).toEqual([at(3120)]);
    asked = r.asked.length;
    await r.pass(5000, { names: [...names, 'g-c'] });
    expect(r.asked.slice(asked)).toEqual([sinceOf(5000)]);
    // Fewer subjects than read: from the memory.
    asked = r.asked.length;
    await r.pass(5030, { names: ['g-b'] });
    expect(r.asked.slice(asked)).toEqual([at(5000)]);
  });

  it('random runs: passes, dry runs, failed writes, windows, subjects and other writers ahead', async () => {
    const rand = prng(42);
    const pool = ['p-a', 'p-b', 'p-c', 'p-d'];
    const r = reconciler(pool);
    let s = 10_000;
    for (let i = 0; i < 60; i++) {
      s += 5 + Math.floor(rand() * 60);
      const names = pool.filter(() => rand() < 0.8);
      const dice = rand();
      if (dice < 0.1)
        await store.recordDecisions!([record(pool[Math.floor(rand() * 4)]!, s - Math.floor(rand() * 5), 99)]);
      await r.pass(s, {
        names,
        store: !(dice > 0.9),
        fail: dice > 0.85 && dice <= 0.9,
        window: rand() < 0.1 ? 120 : 300,
      });
    }
  });
});
