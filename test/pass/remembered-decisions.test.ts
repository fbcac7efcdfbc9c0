/**
 * The recorded decisions a pass reads back for the scaling windows, from the reconciler's memory
 * (`rememberedDecisions`: the kept read plus the records from the last stored pass on) against
 * the store's own read (`decisionsSince`), on SQLite (a real file) and a real PostgreSQL server:
 * after every pass of a run the two are equal, subject by subject and in order (every utilisation
 * the same double: among them values SQLite's old JSON batch insert stored one ULP off), and
 * while this reconciler is the one writer the memory read asks the store nothing on SQLite (its
 * `decisionsMark` says no other record came in) and only from the last stored pass on on
 * PostgreSQL (which has no mark).
 * Another writer (a replica that led meanwhile, with its clock ahead, behind by less than its
 * term, or the same), a dry run, a failed write, a longer window, a new subject, a gap longer than
 * the window: each reads in full, and the answer is still the store's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReconcilerMemory, type ReconcilerMemory } from '../../src/plan/memory.js';
import { rememberedDecisions, rememberStoredDecisions } from '../../src/pass/remembered-decisions.js';
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

/** Utilisations SQLite's JSON batch insert stored one ULP off (test/store/exact-numbers.test.ts). */
const OFF_BY_ONE_ULP = [
  4.039324002358748, 90.6038880471393, 45.05833764859835, 25.17352760120888, 28.27096424594877,
];

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
      ...(store.decisionsMark ? { decisionsMark: () => store.decisionsMark!() } : {}),
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
      store: c.store,
      asked: c.asked,
      async pass(s: number, o: { store?: boolean; window?: number; names?: string[]; fail?: boolean } = {}) {
        const names = o.names ?? subjects;
        const since = sinceOf(s, o.window);
        const remembered = await rememberedDecisions(c.store, names, since, memory);
        const read = await store.decisionsSince(names, since);
        expect(remembered).toStrictEqual(read);
        const us = (m: Map<string, DecisionRecord[]>) =>
          names.flatMap((n) => m.get(n) ?? []).map((d) => d.utilization);
        expect(us(remembered).every((u, i) => Object.is(u, us(read)[i]))).toBe(true);
        if (o.store === false) return remembered;
        const records = names.map((n, i) =>
          record(n, s, i === 0 ? OFF_BY_ONE_ULP[((s / 30) % 5) | 0]! : 40 + ((s / 30 + i) % 7) * 0.3),
        );
        if (o.fail) return remembered; // the write failed: nothing stored, nothing noted
        await store.recordDecisions!(records);
        rememberStoredDecisions(memory, records, await store.decisionsMark?.());
        return remembered;
      },
    };
  }

  const marked = backend.name === 'sqlite';
  /** What a pass that may use the memory asks: nothing with a mark, else from the pass `s` on. */
  const fromPass = (s: number) => (marked ? [] : [at(s)]);

  it('a steady run reads back nothing (SQLite) or only the last stored pass, and equals the store every pass', async () => {
    const r = reconciler(['steady-a', 'steady-b', 'steady-c']);
    for (let s = 0; s <= 900; s += 30) await r.pass(s);
    // The first pass reads from its window; each later one nothing, or from the pass before it.
    expect(r.asked[0]).toBe(sinceOf(0));
    expect(r.asked.slice(1)).toEqual(Array.from({ length: 30 }, (_, i) => fromPass(i * 30)).flat());
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
    // SQLite: the mark moved by one more than this reconciler stored, so all is read; PostgreSQL:
    // from the stored pass on, one record more than stored, then all.
    expect(r.asked.slice(asked)).toEqual(marked ? [sinceOf(1020)] : [at(990), sinceOf(1020)]);
    expect(after.get(names[1]!)!.some((d) => d.action === 'scale-up')).toBe(true);
    await r.pass(1050); // and from the memory again
    expect(r.asked.slice(asked + (marked ? 1 : 2))).toEqual(fromPass(1020));
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
    expect(r.asked.slice(asked)).toEqual(fromPass(3120));
    asked = r.asked.length;
    await r.pass(5000, { names: [...names, 'g-c'] });
    expect(r.asked.slice(asked)).toEqual([sinceOf(5000)]);
    // Fewer subjects than read: from the memory.
    asked = r.asked.length;
    await r.pass(5030, { names: ['g-b'] });
    expect(r.asked.slice(asked)).toEqual(fromPass(5000));
  });

  // PostgreSQL has no mark: its read from the stored pass on cannot see this record (docs/performance.md).
  it.runIf(marked)(
    'another writer between the read and the write (the mark moved by more): read next pass',
    async () => {
      const names = ['between-a', 'between-b'];
      const r = reconciler(names);
      await r.pass(6000);
      await r.pass(6030);
      const asked = r.asked.length;
      // A record of another writer's, at an older time, lands after this reconciler read: the
      // read from the stored pass on cannot see it (its time is before), the mark can.
      const remembered = await rememberedDecisions(r.store, names, sinceOf(6060), r.memory);
      await store.recordDecisions!([record('between-a', 6050, 12.5, 'scale-down')]);
      const records = names.map((n) => record(n, 6060, 50));
      await store.recordDecisions!(records);
      rememberStoredDecisions(r.memory, records, await store.decisionsMark?.());
      expect(remembered.get('between-a')).toHaveLength(2);
      const next = await r.pass(6090);
      expect(next.get('between-a')!.map((d) => d.action)).toEqual(['hold', 'hold', 'scale-down', 'hold']);
      expect(r.asked.slice(asked)).toEqual([sinceOf(6090)]);
    },
  );

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
