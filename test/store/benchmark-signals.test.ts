/**
 * The signal samples of benchmark runs (`Store.recordBenchmarkSignalSample` /
 * `benchmarkSignalSamples`, migration 11, `store/benchmark-signals.ts`) on SQLite (a real file) and
 * a real PostgreSQL server: a sample comes back from another connection as written (a value, or
 * none with its reason), oldest first, only of the algorithm and spec hash asked for; a write keeps
 * every sample of its spec hash and drops the algorithm's samples of other spec hashes.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.js';
import type { BenchmarkSignalSample, Store } from '../../src/store/types.js';
import { storeBackends } from '../support/store-backends.js';

const { backends, setup, teardown } = storeBackends('benchsignals');
beforeAll(setup, 120_000);
afterAll(teardown);

const sample = (o: Partial<BenchmarkSignalSample>): BenchmarkSignalSample => ({
  algorithm: 'llm',
  specHash: 'h1',
  run: 1,
  jobName: 'llm-bench-h1-1',
  pod: 'llm-bench-h1-1-abcde',
  signal: 'gpuUtil',
  unit: '%',
  at: '2026-12-06T10:00:00.000Z',
  value: 82.5,
  reason: null,
  ...o,
});

describe.each(backends)('benchmark signal samples on $name', (backend) => {
  const open: Store[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });
  const connect = async (url: string) => {
    const s = await openStore(url);
    await s.migrate();
    open.push(s);
    return s;
  };

  it('round-trips values, no-value samples with their reason and service-metric units, oldest first', async () => {
    const url = await backend.url();
    const a = await connect(url);
    const later = sample({
      at: '2026-12-06T10:05:00+01:00',
      value: 0.123456789,
      signal: 'serviceMetric:rps',
      unit: 'requests/s',
    });
    const none = sample({
      at: '2026-12-06T08:30:00.000Z',
      run: 2,
      jobName: 'llm-bench-h1-2',
      value: null,
      reason: 'Empty: no series for pod algorithms/llm-bench-h1-2-x',
    });
    const first = sample({});
    for (const s of [sample({ specHash: 'h2' }), later, none, first, sample({ algorithm: 'other' })])
      await a.recordBenchmarkSignalSample!(s);
    const b = await connect(url);
    // 08:30Z, 09:05Z (10:05+01:00), 10:00Z: by the instant, not the text.
    expect(await b.benchmarkSignalSamples!('llm', 'h1')).toEqual([none, later, first]);
    expect(await b.benchmarkSignalSamples!('llm', 'h3')).toEqual([]);
  });
  it('a write at a spec hash drops the algorithm’s samples of other hashes, keeps every one of its own and other algorithms’ (failed before: 5 rows of h1 stayed)', async () => {
    const url = await backend.url();
    const a = await connect(url);
    const old = [1, 2, 3, 4, 5].map((i) => sample({ at: `2026-12-06T09:0${i}:00.000Z`, run: i }));
    for (const s of old) await a.recordBenchmarkSignalSample!(s);
    const other = sample({ algorithm: 'other', at: '2026-12-06T09:30:00.000Z' });
    await a.recordBenchmarkSignalSample!(other);
    // The spec changed: the first sample of the new hash is the one write that trims.
    const h2 = [0, 1, 2].map((i) =>
      sample({ specHash: 'h2', at: `2026-12-06T10:0${i}:00.000Z`, run: i + 1 }),
    );
    await a.recordBenchmarkSignalSample!(h2[0]!);
    const count = async (where: string) =>
      Number(
        (await backend.raw(url, `SELECT count(*) AS n FROM benchmark_signal_samples WHERE ${where}`))[0]!.n,
      );
    expect(await count(`algorithm = 'llm' AND spec_hash = 'h1'`)).toBe(0);
    await a.recordBenchmarkSignalSample!(h2[1]!);
    await a.recordBenchmarkSignalSample!(h2[2]!);
    // Every sample of the hash being written stays (the proposed band reads them all).
    expect(await a.benchmarkSignalSamples!('llm', 'h2')).toEqual(h2);
    expect(await a.benchmarkSignalSamples!('other', 'h1')).toEqual([other]);
    expect(await count('true')).toBe(4);
    // Back to the old spec: its samples were of a hash that was not current, so they are gone.
    await a.recordBenchmarkSignalSample!(old[0]!);
    expect(await a.benchmarkSignalSamples!('llm', 'h2')).toEqual([]);
    expect(await a.benchmarkSignalSamples!('llm', 'h1')).toEqual([old[0]]);
  });
});
