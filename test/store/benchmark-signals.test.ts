/**
 * The signal samples of benchmark runs (`Store.recordBenchmarkSignalSample` /
 * `benchmarkSignalSamples`, migration 11, `store/benchmark-signals.ts`) on SQLite (a real file) and
 * a real PostgreSQL server: a sample comes back from another connection as written (a value, or
 * none with its reason), oldest first, only of the algorithm and spec hash asked for.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.js';
import type { BenchmarkSignalSample, Store } from '../../src/store/types.js';
import { storeBackends } from './store-backends.js';

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
    for (const s of [later, none, first, sample({ specHash: 'h2' }), sample({ algorithm: 'other' })])
      await a.recordBenchmarkSignalSample!(s);
    const b = await connect(url);
    // 08:30Z, 09:05Z (10:05+01:00), 10:00Z: by the instant, not the text.
    expect(await b.benchmarkSignalSamples!('llm', 'h1')).toEqual([none, later, first]);
    expect(await b.benchmarkSignalSamples!('llm', 'h3')).toEqual([]);
  });
});
