/**
 * One Store suite, run against SQLite (a real file) and a real PostgreSQL server
 * (see postgres-server.ts for where it comes from; test/support/store-backends.ts sets both up).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { StoreError } from '../../src/store/errors.js';
import { MIGRATIONS } from '../../src/store/migrations.js';
import { openStore, type OpenStoreOptions } from '../../src/store/open-store.js';
import type {
  BenchmarkRun,
  DecisionRecord,
  PullRequestRecord,
  Store,
  UtilizationSampleRecord,
} from '../../src/store/types.js';
import { schemaAt, storeBackends, storedRecordsSql } from '../support/store-backends.js';
import { makeSnapshot } from './snapshot-factory.js';

const T0 = Date.UTC(2025, 2, 1, 12, 0, 0);
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();

const { backends, setup, teardown } = storeBackends('store_test');
beforeAll(setup, 120_000);
afterAll(teardown);

describe.each(backends)('Store on $name', (backend) => {
  const open: Store[] = [];
  let url = '';
  const fresh = async (options?: OpenStoreOptions) => {
    url = await backend.url();
    const store = await openStore(url, options);
    open.push(store);
    return store;
  };
  const another = async (options?: OpenStoreOptions) => {
    const store = await openStore(url, options);
    open.push(store);
    return store;
  };
  const count = async (table: string) =>
    Number((await backend.raw(url, `SELECT COUNT(*) AS n FROM ${table}`))[0]!.n);
  const records = async (column: 'nodes' | 'pods') =>
    Number((await backend.raw(url, storedRecordsSql(backend.name, column)))[0]!.n);

  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });

  describe('migrations', () => {
    it('applies every migration once and is idempotent when run again', async () => {
      const store = await fresh();
      await store.migrate();
      await store.migrate();
      const rows = await backend.raw(url, 'SELECT id, name FROM schema_migrations ORDER BY id');
      expect(rows.map((r) => [Number(r.id), r.name])).toEqual(MIGRATIONS.map((m) => [m.id, m.name]));
      // A second process opening the same database migrates nothing and keeps the data.
      await store.recordDecision(decision({ at: at(0) }));
      const second = await another();
      expect(await second.decisions('resnet50-infer', at(0))).toHaveLength(1);
    });

    it('two processes migrating an empty database at once apply each migration exactly once', async () => {
      await fresh({ migrate: false });
      const a = await another({ migrate: false });
      const b = await another({ migrate: false });
      await Promise.all([a.migrate(), b.migrate()]);
      expect(await count('schema_migrations')).toBe(MIGRATIONS.length);
      expect(await a.latestSnapshot()).toBeNull();
    });

    it('upgrades a database left at migration 1 by an older gpuops, keeping its data', async () => {
      url = await backend.url();
      await schemaAt(backend, url, 1);
      await backend.raw(url, `INSERT INTO snapshots (taken_at, taken_at_ms) VALUES ('${at(0)}', ${T0})`);
      const store = await another();
      expect(await store.latestSnapshot()).toStrictEqual({ takenAt: at(0), nodes: [], pods: [] });
      const ids = await backend.raw(url, 'SELECT id FROM schema_migrations ORDER BY id');
      expect(ids.map((r) => Number(r.id))).toEqual(MIGRATIONS.map((m) => m.id));
    });

    it.runIf(backend.name === 'postgres')(
      'names the server and --database when the server turns the connection down',
      async () => {
        const good = new URL(await backend.url());
        const server = `${good.hostname}:${good.port}`;
        const turnedDown = async (change: (u: URL) => void) => {
          const u = new URL(good.href);
          change(u);
          return (await openStore(u.href).catch((e: unknown) => e)) as StoreError;
        };
        const password = await turnedDown((u) => (u.password = 'wrong-password'));
        expect(password.operation).toBe('connect');
        expect(password.message).toBe(
          `cannot connect to PostgreSQL at ${server} (--database): password authentication failed for user "${good.username}"`,
        );
        const database = await turnedDown((u) => (u.pathname = '/no_such_db'));
        expect(database.message).toBe(
          `cannot connect to PostgreSQL at ${server} (--database): database "no_such_db" does not exist`,
        );
      },
    );

    it('refuses a database migrated by a newer gpuops', async () => {
      await fresh();
      await backend.raw(
        url,
        `INSERT INTO schema_migrations (id, name, applied_at) VALUES (999, 'future', 'x')`,
      );
      const err = await another().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StoreError);
      expect((err as StoreError).operation).toBe('migrate');
      const latest = Math.max(...MIGRATIONS.map((m) => m.id));
      expect((err as Error).message).toContain(
        `schema migration 999, newer than this gpuops knows (${latest})`,
      );
    });
  });

  describe('snapshots', () => {
    it('has no snapshot before the first is saved', async () => {
      const store = await fresh();
      expect(await store.latestSnapshot()).toBeNull();
    });

    it('round-trips a snapshot exactly, node and pod order included', async () => {
      const store = await fresh();
      const snapshot = makeSnapshot(40, 300);
      // Edge values that a lossy encoding would change.
      snapshot.nodes[0]!.labels = { 'a.b/c': 'x"y\\z', 'gpuops.dev/pool': 'test', empty: '' };
      snapshot.nodes[1]!.taints = [{ key: 'dedicated', effect: 'PreferNoSchedule' }];
      snapshot.nodes[2]!.labels = {};
      snapshot.pods[0]!.labels = {
        'app.kubernetes.io/name': "o'brien; DROP TABLE snapshots;--",
        ünï: 'çødé',
      };
      snapshot.warnings = [
        'Node gpu-node-00007: status.allocatable["nvidia.com/gpu"] "8x" is not a quantity',
      ];
      const id = await store.saveSnapshot(snapshot);
      expect(id).toBeGreaterThan(0);
      const back = await store.latestSnapshot();
      expect(back).toStrictEqual(snapshot);
      // A snapshot without warnings comes back without the property, one with none as [].
      const plain = makeSnapshot(2, 2, at(60));
      await store.saveSnapshot(plain);
      expect(await store.latestSnapshot()).toStrictEqual(plain);
      await store.saveSnapshot({ ...plain, takenAt: at(120), warnings: [] });
      expect((await store.latestSnapshot())?.warnings).toEqual([]);
      expect(back!.nodes.map((n) => n.name)).toEqual(snapshot.nodes.map((n) => n.name));
      expect(back!.nodes[1]!.taints[0]).not.toHaveProperty('value');
    });

    it('round-trips a snapshot larger than one insert batch (6,000 pods)', async () => {
      const store = await fresh();
      const snapshot = makeSnapshot(600, 6_000);
      await store.saveSnapshot(snapshot);
      expect(await store.latestSnapshot()).toStrictEqual(snapshot);
    });

    it('returns the snapshot taken last, not the one saved last, and ids grow', async () => {
      const store = await fresh();
      const later = makeSnapshot(2, 1, '2025-03-01T12:05:00Z');
      const earlier = makeSnapshot(3, 2, '2025-03-01T12:00:00Z');
      const id1 = await store.saveSnapshot(later);
      const id2 = await store.saveSnapshot(earlier);
      expect(id2).toBeGreaterThan(id1);
      expect((await store.latestSnapshot())?.takenAt).toBe('2025-03-01T12:05:00Z');
      // The same instant written with an offset is ordered by the instant, not the text.
      await store.saveSnapshot(makeSnapshot(1, 0, '2025-03-01T13:10:00+01:00'));
      expect((await store.latestSnapshot())?.takenAt).toBe('2025-03-01T13:10:00+01:00');
    });

    it('keeps only the newest N snapshots, with their nodes and pods', async () => {
      const store = await fresh({ keepSnapshots: 3 });
      for (let i = 0; i < 5; i++) await store.saveSnapshot(makeSnapshot(4 + i, 10, at(i * 60)));
      expect(await count('snapshots')).toBe(3);
      expect(await records('nodes')).toBe(6 + 7 + 8);
      expect(await records('pods')).toBe(30);
      const kept = await backend.raw(url, 'SELECT taken_at FROM snapshots ORDER BY taken_at_ms');
      expect(kept.map((r) => r.taken_at)).toEqual([at(120), at(180), at(240)]);
    });

    it('saves a snapshot equal to the last one whole, also after another writer deleted that one', async () => {
      const store = await fresh({ keepSnapshots: 5 });
      const same = (t: string) => ({ ...makeSnapshot(3, 7), takenAt: t });
      await store.saveSnapshot(same(at(0)));
      await store.saveSnapshot(same(at(60))); // equal content: shares the first one's rows
      expect(await store.latestSnapshot()).toStrictEqual(same(at(60)));
      expect(await records('pods')).toBe(7);
      // Another process keeping one snapshot saves a later, different one: ours are gone.
      const other = await another({ keepSnapshots: 1 });
      await other.saveSnapshot(makeSnapshot(1, 2, at(120)));
      expect(await records('pods')).toBe(2);
      // Equal to our last again, whose rows no longer exist: written in full, nothing half-copied.
      await store.saveSnapshot(same(at(180)));
      expect(await store.latestSnapshot()).toStrictEqual(same(at(180)));
      expect(await records('nodes')).toBe(1 + 3);
      expect(await records('pods')).toBe(2 + 7);
      // A changed snapshot after an equal one is written as it is, not copied.
      const moved = same(at(240));
      moved.pods[3]!.phase = 'Pending';
      await store.saveSnapshot(moved);
      expect(await store.latestSnapshot()).toStrictEqual(moved);
    });

    it('rejects a snapshot with a bad time and writes nothing', async () => {
      const store = await fresh();
      const err = await store.saveSnapshot(makeSnapshot(1, 1, 'yesterday')).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StoreError);
      expect((err as Error).message).toBe('store saveSnapshot: takenAt: "yesterday" is not an ISO-8601 time');
      expect(await count('snapshots')).toBe(0);
    });

    it('refuses a snapshot whose pod lacks a required field, naming it, and writes nothing', async () => {
      const store = await fresh();
      const bad = makeSnapshot(2, 3);
      (bad.pods[2] as { namespace: string | null }).namespace = null;
      await expect(store.saveSnapshot(bad)).rejects.toThrow(
        new StoreError('saveSnapshot', 'pod 2: namespace must not be null'),
      );
      expect(await count('snapshots')).toBe(0);
      expect(await records('nodes')).toBe(0);
    });
  });

  describe('benchmark runs', () => {
    it('returns the runs of one algorithm at one spec hash, oldest first', async () => {
      const store = await fresh();
      const r2 = benchmarkRun({ run: 2, startedAt: at(600), durationSeconds: 612.25, finishedAt: at(1212) });
      const r1 = benchmarkRun({ run: 1, startedAt: at(0), durationSeconds: 598.5, finishedAt: at(598) });
      const r3 = benchmarkRun({
        run: 3,
        startedAt: at(1300),
        status: 'TimedOut',
        durationSeconds: null,
        finishedAt: null,
        node: null,
        gpuProduct: null,
        message: 'Job exceeded activeDeadlineSeconds (3600 s)',
      });
      for (const r of [r2, r3, r1]) await store.recordBenchmarkRun(r);
      await store.recordBenchmarkRun(benchmarkRun({ specHash: 'sha256:other', startedAt: at(5) }));
      await store.recordBenchmarkRun(benchmarkRun({ algorithm: 'bert-train', startedAt: at(5) }));
      expect(await store.benchmarkRuns('resnet50-infer', 'sha256:abc123')).toStrictEqual([r1, r2, r3]);
      expect(await store.benchmarkRuns('resnet50-infer', 'sha256:none')).toEqual([]);
    });
  });

  describe('utilisation samples', () => {
    it('returns samples at or after since, oldest first, for one algorithm', async () => {
      const store = await fresh();
      const s = (pod: string, utilization: number, when: string, algorithm = 'resnet50-infer') =>
        ({
          algorithm,
          namespace: 'gpuops-workloads',
          pod,
          utilization,
          at: when,
        }) satisfies UtilizationSampleRecord;
      const samples = [
        s('p-1', 87.5, at(30)),
        s('p-0', 12, at(0)),
        s('p-2', 0, at(60)),
        s('p-3', 100, '2025-03-01T13:00:45+01:00'), // = at(45)
        s('q-0', 55, at(40), 'bert-train'),
      ];
      await store.saveSamples(samples);
      await store.saveSamples([]);
      expect(await store.samples('resnet50-infer', at(30))).toStrictEqual([
        samples[0],
        samples[3],
        samples[2],
      ]);
      expect(await store.samples('resnet50-infer', at(0))).toHaveLength(4);
      expect(await store.samples('bert-train', at(0))).toStrictEqual([samples[4]]);
      expect(await store.samples('resnet50-infer', at(61))).toEqual([]);
    });

    it('prunes samples older than the retention cut-off and keeps the rest', async () => {
      const store = await fresh();
      const samples = Array.from({ length: 10 }, (_, i) => ({
        algorithm: i % 2 ? 'a' : 'b',
        namespace: 'ns',
        pod: `p-${i}`,
        utilization: i * 10,
        at: at(i * 3600),
      }));
      await store.saveSamples(samples);
      expect(await store.prune!(at(4 * 3600))).toBe(4);
      expect(await store.prune!(at(4 * 3600))).toBe(0);
      expect((await store.samples('a', at(0))).map((x) => x.pod)).toEqual(['p-5', 'p-7', 'p-9']);
      expect((await store.samples('b', at(0))).map((x) => x.pod)).toEqual(['p-4', 'p-6', 'p-8']);
    });

    it('reads back a pass whose samples share a time, but a few, as saved (time text as given)', async () => {
      const store = await fresh();
      const pass = (first: string) =>
        Array.from({ length: 60 }, (_, i) => ({
          algorithm: `a-${i % 3}`,
          namespace: 'ns',
          pod: `p-${i}`,
          utilization: i === 7 ? 0 : 40 + i / 7,
          at: i % 25 === 9 ? at(10) : i === 0 ? first : at(0),
        }));
      // The second pass's first time is another spelling of the same instant as the rest.
      const spelled = '2025-03-01T13:00:00+01:00';
      await store.saveSamples(pass(at(0)));
      await store.saveSamples(pass(spelled).map((x) => ({ ...x, pod: `${x.pod}-b` })));
      const all = [...pass(at(0)), ...pass(spelled).map((x) => ({ ...x, pod: `${x.pod}-b` }))];
      const byTime = (xs: UtilizationSampleRecord[]) =>
        [...xs].sort((x, y) => Date.parse(x.at) - Date.parse(y.at) || 0);
      for (const a of ['a-0', 'a-1', 'a-2'])
        expect(await store.samples(a, at(-1))).toStrictEqual(byTime(all.filter((x) => x.algorithm === a)));
    });

    it('rejects a batch with one bad time and stores none of it', async () => {
      const store = await fresh();
      const good = { algorithm: 'a', namespace: 'ns', pod: 'p', utilization: 50, at: at(0) };
      const err = await store.saveSamples([good, { ...good, at: '' }]).catch((e: unknown) => e);
      expect((err as Error).message).toBe('store saveSamples: at: "" is not an ISO-8601 time');
      expect(await store.samples('a', at(-1))).toEqual([]);
    });
  });

  describe('decisions', () => {
    it('returns decisions on one subject at or after since, oldest first', async () => {
      const store = await fresh();
      const d1 = decision({
        at: at(0),
        action: 'scale-up',
        replicasFrom: 2,
        replicasTo: 3,
        utilization: 91.5,
      });
      const d2 = decision({
        at: at(300),
        action: 'hold',
        reason: 'InsufficientSamples',
        message: 'only 2 of 5 pods reported “utilisation”; not scaling on partial data',
        replicasFrom: null,
        replicasTo: null,
        utilization: null,
      });
      const d3 = decision({
        at: at(600),
        action: 'scale-down',
        replicasFrom: 3,
        replicasTo: 2,
        utilization: 8,
      });
      const other = decision({ at: at(100), subject: 'pools', kind: 'pools', action: 'relabel' });
      for (const d of [d3, other, d1, d2]) await store.recordDecision(d);
      expect(await store.decisions('resnet50-infer', at(0))).toStrictEqual([d1, d2, d3]);
      expect(await store.decisions('resnet50-infer', at(300))).toStrictEqual([d2, d3]);
      expect(await store.decisions('pools', at(0))).toStrictEqual([other]);
    });

    it('recordDecisions stores a pass of decisions at once, read back like one by one', async () => {
      const store = await fresh();
      const pass = Array.from({ length: 250 }, (_, i) =>
        decision({ at: at(i), subject: `alg-${String(i % 50).padStart(2, '0')}`, replicasTo: i }),
      );
      await store.recordDecisions!(pass);
      await store.recordDecisions!([]);
      const mine = await store.decisions('alg-07', at(0));
      expect(mine).toStrictEqual(pass.filter((d) => d.subject === 'alg-07'));
      expect(mine.map((d) => d.replicasTo)).toEqual([7, 57, 107, 157, 207]);
    });

    it('recordDecisions reads back a pass at one time, but a few, as saved', async () => {
      const store = await fresh();
      const pass = Array.from({ length: 40 }, (_, i) =>
        decision({
          at: i % 13 === 5 ? at(20) : at(0),
          subject: `alg-${i % 4}`,
          message: `utilisation ${i} % "quoted" é`,
          replicasFrom: i % 3 === 0 ? null : i,
          utilization: i % 4 === 0 ? null : i + 0.25,
        }),
      );
      await store.recordDecisions!(pass);
      for (const subject of ['alg-0', 'alg-1', 'alg-2', 'alg-3'])
        expect(await store.decisions(subject, at(-1))).toStrictEqual([
          ...pass.filter((d) => d.subject === subject && d.at === at(0)),
          ...pass.filter((d) => d.subject === subject && d.at === at(20)),
        ]);
    });

    it('recordDecisions is all or none: a bad record stores none of the pass', async () => {
      const store = await fresh();
      const bad = decision({ at: 'not a time' });
      const err = await store.recordDecisions!([decision({ at: at(0) }), bad]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Error);
      expect(await store.decisions('resnet50-infer', at(0))).toEqual([]);
    });
  });

  describe('pull requests', () => {
    it('upserts by (cluster, branch) and lists a cluster newest first', async () => {
      const store = await fresh();
      const placement = pullRequest({ branch: 'gpuops/placement-resnet50-infer', updatedAt: at(0) });
      const pools = pullRequest({
        branch: 'gpuops/pools',
        kind: 'pools',
        subject: 'pools',
        updatedAt: at(60),
      });
      const elsewhere = pullRequest({ cluster: 'staging', branch: 'gpuops/pools', updatedAt: at(120) });
      await store.upsertPullRequest(placement);
      await store.upsertPullRequest(pools);
      await store.upsertPullRequest(elsewhere);
      expect(await store.pullRequests('prod')).toStrictEqual([pools, placement]);

      const merged = {
        ...placement,
        state: 'merged' as const,
        desiredHash: 'sha256:def',
        updatedAt: at(180),
      };
      await store.upsertPullRequest(merged);
      expect(await store.pullRequests('prod')).toStrictEqual([merged, pools]);
      expect(await store.pullRequests('staging')).toStrictEqual([elsewhere]);
      expect(await store.pullRequests('dev')).toEqual([]);
      expect(await count('pull_requests')).toBe(3);
    });

    it('reads one branch of one cluster alone, as the list holds it', async () => {
      const store = await fresh();
      const placement = pullRequest({ branch: 'gpuops/placement-resnet50-infer', updatedAt: at(0) });
      const pools = pullRequest({
        branch: 'gpuops/pools',
        kind: 'pools',
        subject: 'pools',
        updatedAt: at(60),
      });
      const elsewhere = pullRequest({
        cluster: 'staging',
        branch: 'gpuops/pools',
        title: 'staging',
        updatedAt: at(120),
      });
      for (const pr of [placement, pools, elsewhere]) await store.upsertPullRequest(pr);
      expect(await store.pullRequest!('prod', 'gpuops/pools')).toStrictEqual(pools);
      expect(await store.pullRequest!('staging', 'gpuops/pools')).toStrictEqual(elsewhere);
      expect(await store.pullRequest!('prod', 'gpuops/placement-resnet50-infer')).toStrictEqual(placement);
      expect(await store.pullRequest!('staging', 'gpuops/placement-resnet50-infer')).toBeNull();
      const closed = {
        ...pools,
        state: 'closed' as const,
        number: 7,
        url: 'https://x/7',
        updatedAt: at(180),
      };
      await store.upsertPullRequest(closed);
      expect(await store.pullRequest!('prod', 'gpuops/pools')).toStrictEqual(closed);
      for (const cluster of ['prod', 'staging'])
        for (const r of await store.pullRequests(cluster))
          expect(await store.pullRequest!(cluster, r.branch)).toStrictEqual(r);
    });
  });

  it('reports a call on a closed store as a StoreError naming the operation', async () => {
    const store = await fresh();
    await store.close();
    open.splice(open.indexOf(store), 1);
    const err = await store.decisions('x', at(0)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect((err as StoreError).operation).toBe('decisions');
  });
});

describe('openStore', () => {
  it('creates the folder of a SQLite file and keeps data across opens', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gpuops-open-'));
    try {
      const url = `sqlite:${path.join(dir, 'a', 'b', 'state.db')}`;
      const first = await openStore(url);
      await first.recordDecision(decision({ at: at(0) }));
      await first.close();
      const second = await openStore(url);
      expect(await second.decisions('resnet50-infer', at(0))).toHaveLength(1);
      await second.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('opens a private in-memory SQLite database with sqlite::memory:', async () => {
    const a = await openStore('sqlite::memory:');
    const b = await openStore('sqlite::memory:');
    await a.recordDecision(decision({ at: at(0) }));
    expect(await b.decisions('resnet50-infer', at(0))).toEqual([]);
    await Promise.all([a.close(), b.close()]);
  });

  it.each([
    ['mysql://admin:hunter2@db:3306/gpuops', 'unsupported database URL "mysql://***@db:3306/gpuops"'],
    ['state.db', 'unsupported database URL "state.db"'],
    ['sqlite:', 'has no file path'],
  ])('rejects %s with a clear error', async (url, message) => {
    const err = await openStore(url).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect((err as Error).message).toContain(message);
    expect((err as Error).message).not.toContain('hunter2');
  });

  it('rejects a keepSnapshots below 1', async () => {
    await expect(openStore('sqlite::memory:', { keepSnapshots: 0 })).rejects.toThrow(/keepSnapshots/);
  });

  it('reports an unreachable PostgreSQL without its password', async () => {
    const err = await openStore('postgresql://gpuops:s3cret-pw@127.0.0.1:1/gpuops').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect((err as StoreError).operation).toBe('connect');
    expect((err as Error).message).toBe(
      'cannot connect to PostgreSQL at 127.0.0.1:1 (--database): connection refused',
    );
    expect(JSON.stringify(err) + String(err) + (err as Error).stack).not.toContain('s3cret-pw');
  });
});

function decision(over: Partial<DecisionRecord> & { at: string }): DecisionRecord {
  return {
    kind: 'scaling',
    subject: 'resnet50-infer',
    action: 'scale-up',
    reason: 'AboveTarget',
    message: 'utilisation 91.5% above target 70% for 300 s',
    replicasFrom: 2,
    replicasTo: 3,
    utilization: 91.5,
    ...over,
  };
}

function benchmarkRun(over: Partial<BenchmarkRun>): BenchmarkRun {
  return {
    algorithm: 'resnet50-infer',
    specHash: 'sha256:abc123',
    run: 1,
    status: 'Succeeded',
    durationSeconds: 42.5,
    node: 'gpu-a100-01',
    gpuProduct: 'NVIDIA-A100-SXM4-80GB',
    jobName: 'gpuops-bench-resnet50-infer-1a2b3c4d',
    startedAt: at(0),
    finishedAt: at(43),
    message: 'completed',
    ...over,
  };
}

function pullRequest(over: Partial<PullRequestRecord>): PullRequestRecord {
  return {
    cluster: 'prod',
    branch: 'gpuops/placement',
    kind: 'placement',
    subject: 'resnet50-infer',
    title: 'gpuops: place resnet50-infer on short-task',
    body: 'Run time 42.5 s < 600 s threshold.\n\n| node | pool |\n|---|---|',
    desiredHash: 'sha256:abc',
    number: 17,
    url: 'https://github.com/acme/gitops/pull/17',
    state: 'open',
    updatedAt: at(0),
    ...over,
  };
}
