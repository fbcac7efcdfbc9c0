/**
 * A number the store is given comes back as the same double (Object.is), on both backends, from
 * the batch writes a pass makes (`saveSamples`, `recordDecisions`) and the single one. The table
 * holds doubles SQLite's JSON batch insert stored one ULP off (found among random utilisations:
 * its text-to-double conversion is not correctly rounded), and the hard cases of any conversion:
 * 17 significant digits, 0.1 + 0.2, subnormals, the extremes. −0 is left out: SQLite stores it as
 * the integer 0 (and so does a bound parameter), so no store keeps its sign.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.js';
import type { DecisionRecord, Store, UtilizationSampleRecord } from '../../src/store/types.js';
import { storeBackends } from '../support/store-backends.js';

/** Each stored 1 ULP off by SQLite's JSON path (`value->>3` of `json_each`). */
const OFF_BY_ONE_ULP = [
  4.039324002358748, 90.6038880471393, 45.05833764859835, 25.17352760120888, 28.27096424594877,
  87.7216815283711, 57.45803247091985, 4.368344486877485, 78.0856787247263, 23.45090109381165,
  12.86202704932884, 55.75913129816308, 7.238502133119185, 33.89908876778183, 17.71510324696923,
];

const HARD = [
  0.1 + 0.2,
  0.1,
  1 / 3,
  100 / 7,
  99.99999999999999,
  1.0000000000000002,
  123.45678901234567,
  1e-300,
  5e-324,
  2.2250738585072014e-308,
  2.225073858507201e-308,
  1.7976931348623157e308,
  1e23,
  9007199254740992,
  9007199254740994,
  // A large utilisation ratio (a pod far above its request).
  12345.678901234567,
  -37.5,
  0,
];

const VALUES = [...OFF_BY_ONE_ULP, ...HARD];
const T0 = Date.UTC(2026, 11, 7, 8, 0, 0);
const at = (s: number) => new Date(T0 + s * 1000).toISOString();

const { backends, setup, teardown } = storeBackends('exact_numbers');
beforeAll(setup, 120_000);
afterAll(teardown);

/** The values that did not come back as the same double, as `[given, read]`. */
function notExact(given: readonly number[], read: readonly (number | null)[]): [number, number | null][] {
  return given.flatMap((v, i) =>
    Object.is(v, read[i]) ? [] : [[v, read[i] ?? null] as [number, number | null]],
  );
}

const decision = (u: number, i: number, s: number): DecisionRecord => ({
  kind: 'scaling',
  subject: `alg-${i}`,
  action: 'hold',
  reason: 'WithinRange',
  message: `utilisation ${u}`,
  replicasFrom: 2,
  replicasTo: 2,
  utilization: u,
  at: at(s),
});

describe.each(backends)('numbers on $name come back bit for bit', (backend) => {
  const open: Store[] = [];
  const fresh = async () => {
    const store = await openStore(await backend.url());
    open.push(store);
    return store;
  };
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });

  it('saveSamples: every utilisation of one pass, and of a batch with two times', async () => {
    const store = await fresh();
    const one: UtilizationSampleRecord[] = VALUES.map((u, i) => ({
      algorithm: 'a',
      namespace: 'ns',
      pod: `p-${i}`,
      utilization: u,
      at: at(0),
    }));
    // Two times in one batch: the rows after the change of time carry their own.
    const two = VALUES.map((u, i) => ({ ...one[i]!, algorithm: 'b', at: at(i % 2 === 0 ? 10 : 20) }));
    await store.saveSamples(one);
    await store.saveSamples(two);
    const read = await store.samples('a', at(0));
    expect(read.map((s) => s.pod)).toEqual(one.map((s) => s.pod));
    expect(
      notExact(
        VALUES,
        read.map((s) => s.utilization),
      ),
    ).toEqual([]);
    const readTwo = await store.samples('b', at(0));
    const byPod = new Map(readTwo.map((s) => [s.pod, s]));
    expect(
      notExact(
        VALUES,
        two.map((s) => byPod.get(s.pod)?.utilization ?? null),
      ),
    ).toEqual([]);
    expect(two.map((s) => byPod.get(s.pod)?.at)).toEqual(two.map((s) => s.at));
  });

  it('recordDecisions and recordDecision: every utilisation', async () => {
    const store = await fresh();
    const batch = VALUES.map((u, i) => decision(u, i, 0));
    await store.recordDecisions!(batch);
    for (const [i, u] of VALUES.entries()) await store.recordDecision(decision(u, i, 30));
    const read = await store.decisionsSince(
      batch.map((d) => d.subject),
      at(0),
    );
    const first = batch.map((d) => read.get(d.subject)?.[0]?.utilization ?? null);
    const single = batch.map((d) => read.get(d.subject)?.[1]?.utilization ?? null);
    expect(notExact(VALUES, first)).toEqual([]);
    expect(notExact(VALUES, single)).toEqual([]);
    expect(read.get('alg-0')).toEqual([decision(VALUES[0]!, 0, 0), decision(VALUES[0]!, 0, 30)]);
  });
});
