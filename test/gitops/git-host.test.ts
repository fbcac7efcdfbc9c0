import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { buildChangeSet } from '../../src/change-sets/change-set.js';
import { GitPullRequestHost } from '../../src/git-hosts/git-host.js';
import { WorkingCopy } from '../../src/working-copy/working-copy.js';
import { writeBack } from '../../src/write-back/write-back.js';
import { openStore } from '../../src/store/index.js';
import { PersonClone, git, makeRemote, remoteFile, remoteRef, type TempRepo } from './helpers.js';

const repos: TempRepo[] = [];
afterEach(() => {
  for (const r of repos.splice(0)) r.cleanup();
  vi.restoreAllMocks();
});

function pools(to: 'test' | 'unused') {
  return buildChangeSet({
    cluster: 'prod',
    kind: 'pools',
    subject: 'pools',
    files: [{ path: 'clusters/prod/nodes/gpu-a100-01.yaml', content: `kind: Node\npool: ${to}\n` }],
    pools: [
      {
        node: 'gpu-a100-01',
        from: null,
        to,
        reason: 'TestPool',
        message: 'first GPU node becomes the test node',
      },
    ],
  })!;
}

describe('writeBack with the plain git host and the SQLite store', () => {
  it('a pass that synced once: a person pushing to the branch after that sync keeps the commit and is reported', async () => {
    const repo = makeRemote();
    repos.push(repo);
    const store = await openStore(`sqlite:${join(repo.root, 'state.db')}`);
    const wc = await WorkingCopy.open({
      repoUrl: repo.url,
      baseBranch: 'main',
      dir: join(repo.root, 'cache'),
      sleep: async () => undefined,
    });
    let clock = Date.parse('2025-06-01T12:00:00Z');
    const now = () => new Date((clock += 1000));
    const deps = {
      workingCopy: wc,
      host: new GitPullRequestHost({ store, cluster: 'prod', base: 'main', now }),
      store,
      cluster: 'prod',
      mode: 'pull-request' as const,
      dryRun: false,
      limits: { maxOpenedPerPass: 5, maxOpen: 5 },
      now,
      syncedThisPass: true,
    };
    expect((await writeBack([pools('test')], deps))[0]!.action).toBe('created');
    // The next pass syncs as it reads; then Jane pushes to the gpuops branch before it writes.
    await wc.sync();
    const fetches = wc.counters.fetches;
    const jane = new PersonClone(repo).commit('gpuops/prod/pools', { 'notes.md': 'Jane\n' });
    const [r] = await writeBack([pools('unused')], deps);
    expect(r!.action).toBe('person-commits');
    expect(remoteRef(repo, 'gpuops/prod/pools')).toBe(jane);
    // No fetch before writing: the one after the lease refused the push.
    expect(wc.counters.fetches).toBe(fetches + 1);
    await store.close();
  });
  it('pushes the branch, records the PR in the database, shows it in `gpuops prs`, and is idempotent', async () => {
    const repo = makeRemote();
    repos.push(repo);
    const database = `sqlite:${join(repo.root, 'state.db')}`;
    const store = await openStore(database);
    const wc = await WorkingCopy.open({
      repoUrl: repo.url,
      baseBranch: 'main',
      dir: join(repo.root, 'cache'),
    });
    let clock = Date.parse('2025-06-01T12:00:00Z');
    const now = () => new Date((clock += 1000));
    const host = new GitPullRequestHost({ store, cluster: 'prod', base: 'main', now });
    const deps = {
      workingCopy: wc,
      host,
      store,
      cluster: 'prod',
      mode: 'pull-request' as const,
      dryRun: false,
      limits: { maxOpenedPerPass: 5, maxOpen: 5 },
      now,
    };
    const cs = pools('test');
    const [r] = await writeBack([cs], deps);
    expect(r).toMatchObject({
      action: 'created',
      branch: 'gpuops/prod/pools',
      pullRequest: { number: null, url: null },
    });
    expect(remoteFile(repo, 'gpuops/prod/pools', 'clusters/prod/nodes/gpu-a100-01.yaml')).toBe(
      'kind: Node\npool: test\n',
    );
    const [rec] = await store.pullRequests('prod');
    expect(rec).toMatchObject({
      branch: 'gpuops/prod/pools',
      kind: 'pools',
      state: 'open',
      title: cs.title,
      desiredHash: cs.desiredHash,
    });
    expect(rec!.body).toContain('| gpu-a100-01 | none | test | TestPool |');

    const head = remoteRef(repo, 'gpuops/prod/pools');
    const [again] = await writeBack([cs], deps);
    expect(again!.action).toBe('unchanged');
    expect(remoteRef(repo, 'gpuops/prod/pools')).toBe(head);
    expect((await store.pullRequests('prod'))[0]!.updatedAt).toBe(rec!.updatedAt);

    const [updated] = await writeBack([pools('unused')], deps);
    expect(updated!.action).toBe('updated');
    await store.close();

    const out: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((s) => (out.push(String(s)), true));
    expect(
      await main(['node', 'gpuops', 'prs', '--cluster', 'prod', '--database', database, '--output', 'json']),
    ).toBe(0);
    const listed = JSON.parse(out.join('')) as { branch: string; title: string; state: string }[];
    expect(listed.map((p) => [p.branch, p.state, p.title])).toEqual([
      ['gpuops/prod/pools', 'open', 'gpuops(prod): move 1 node into unused'],
    ]);
    out.length = 0;
    expect(await main(['node', 'gpuops', 'prs', '--cluster', 'prod', '--database', database])).toBe(0);
    expect(out.join('')).toMatch(/^STATE\s+KIND\s+SUBJECT\s+PR\s+BRANCH/);
    expect(out.join('')).toMatch(/open\s+pools\s+pools\s+\(branch\)\s+gpuops\/prod\/pools/);
  });

  it('learns from the remote that a person merged or deleted a branch: the open limit frees up and `refresh` records it', async () => {
    const repo = makeRemote();
    repos.push(repo);
    const store = await openStore('sqlite::memory:');
    const wc = await WorkingCopy.open({
      repoUrl: repo.url,
      baseBranch: 'main',
      dir: join(repo.root, 'cache'),
    });
    const now = () => new Date('2025-06-01T12:00:00Z');
    const host = new GitPullRequestHost({
      store,
      cluster: 'prod',
      base: 'main',
      now,
      branchStatus: (b) => wc.branchStatus(b),
    });
    const deps = {
      workingCopy: wc,
      host,
      store,
      cluster: 'prod',
      mode: 'pull-request' as const,
      dryRun: false,
      limits: { maxOpenedPerPass: 5, maxOpen: 1 },
      now,
    };
    const scale = buildChangeSet({
      cluster: 'prod',
      kind: 'scale',
      subject: 'resnet',
      files: [{ path: 'clusters/prod/algorithms/resnet/deployment.yaml', content: 'replicas: 2\n' }],
    })!;
    expect((await writeBack([pools('test')], deps))[0]!.action).toBe('created');
    expect((await writeBack([scale], deps))[0]!.action).toBe('deferred'); // maxOpen 1: the pools branch is open

    new PersonClone(repo).merge('gpuops/prod/pools');
    await wc.sync();
    expect(await host.listOpen()).toEqual([]);
    expect((await host.findPullRequest('gpuops/prod/pools', 'main'))!.state).toBe('merged');
    expect((await writeBack([scale], deps))[0]!.action).toBe('created');

    git(repo.root, '--git-dir', repo.remote, 'branch', '-D', 'gpuops/prod/scale/resnet');
    await wc.sync();
    expect(await host.refresh()).toBe(2);
    const states = Object.fromEntries((await store.pullRequests('prod')).map((r) => [r.branch, r.state]));
    expect(states).toEqual({ 'gpuops/prod/pools': 'merged', 'gpuops/prod/scale/resnet': 'closed' });
    expect(await host.refresh()).toBe(0);
    await store.close();
  });
});
