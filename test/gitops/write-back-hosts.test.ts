/**
 * The write-back scenarios, one table for every pull-request host: the fake GitHub, the GitLab
 * stand-in and the Gitea/Forgejo stand-in, each answering as its host documents. Real git (a
 * temporary bare remote), the real working copy and `writeBack`; only the host differs.
 */
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildChangeSet } from '../../src/change-sets/change-set.js';
import { parseDesiredHash } from '../../src/change-sets/pr-body.js';
import type { ChangeSet } from '../../src/change-sets/types.js';
import { WorkingCopy } from '../../src/working-copy/working-copy.js';
import { writeBack, type WriteBackDeps } from '../../src/write-back/write-back.js';
import { FORGE_KITS, type ForgeKit, type KitHostOptions } from '../support/forge-kits.js';
import { MemoryPullRequestStore, PersonClone, git, makeRemote, remoteRef, type TempRepo } from './helpers.js';

function placement(algorithm: string, replicas: number): ChangeSet {
  return buildChangeSet({
    cluster: 'prod',
    kind: 'placement',
    subject: algorithm,
    files: [
      {
        path: `clusters/prod/algorithms/${algorithm}/deployment.yaml`,
        content: `# written by gpuops\nkind: Deployment\nreplicas: ${replicas}\n`,
      },
    ],
  })!;
}

