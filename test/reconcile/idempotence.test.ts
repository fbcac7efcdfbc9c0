/**
 * Issue 5, done-when: running the pass twice with unchanged input, the second run makes no commit,
 * no push and no writing call to the PR host. Against the simulated cluster over HTTP, a temporary
 * bare repo, and each provider: `git` (records in SQLite) and `github` (the fake GitHub).
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { parse } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { createReconciler } from '../../src/compose/compose.js';
import { FakeGitHub } from '../support/github-server.js';
import { algorithmFile, gpuNode, startHarness, type Harness } from '../support/reconcile-harness.js';
import { settingsFor } from '../support/reconcile-settings.js';

const FILES = {
  'README.md': '# gitops\n',
  'algorithms/yolo.yaml': algorithmFile('yolo', { pool: 'short-task' }),
  'algorithms/bert.yaml': algorithmFile('bert', { benchSeconds: 30 }),
};
/** gpu-a and gpu-c have no pool yet; gpu-b already serves the short-task pool. */
const NODES = [gpuNode('gpu-a', 2), gpuNode('gpu-b', 4, 'short-task'), gpuNode('gpu-c', 2)];

const harnesses: Harness[] = [];
const servers: FakeGitHub[] = [];
afterAll(async () => {
  await Promise.all(harnesses.map((h) => h.close()));
  await Promise.all(servers.map((s) => s.close()));
});

/**
 * A harness of its own for one test (its bare repo, simulated cluster, database and, with the
 * github provider, fake GitHub): no test depends on another's passes, so any order, or one test
 * alone (`-t`), gives the same result.
 */
async function fresh(provider: 'git' | 'github', nodes = NODES): Promise<{ h: Harness; gh: FakeGitHub }> {
  const gh = provider === 'github' ? await FakeGitHub.start() : undefined;
  if (gh) servers.push(gh);
  const h = await startHarness({
    files: FILES,
    nodes,
    ...(gh ? { provider: 'github' as const, github: gh } : {}),
  });
  harnesses.push(h);
  return { h, gh: gh! };
}

describe('reconcile pass twice, provider git', () => {
  it('the first pass opens the pools PR and the pinned placement PR; bert waits for a test node', async () => {
    const { h } = await fresh('git');
    const first = await h.pass();
    expect(first.writeBack.map((r) => [r.branch, r.action])).toEqual([
      ['gpuops/prod/pools', 'created'],
      ['gpuops/prod/placement/yolo', 'created'],
    ]);
    expect(h.branches()).toEqual(['gpuops/prod/placement/yolo', 'gpuops/prod/pools', 'main']);
    const a = parse(h.file('gpuops/prod/pools', 'clusters/prod/nodes/gpu-a.yaml')!);
    const c = parse(h.file('gpuops/prod/pools', 'clusters/prod/nodes/gpu-c.yaml')!);
    expect([a.metadata.labels['gpuops.dev/pool'], c.metadata.labels['gpuops.dev/pool']]).toEqual([
      'test',
      'unused',
    ]);
    const deployment = parse(
      h.file('gpuops/prod/placement/yolo', 'clusters/prod/algorithms/yolo/deployment.yaml')!,
    );
    expect(deployment.spec.template.spec.nodeSelector).toEqual({ 'gpuops.dev/pool': 'short-task' });
    // Nothing reaches main before a person merges.
    expect(h.file('main', 'clusters/prod/nodes/gpu-a.yaml')).toBeNull();
    expect(first.plan.placements.find((p) => p.algorithm === 'bert')).toMatchObject({ pool: null });
    // The git provider records the PRs in the database.
    const records = await h.store.pullRequests('prod');
    expect(records.map((r) => [r.branch, r.state]).sort()).toEqual([
      ['gpuops/prod/placement/yolo', 'open'],
      ['gpuops/prod/pools', 'open'],
    ]);
  });

  it('the second pass with unchanged input commits, pushes and records nothing', async () => {
    const { h } = await fresh('git');
    const first = await h.pass();
    expect(first.writeBack.map((r) => r.action)).toEqual(['created', 'created']);
    const refs = h.branches().map((b) => [b, h.ref(b)]);
    const records = await h.store.pullRequests('prod');
    const counters = { ...h.workingCopy.counters };
    const second = await h.pass();
    expect(second.writeBack.map((r) => [r.branch, r.action])).toEqual([
      ['gpuops/prod/pools', 'unchanged'],
      ['gpuops/prod/placement/yolo', 'unchanged'],
    ]);
    expect(h.workingCopy.counters.commits).toBe(counters.commits);
    expect(h.workingCopy.counters.pushes).toBe(counters.pushes);
    expect(h.branches().map((b) => [b, h.ref(b)])).toEqual(refs);
    expect(await h.store.pullRequests('prod')).toEqual(records);
    expect(second.prs).toBe(0);
  });
});

