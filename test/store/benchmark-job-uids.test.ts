/**
 * The uids of the benchmark Jobs gpuops created (`Store.recordBenchmarkJobUid` /
 * `benchmarkJobOwner`, migration 10, `store/benchmark-job-uids.ts`) on SQLite (a real file) and a
 * real PostgreSQL server: a record is known from a new connection (a restart, another replica),
 * a Job made again under its name replaces it, records past the retention go, and a store
 * upgraded from migration 9 says since when it records.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BENCHMARK_JOB_UID_RETENTION_MS } from '../../src/store/benchmark-job-uids.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/types.js';
import { schemaAt, storeBackends } from '../support/store-backends.js';

const T0 = Date.UTC(2026, 11, 1);
const at = (ms: number) => new Date(T0 + ms).toISOString();

const { backends, setup, teardown } = storeBackends('jobuids');
beforeAll(setup, 120_000);
afterAll(teardown);

describe.each(backends)('benchmark Job uids on $name', (backend) => {
  const open: Store[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });
  const connect = async (url: string) => {
    const s = await openStore(url);
    open.push(s);
    return s;
  };

  it('a record is known from another connection, by namespace and name; a Job made again replaces it', async () => {
    const url = await backend.url();
    const before = Date.now();
    const a = await connect(url);
    await a.recordBenchmarkJobUid!({
      namespace: 'algorithms',
      jobName: 'bench-a-1',
      uid: 'uid-1',
      at: at(0),
    });
    await a.recordBenchmarkJobUid!({ namespace: 'team-b', jobName: 'bench-a-1', uid: 'uid-2', at: at(0) });
    const b = await connect(url);
    const owner = await b.benchmarkJobOwner!('algorithms', 'bench-a-1');
    expect(owner.uid).toBe('uid-1');
    // Since the migration ran on this store: now, give or take the test's own run.
    const since = Date.parse(owner.recordingSince!);
    expect(since).toBeGreaterThanOrEqual(before - 1000);
    expect(since).toBeLessThanOrEqual(Date.now());
    expect((await b.benchmarkJobOwner!('team-b', 'bench-a-1')).uid).toBe('uid-2');
    expect((await b.benchmarkJobOwner!('algorithms', 'bench-a-2')).uid).toBeNull();
    await b.recordBenchmarkJobUid!({
      namespace: 'algorithms',
      jobName: 'bench-a-1',
      uid: 'uid-3',
      at: at(1000),
    });
    expect((await a.benchmarkJobOwner!('algorithms', 'bench-a-1')).uid).toBe('uid-3');
    expect((await a.benchmarkJobOwner!('team-b', 'bench-a-1')).uid).toBe('uid-2');
  });

  it('records older than the retention go with a new one; younger ones stay', async () => {
    const s = await connect(await backend.url());
    await s.recordBenchmarkJobUid!({ namespace: 'algorithms', jobName: 'old', uid: 'u-old', at: at(0) });
    await s.recordBenchmarkJobUid!({ namespace: 'algorithms', jobName: 'young', uid: 'u-young', at: at(2) });
    await s.recordBenchmarkJobUid!({
      namespace: 'algorithms',
      jobName: 'new',
      uid: 'u-new',
      at: at(BENCHMARK_JOB_UID_RETENTION_MS + 1),
    });
    expect((await s.benchmarkJobOwner!('algorithms', 'old')).uid).toBeNull();
    expect((await s.benchmarkJobOwner!('algorithms', 'young')).uid).toBe('u-young');
    expect((await s.benchmarkJobOwner!('algorithms', 'new')).uid).toBe('u-new');
  });

  it('a store upgraded from migration 9 records from its upgrade on, not from its first migration', async () => {
    const url = await backend.url();
    await schemaAt(backend, url, 9);
    const before = Date.now();
    const s = await connect(url); // opening migrates
    expect(await s.appliedMigrations()).toContain(10);
    const owner = await s.benchmarkJobOwner!('algorithms', 'bench-a-1');
    expect(owner.uid).toBeNull();
    expect(Date.parse(owner.recordingSince!)).toBeGreaterThanOrEqual(before - 1000);
    const [nine] = await backend.raw(url, 'SELECT applied_at FROM schema_migrations WHERE id = 9');
    expect(nine!.applied_at).toBe('2026-01-01T00:00:00Z');
  });
});