describe.each(['github', 'gitlab', 'gitea'] as const)('writeBack with the %s host', (name) => {
  let kit: ForgeKit;
  const repos: TempRepo[] = [];
  beforeAll(async () => {
    kit = await FORGE_KITS[name]();
  });
  afterAll(async () => {
    await kit.close();
  });
  afterEach(() => {
    for (const r of repos.splice(0)) r.cleanup();
    try {
      kit.verify();
    } finally {
      kit.reset();
    }
  });

  async function setup(overrides: Partial<WriteBackDeps> = {}, hostOptions: KitHostOptions = {}) {
    const repo = makeRemote();
    repos.push(repo);
    const wc = await WorkingCopy.open({
      repoUrl: repo.url,
      baseBranch: 'main',
      dir: join(repo.root, 'cache'),
      sleep: async () => undefined,
    });
    const waits: number[] = [];
    const host = kit.host({ waits, ...hostOptions });
    const store = new MemoryPullRequestStore();
    const deps: WriteBackDeps = {
      workingCopy: wc,
      host,
      store,
      cluster: 'prod',
      mode: 'pull-request',
      dryRun: false,
      limits: { maxOpenedPerPass: 5, maxOpen: 10 },
      now: () => new Date('2025-06-01T12:00:00Z'),
      ...overrides,
    };
    return { repo, wc, host, store, deps, waits };
  }

  it('opens one pull request per subject with its title, body, marker and labels, and records it', async () => {
    const { repo, deps, store } = await setup();
    const cs = placement('resnet50-infer', 1);
    const [r] = await writeBack([cs], deps);
    expect(r).toMatchObject({ action: 'created', reason: 'Created', pullRequest: { number: 1 } });
    expect(kit.pulls()).toMatchObject([
      {
        state: 'open',
        head: 'gpuops/prod/placement/resnet50-infer',
        title: cs.title,
        labels: ['gpuops', 'gpuops/placement'],
      },
    ]);
    expect(parseDesiredHash(kit.pulls()[0]!.body)).toBe(cs.desiredHash);
    expect(r!.pullRequest!.url).toMatch(name === 'gitlab' ? /\/-\/merge_requests\/1$/ : /\/pulls?\/1$/);
    expect(remoteRef(repo, cs.branch)).toBe(r!.commit);
    expect(store.records).toMatchObject([
      { branch: cs.branch, number: 1, state: 'open', desiredHash: cs.desiredHash },
    ]);
  });

  it('is idempotent: a second run makes no commit, no push and no writing call', async () => {
    const { wc, deps, store } = await setup();
    const input = [placement('resnet50-infer', 1), placement('bert-train', 2)];
    expect((await writeBack(input, deps)).map((r) => r.action)).toEqual(['created', 'created']);
    const [pushes, writes, upserts] = [wc.counters.pushes, kit.writes(), store.upserts];
    expect((await writeBack(input, deps)).map((r) => r.action)).toEqual(['unchanged', 'unchanged']);
    expect([wc.counters.pushes, kit.writes(), store.upserts]).toEqual([pushes, writes, upserts]);
  });

  it('updates its open pull request in place when the desired state changes: same number, new commit and body', async () => {
    const { repo, deps, store } = await setup();
    const cs = placement('resnet50-infer', 1);
    const [first] = await writeBack([cs], deps);
    const next = placement('resnet50-infer', 2);
    expect(next.desiredHash).not.toBe(cs.desiredHash);
    const [r] = await writeBack([next], deps);
    expect(r).toMatchObject({ action: 'updated', pullRequest: { number: 1 } });
    expect(r!.commit).not.toBe(first!.commit);
    expect(remoteRef(repo, next.branch)).toBe(r!.commit);
    expect(kit.pulls()).toHaveLength(1);
    expect(kit.pulls()[0]).toMatchObject({ state: 'open', title: next.title });
    expect(parseDesiredHash(kit.pulls()[0]!.body)).toBe(next.desiredHash);
    expect(store.records).toMatchObject([{ number: 1, state: 'open', desiredHash: next.desiredHash }]);
  });

  it('brings up to date the pull request another writer opened between the lookup and the create', async () => {
    const { deps } = await setup();
    const cs = placement('resnet50-infer', 1);
    kit.scriptRacingCreate(cs.branch);
    const [r] = await writeBack([cs], deps);
    expect(r).toMatchObject({ action: 'updated', pullRequest: { number: 1 } });
    expect(kit.pulls()).toMatchObject([{ title: cs.title, labels: ['gpuops', 'gpuops/placement'] }]);
    expect(kit.statuses('create')).toEqual([name === 'github' ? 422 : 409]);
  });

  it('never reopens or recreates a pull request a person closed, until the desired state changes', async () => {
    const { repo, deps } = await setup();
    const cs = placement('resnet50-infer', 1);
    await writeBack([cs], deps);
    kit.setState(1, 'closed');
    const [head, writes] = [remoteRef(repo, cs.branch), kit.writes()];
    expect((await writeBack([cs], deps))[0]).toMatchObject({
      action: 'closed-by-person',
      pullRequest: { number: 1 },
    });
    expect([remoteRef(repo, cs.branch), kit.writes()]).toEqual([head, writes]);
    const [created] = await writeBack([placement('resnet50-infer', 2)], deps);
    expect(created).toMatchObject({ action: 'created', pullRequest: { number: 2 } });
    expect(kit.pulls().map((p) => p.state)).toEqual(['closed', 'open']);
  });

  it('leaves a branch a person committed to alone and says so on its pull request, once', async () => {
    const { repo, deps } = await setup();
    const cs = placement('resnet50-infer', 1);
    await writeBack([cs], deps);
    const theirs = new PersonClone(repo).commit(cs.branch, { [cs.files[0]!.path]: 'replicas: 4 # Jane\n' });
    const [r] = await writeBack([placement('resnet50-infer', 3)], deps);
    expect(r).toMatchObject({ action: 'person-commits', pullRequest: { number: 1 } });
    expect(remoteRef(repo, cs.branch)).toBe(theirs);
    await writeBack([placement('resnet50-infer', 3)], deps);
    const comments = kit.comments(1);
    expect(comments).toHaveLength(1);
    expect(comments[0]!.body).toContain(theirs.slice(0, 12));
    expect(comments[0]!.author).toBe(kit.account);
  });

  it('starts the branch of a merged pull request afresh from main and opens a new one', async () => {
    const { repo, deps } = await setup();
    const cs = placement('resnet50-infer', 1);
    await writeBack([cs], deps);
    const merge = new PersonClone(repo).merge(cs.branch);
    kit.setState(1, 'merged');
    const [r] = await writeBack([placement('resnet50-infer', 2)], deps);
    expect(r).toMatchObject({ action: 'created', pullRequest: { number: 2 } });
    expect(git(repo.remote, 'rev-parse', `${cs.branch}^`)).toBe(merge);
  });

  it('two write-backs racing on one remote and one host: one branch, one commit and one pull request per subject', async () => {
    const a = await setup();
    const wc2 = await WorkingCopy.open({
      repoUrl: a.repo.url,
      baseBranch: 'main',
      dir: join(a.repo.root, 'cache-2'),
      sleep: async () => undefined,
    });
    const input = [placement('resnet50-infer', 1), placement('bert-train', 2)];
    const [ra, rb] = await Promise.all([
      writeBack(input, a.deps),
      writeBack(input, {
        ...a.deps,
        workingCopy: wc2,
        host: kit.host(),
        store: new MemoryPullRequestStore(),
      }),
    ]);
    expect([...ra, ...rb].filter((r) => r.action === 'failed')).toEqual([]);
    expect(
      kit
        .pulls()
        .map((p) => p.head)
        .sort(),
    ).toEqual(input.map((cs) => cs.branch).sort());
    for (const cs of input) expect(git(a.repo.remote, 'rev-list', '--count', `main..${cs.branch}`)).toBe('1');
  });

  it('waits the Retry-After of a 429, then succeeds', async () => {
    const { deps, waits } = await setup();
    kit.scriptTooManyRequests('create', 7);
    expect((await writeBack([placement('resnet50-infer', 1)], deps))[0]!.action).toBe('created');
    expect(waits).toEqual([7]);
    expect(kit.statuses('create')).toEqual([429, 201]);
  });

  it('retries a 502 of a proxy, then succeeds', async () => {
    const { deps } = await setup();
    kit.scriptBadGateway('create');
    expect((await writeBack([placement('resnet50-infer', 1)], deps))[0]!.action).toBe('created');
    expect(kit.statuses('create')).toEqual([502, 201]);
    expect(kit.pulls()).toHaveLength(1);
  });

  it('does not wait for a reset beyond the bound: RateLimited until HH:MM:SS (UTC), and the next pass writes', async () => {
    const { repo, deps } = await setup({}, { msPerSecond: 1000 });
    const reset = Math.floor(Date.now() / 1000) + 3600;
    kit.scriptRateLimitUntil('create', reset);
    const cs = placement('resnet50-infer', 1);
    const [r] = await writeBack([cs], deps);
    expect(r).toMatchObject({ action: 'failed', reason: 'RateLimited' });
    expect(r!.message).toMatch(
      new RegExp(`^RateLimited until ${new Date(reset * 1000).toISOString().slice(11, 19)} UTC`),
    );
    expect(r!.message).not.toContain(kit.token);
    expect(kit.pulls()).toEqual([]);
    const head = remoteRef(repo, cs.branch);
    const [next] = await writeBack([cs], deps);
    expect(next).toMatchObject({ action: 'created', commit: null, pullRequest: { number: 1 } });
    expect(remoteRef(repo, cs.branch)).toBe(head);
  });

  it('a rate-limited list of open pull requests fails every branch and writes nothing', async () => {
    const { repo, deps } = await setup();
    kit.scriptRateLimitUntil('list', Math.floor(Date.now() / 1000) + 3600);
    const input = [placement('a', 1), placement('b', 2)];
    const results = await writeBack(input, deps);
    expect(results.map((r) => r.reason)).toEqual(['RateLimited', 'RateLimited']);
    expect(input.map((cs) => remoteRef(repo, cs.branch))).toEqual([null, null]);
  });

  it('reports a 403 without retrying, and goes on with the other subjects', async () => {
    const { deps, waits, store } = await setup();
    kit.scriptPermissionDenied('create');
    const results = await writeBack([placement('a-first', 1), placement('b-second', 1)], deps);
    expect(results.map((r) => [r.subject, r.action, r.reason])).toEqual([
      ['a-first', 'failed', 'HostPermission'],
      ['b-second', 'created', 'Created'],
    ]);
    expect(results[0]!.message).not.toContain(kit.token);
    expect(waits).toEqual([]);
    expect(kit.statuses('create')).toEqual([403, 201]);
    expect(store.records.map((r) => r.subject)).toEqual(['b-second']);
  });

  it('keeps the pull request when labels are refused (403), with a warning, and tries no more', async () => {
    const { deps } = await setup();
    kit.forbidLabels();
    const [r] = await writeBack([placement('resnet50-infer', 1)], deps);
    expect(r).toMatchObject({ action: 'created', pullRequest: { number: 1 } });
    expect(r!.warnings?.[0]).toMatch(/labels gpuops, gpuops\/placement not added to [#!]1/);
    expect(kit.pulls()[0]!.labels).toEqual([]);
    const writes = kit.writes();
    const [again] = await writeBack([placement('resnet50-infer', 1)], deps);
    expect(again).toMatchObject({ action: 'unchanged' });
    expect(again!.warnings?.[0]).toContain('not tried again until restart');
    expect(kit.writes()).toBe(writes);
  });

  it('defers new pull requests over maxOpenedPerPass and maxOpen, pushing nothing for them', async () => {
    const { repo, deps } = await setup({ limits: { maxOpenedPerPass: 1, maxOpen: 2 } });
    kit.addPull('gpuops/prod/scale/other', { title: 'open already' });
    const input = [placement('a', 1), placement('b', 1)];
    expect((await writeBack(input, deps)).map((r) => r.reason)).toEqual(['Created', 'MaxOpenedPerPass']);
    expect(remoteRef(repo, input[1]!.branch)).toBeNull();
    expect((await writeBack(input, deps)).map((r) => r.reason)).toEqual(['UpToDate', 'MaxOpen']);
  });

  it('dry-run reports what it would do and writes nothing anywhere', async () => {
    const { repo, wc, deps, store } = await setup({ dryRun: true });
    const results = await writeBack([placement('resnet50-infer', 1)], deps);
    expect(results).toMatchObject([{ action: 'would-create', reason: 'DryRun' }]);
    expect([kit.writes(), wc.counters.pushes, store.upserts]).toEqual([0, 0, 0]);
    expect(remoteRef(repo, 'gpuops/prod/placement/resnet50-infer')).toBeNull();
  });

  it('closes a superseded pull request with a note, and the same desired state later opens a new one', async () => {
    const { deps, host } = await setup();
    const cs = placement('resnet50-infer', 1);
    await writeBack([cs], deps);
    expect(await host.closeSuperseded!(cs.branch, 'Closed by gpuops: no longer needed.')).toBe(true);
    expect(kit.pulls()).toMatchObject([{ state: 'closed', body: 'Closed by gpuops: no longer needed.' }]);
    expect(await host.closeSuperseded!(cs.branch, 'again')).toBe(false);
    expect((await writeBack([cs], deps))[0]).toMatchObject({ action: 'created', pullRequest: { number: 2 } });
  });

  it("cuts a title over the host's limit and keeps it from pass to pass", async () => {
    const { deps } = await setup();
    const cs = { ...placement('resnet50-infer', 1), title: `gpuops(prod): ${'x'.repeat(400)}` };
    expect((await writeBack([cs], deps))[0]!.action).toBe('created');
    const title = kit.pulls()[0]!.title;
    expect(title.length).toBe(kit.titleMax);
    expect(title.endsWith('…')).toBe(true);
    expect((await writeBack([cs], deps))[0]!.action).toBe('unchanged');
  });

  it('leaves pull requests from forks out of the open count and of its own', async () => {
    const { deps, host } = await setup({ limits: { maxOpenedPerPass: 5, maxOpen: 1 } });
    const cs = placement('resnet50-infer', 1);
    kit.addPull(cs.branch, { fork: true, title: 'a fork named like gpuops' });
    kit.addPull('gpuops/prod/scale/x', { fork: true });
    expect(await host.listOpen()).toEqual([]);
    expect(await host.findPullRequest(cs.branch, 'main')).toBeNull();
    expect((await writeBack([cs], deps))[0]).toMatchObject({
      action: 'created',
      pullRequest: { number: 3 },
    });
  });

  it("is not silenced by gpuops's marker in another account's comment", async () => {
    const { host } = await setup();
    const n = kit.addPull('gpuops/prod/placement/a');
    const body = 'gpuops did not update it\n\n<!-- gpuops:person-commits=abc -->';
    kit.addComment(n, body, 'mallory');
    expect(await host.comment(n, body)).toBe('created');
    expect(await host.comment(n, body)).toBe('unchanged');
    expect(kit.comments(n).map((c) => c.author)).toEqual(['mallory', kit.account]);
  });
});