describe('reconcile pass twice, provider github', () => {
  it('the first pass creates the two pull requests on GitHub with their labels and hash markers', async () => {
    const { h, gh } = await fresh('github');
    await h.pass();
    expect(gh.pulls.map((p) => [p.head, p.base, p.state])).toEqual([
      ['gpuops/prod/pools', 'main', 'open'],
      ['gpuops/prod/placement/yolo', 'main', 'open'],
    ]);
    expect(gh.pulls[0]!.labels).toEqual(expect.arrayContaining(['gpuops', 'gpuops/pools']));
    expect(gh.pulls[1]!.body).toMatch(/<!-- gpuops:desired-hash=[0-9a-f]+ -->/);
    expect(gh.writes().filter((w) => w.method === 'POST' && w.path.endsWith('/pulls'))).toHaveLength(2);
    gh.verify();
  });

  it('the second pass makes no writing call to GitHub, no commit and no push', async () => {
    const { h, gh } = await fresh('github');
    await h.pass();
    expect(gh.pulls).toHaveLength(2);
    const before = gh.requests.length;
    const counters = { ...h.workingCopy.counters };
    const refs = h.branches().map((b) => [b, h.ref(b)]);
    const second = await h.pass();
    expect(second.writeBack.map((r) => r.action)).toEqual(['unchanged', 'unchanged']);
    const during = gh.requests.slice(before);
    expect(during.length).toBeGreaterThan(0); // it did look
    expect(during.filter((r) => r.method !== 'GET')).toEqual([]);
    expect(h.workingCopy.counters.commits).toBe(counters.commits);
    expect(h.workingCopy.counters.pushes).toBe(counters.pushes);
    expect(h.branches().map((b) => [b, h.ref(b)])).toEqual(refs);
    gh.verify();
  });
});

describe('reconcile --dry-run', () => {
  it('decides and reports what it would open, and writes nothing anywhere', async () => {
    // gpu-a already carries the test label, so a real pass would start bert's benchmark.
    const nodes = [gpuNode('gpu-a', 2, 'test'), gpuNode('gpu-b', 4, 'short-task'), gpuNode('gpu-c', 2)];
    const { h, gh } = await fresh('github', nodes);
    h.deps.dryRun = true;
    const r = await h.pass();
    expect(r.writeBack.map((w) => [w.branch, w.action])).toEqual([
      ['gpuops/prod/pools', 'would-create'],
      ['gpuops/prod/placement/yolo', 'would-create'],
    ]);
    expect(r.writeBack[0]!.files.map((f) => f.path)).toContain('clusters/prod/nodes/gpu-c.yaml');
    expect(h.branches()).toEqual(['main']);
    expect(h.workingCopy.counters).toMatchObject({ commits: 0, pushes: 0 });
    expect(gh.requests.length).toBeGreaterThan(0);
    expect(gh.writes()).toEqual([]);
    expect(h.sim.store.list('jobs')).toEqual([]);
    expect(await h.store.latestSnapshot()).toBeNull();
    expect(await h.store.pullRequests('prod')).toEqual([]);
    gh.verify();
  });
});

describe('createReconciler: the same pass built from connection settings', () => {
  it('opens the pools branch on the first pass and writes nothing on the second', async () => {
    const h = await startHarness({ files: FILES, nodes: NODES });
    harnesses.push(h);
    const settings = settingsFor(h);
    const reconciler = await createReconciler(settings, pino({ level: 'silent' }), {
      cacheDir: join(h.repo.root, 'cache-cli'),
    });
    try {
      const first = await reconciler.pass();
      expect(first.writeBack.map((r) => [r.branch, r.action])).toEqual([
        ['gpuops/prod/pools', 'created'],
        ['gpuops/prod/placement/yolo', 'created'],
      ]);
      // What the loop runs between passes: the database's checkpoint. The pass's pages were in
      // the write-ahead log; now they are in the file too.
      const dbFile = join(h.repo.root, 'state.db');
      const fileBefore = statSync(dbFile).size;
      expect(statSync(`${dbFile}-wal`).size).toBeGreaterThan(0);
      await reconciler.afterPass!();
      expect(statSync(dbFile).size).toBeGreaterThan(fileBefore);
      const refs = h.branches().map((b) => [b, h.ref(b)]);
      const second = await reconciler.pass();
      expect(second.writeBack.map((r) => r.action)).toEqual(['unchanged', 'unchanged']);
      expect(h.branches().map((b) => [b, h.ref(b)])).toEqual(refs);
    } finally {
      await reconciler.close();
    }
  });
});
