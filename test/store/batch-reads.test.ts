/**
 * The Store's batch reads (`benchmarkRunsFor`, `decisionsSince`: one query per pass for every
 * algorithm), on SQLite (a real file) and a real PostgreSQL server (postgres-server.ts). Each
 * answer must equal what the one-subject reads give, subject by subject.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreError } from '../../src/store/errors.js';
import { openStore } from '../../src/store/open-store.js';
import type { BenchmarkRun, DecisionRecord, Store } from '../../src/store/types.js';
import { storeBackends } from '../support/store-backends.js';

const T0 = Date.UTC(2025, 2, 1, 12, 0, 0);
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();

function run(algorithm: string, specHash: string, n: number, startedS: number): BenchmarkRun {
  return {
    algorithm,
    specHash,
    run: n,
    status: n === 3 ? 'Failed' : 'Succeeded',
    durationSeconds: n === 3 ? null : 40 + n + startedS / 1000,
    node: n === 3 ? null : 'gpu-a100-01',
    jobName: `gpuops-bench-${algorithm}-${n}`,
    startedAt: at(startedS),
    finishedAt: n === 3 ? null : at(startedS + 43),
    message: n === 3 ? 'BackoffLimitExceeded' : 'completed',
  };
}

function decision(subject: string, atS: number, replicasTo: number): DecisionRecord {
  return {
    at: at(atS),
    kind: subject === 'pools' ? 'pools' : 'scaling',
    subject,
    action: 'scale-up',
    reason: 'AboveMax',
    message: `utilisation above max; ${replicasTo} replicas`,
    replicasFrom: replicasTo - 1,
    replicasTo,
    utilization: 91.5,
  };
}

const { backends, setup, teardown } = storeBackends('store_batch');
beforeAll(setup, 120_000);
afterAll(teardown);

describe.each(backends)('Store batch reads on $name', (backend) => {
  let store: Store;
  // 30 algorithms: runs at their current hash (a-00…a-29 → h-N) and at an older hash.
  const names = Array.from({ length: 30 }, (_, i) => `a-${String(i).padStart(2, '0')}`);
  beforeAll(async () => {
    store = await openStore(await backend.url());
    for (const [i, name] of names.entries()) {
      if (i % 10 === 9) continue; // never benchmarked at its current hash
      for (const n of [3, 1, 2]) await store.recordBenchmarkRun(run(name, `h-${i}`, n, i * 10 + n * 100));
      await store.recordBenchmarkRun(run(name, 'old-hash', 1, 5));
    }
    const pass = names.flatMap((name, i) => [
      decision(name, i, 2),
      decision(name, 300 + i, 3),
      decision(name, 600 + i, 4),
    ]);
    await store.recordDecisions!(pass);
    await store.recordDecision(decision('pools', 400, 1));
  });
  afterAll(() => store?.close());

  it('benchmarkRunsFor: every algorithm at its hash in one answer, as benchmarkRuns gives each', async () => {
    const keys = names.map((algorithm, i) => ({ algorithm, specHash: `h-${i}` }));
    const got = await store.benchmarkRunsFor(keys);
    expect([...got.keys()].sort()).toEqual(names.filter((_, i) => i % 10 !== 9));
    for (const k of keys) {
      expect(got.get(k.algorithm) ?? []).toStrictEqual(await store.benchmarkRuns(k.algorithm, k.specHash));
    }
    // Oldest first: runs 1, 2, 3 by start time although stored 3, 1, 2.
    expect(got.get('a-04')!.map((r) => r.run)).toEqual([1, 2, 3]);
    expect(got.get('a-04')!.every((r) => r.specHash === 'h-4')).toBe(true);
  });

  it('benchmarkRunsFor: an old hash, an unknown algorithm, a repeated name, no keys', async () => {
    const got = await store.benchmarkRunsFor([
      { algorithm: 'a-01', specHash: 'old-hash' },
      { algorithm: 'nobody', specHash: 'h-1' },
      { algorithm: 'a-02', specHash: 'h-1' },
      { algorithm: 'a-02', specHash: 'h-2' }, // the last hash of a repeated name counts
    ]);
    expect(got.get('a-01')!.map((r) => [r.specHash, r.run])).toEqual([['old-hash', 1]]);
    expect(got.has('nobody')).toBe(false);
    expect(got.get('a-02')!.map((r) => r.specHash)).toEqual(['h-2', 'h-2', 'h-2']);
    expect((await store.benchmarkRunsFor([])).size).toBe(0);
  });

  it('benchmarkRunsVersion: the count and highest id, unchanged by reads, changed by a recorded run', async () => {
    // 27 algorithms × 4 runs recorded in beforeAll, ids 1..108.
    const before = await store.benchmarkRunsVersion!();
    expect(before).toBe('108/108');
    await store.benchmarkRunsFor([{ algorithm: 'a-01', specHash: 'h-1' }]);
    expect(await store.benchmarkRunsVersion!()).toBe(before);
    await store.recordBenchmarkRun(run('a-09', 'h-9', 1, 900));
    expect(await store.benchmarkRunsVersion!()).toBe('109/109');
  });

  it('decisionsSince: each subject at or after since, oldest first, as decisions gives each', async () => {
    const subjects = [...names, 'pools', 'never-decided'];
    // since = at(300 + 5): a-05's second decision is exactly at the boundary and counts.
    const got = await store.decisionsSince(subjects, at(305));
    for (const s of subjects) expect(got.get(s) ?? []).toStrictEqual(await store.decisions(s, at(305)));
    expect(got.get('a-05')!.map((d) => d.replicasTo)).toEqual([3, 4]);
    expect(got.get('a-04')!.map((d) => d.replicasTo)).toEqual([4]);
    expect(got.get('a-06')!.map((d) => d.replicasTo)).toEqual([3, 4]);
    expect(got.get('pools')!.map((d) => d.at)).toEqual([at(400)]);
    expect(got.has('never-decided')).toBe(false);
    expect((await store.decisionsSince(['a-01'], at(601))).get('a-01')!.map((d) => d.at)).toEqual([at(601)]);
    expect((await store.decisionsSince(['a-01'], at(602))).size).toBe(0);
    expect((await store.decisionsSince([], at(0))).size).toBe(0);
  });

  it('decisionsSince rejects a since that is no time, naming the field', async () => {
    const err = await store.decisionsSince(['a-01'], 'yesterday').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect((err as Error).message).toBe('store decisionsSince: since: "yesterday" is not an ISO-8601 time');
  });
});
