/**
 * History retention (`Store.pruneHistory`, `store/history-retention.ts`, `pass/history-prune.ts`) on SQLite (a real file) and a
 * real PostgreSQL server: decisions and utilisation samples recorded before the cut go, those at
 * or after it stay and read back whole, the counts say what went, and a second prune deletes
 * nothing. A reconcile pass prunes through `recordPass` (test/pass covers the pass).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.js';
import type { DecisionRecord, Store, UtilizationSampleRecord } from '../../src/store/types.js';
import { storeBackends } from '../support/store-backends.js';

const T0 = Date.UTC(2026, 11, 1, 10, 0, 0);
const at = (s: number) => new Date(T0 + s * 1000).toISOString();

const decision = (subject: string, t: number): DecisionRecord => ({
  kind: 'scaling',
  subject,
  action: 'hold',
  reason: 'WithinRange',
  message: `held at ${t}`,
  replicasFrom: 2,
  replicasTo: 2,
  utilization: 50,
  at: at(t),
});
const sample = (algorithm: string, t: number): UtilizationSampleRecord => ({
  algorithm,
  namespace: 'ml',
  pod: `${algorithm}-0`,
  utilization: 40 + t / 100,
  at: at(t),
});

const { backends, setup, teardown } = storeBackends('retention');
beforeAll(setup, 120_000);
afterAll(teardown);

describe.each(backends)('history retention on $name', (backend) => {
  const open: Store[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });

  it('deletes what was recorded before the cut, keeps the cut itself and after', async () => {
    const s = await openStore(await backend.url(), { keepSnapshots: 2 });
    open.push(s);
    const times = [0, 30, 59, 60, 61, 90];
    for (const name of ['a', 'b']) {
      await s.recordDecisions!(times.map((t) => decision(name, t)));
      await s.saveSamples(times.map((t) => sample(name, t)));
    }
    expect(await s.pruneHistory!(at(60))).toEqual({ decisions: 6, samples: 6 });
    for (const name of ['a', 'b']) {
      expect((await s.decisions(name, at(0))).map((d) => d.at)).toEqual([at(60), at(61), at(90)]);
      expect(await s.samples(name, at(0))).toEqual([60, 61, 90].map((t) => sample(name, t)));
    }
    expect(await s.pruneHistory!(at(60))).toEqual({ decisions: 0, samples: 0 });
    expect(await s.pruneHistory!(at(61))).toEqual({ decisions: 2, samples: 2 });
    expect((await s.decisionsSince(['a', 'b'], at(0))).get('b')!.map((d) => d.message)).toEqual([
      'held at 61',
      'held at 90',
    ]);
  });

  it('an empty history prunes nothing; a time that is not ISO-8601 names the operation', async () => {
    const s = await openStore(await backend.url(), { keepSnapshots: 2 });
    open.push(s);
    expect(await s.pruneHistory!(at(0))).toEqual({ decisions: 0, samples: 0 });
    await expect(s.pruneHistory!('yesterday')).rejects.toThrow(/pruneHistory/);
  });
});
