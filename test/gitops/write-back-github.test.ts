import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildChangeSet } from '../../src/change-sets/change-set.js';
import { GitHubHost, type RateLimitWait } from '../../src/git-hosts/github-host.js';
import { parseDesiredHash } from '../../src/change-sets/pr-body.js';
import type { ChangeSet } from '../../src/change-sets/types.js';
import { WorkingCopy } from '../../src/working-copy/working-copy.js';
import { writeBack, type WriteBackDeps } from '../../src/write-back/write-back.js';
import { reportInvalidSpecs } from '../../src/write-back/spec-errors.js';
import {
  FakeGitHub,
  permissionDenied,
  primaryRateLimit,
  secondaryRateLimit,
  tooManyRequests,
} from '../support/github-server.js';
import {
  MemoryPullRequestStore,
  PersonClone,
  git,
  makeRemote,
  remoteFile,
  remoteRef,
  type TempRepo,
} from './helpers.js';

let gh: FakeGitHub;
const repos: TempRepo[] = [];
beforeAll(async () => {
  gh = await FakeGitHub.start();
});
afterAll(async () => {
  await gh.close();
});
afterEach(() => {
  for (const r of repos.splice(0)) r.cleanup();
  try {
    gh.verify();
  } finally {
    gh.reset();
  }
});

const PULLS = '/repos/acme/gitops/pulls';

async function setup(overrides: Partial<WriteBackDeps> = {}) {
  const repo = makeRemote();
  repos.push(repo);
  const wc = await WorkingCopy.open({
    repoUrl: repo.url,
    baseBranch: 'main',
    dir: join(repo.root, 'cache'),
    sleep: async () => undefined,
  });
  const waits: RateLimitWait[] = [];
  const host = new GitHubHost({
    owner: 'acme',
    repo: 'gitops',
    base: 'main',
    cluster: 'prod',
    token: gh.token,
    baseUrl: gh.url,
    msPerSecond: 1,
    pacing: false,
    onWait: (w) => waits.push(w),
  });
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

function placement(algorithm: string, replicas: number, runTimeSeconds = 42.5): ChangeSet {
  const cs = buildChangeSet({
    cluster: 'prod',
    kind: 'placement',
    subject: algorithm,
    files: [
      {
        path: `clusters/prod/algorithms/${algorithm}/deployment.yaml`,
        content: `# written by gpuops\nkind: Deployment\nreplicas: ${replicas}\n`,
      },
    ],
    placements: [
      {
        placement: {
          algorithm,
          pool: 'short-task',
          runTimeSeconds,
          reason: 'BelowThreshold',
          message: `${runTimeSeconds} s ≤ 600 s`,
        },
        runs: [
          { run: 1, status: 'Succeeded', durationSeconds: runTimeSeconds - 1, node: 'gpu-a100-01' },
          { run: 2, status: 'Succeeded', durationSeconds: runTimeSeconds, node: 'gpu-a100-01' },
          { run: 3, status: 'Succeeded', durationSeconds: runTimeSeconds + 2, node: 'gpu-a100-01' },
        ],
        longTaskThresholdSeconds: 600,
      },
    ],
  });
  return cs!;
}

describe('writeBack with the GitHub host', () => {
  it('opens one PR per subject with title, body, marker and labels, and records it', async () => {
    const { repo, deps, store } = await setup();
    const cs = placement('resnet50-infer', 1);
    const [r] = await writeBack([cs], deps);
    expect(r).toMatchObject({ action: 'created', reason: 'Created', pullRequest: { number: 1 } });
    expect(gh.pulls).toHaveLength(1);
    const pr = gh.pulls[0]!;
    expect(pr).toMatchObject({
      state: 'open',
      head: 'gpuops/prod/placement/resnet50-infer',
      base: 'main',
      title: cs.title,
    });
    expect(pr.labels).toEqual(['gpuops', 'gpuops/placement']);
    expect(parseDesiredHash(pr.body)).toBe(cs.desiredHash);
    expect(pr.body).toContain('| resnet50-infer | short-task | 42.5 | 600.0 | BelowThreshold |');
    expect(remoteRef(repo, cs.branch)).toBe(r!.commit);
    expect(store.records).toMatchObject([
      { branch: cs.branch, number: 1, state: 'open', desiredHash: cs.desiredHash },
    ]);
  });

  it('is idempotent: a second run makes no commit, no push and no writing call', async () => {
    const { repo, wc, deps, store } = await setup();
    const input = [placement('resnet50-infer', 1), placement('bert-train', 2)];
    const first = await writeBack(input, deps);
    expect(first.map((r) => r.action)).toEqual(['created', 'created']);
    const counters = { ...wc.counters };
    const writes = gh.writes().length;
    const upserts = store.upserts;
    const heads = input.map((cs) => remoteRef(repo, cs.branch));

    const second = await writeBack(input, deps);
    expect(second.map((r) => r.action)).toEqual(['unchanged', 'unchanged']);
    expect(wc.counters.commits).toBe(counters.commits);
    expect(wc.counters.pushes).toBe(counters.pushes);
    expect(gh.writes()).toHaveLength(writes);
    expect(store.upserts).toBe(upserts);
    expect(input.map((cs) => remoteRef(repo, cs.branch))).toEqual(heads);
  });

  it('treats 422 "A pull request already exists" as success and brings that PR up to date', async () => {
    const { deps } = await setup();
    const cs = placement('resnet50-infer', 1);
    // Another replica opens the PR between our lookup and our create.
    gh.script({
      method: 'POST',
      path: PULLS,
      before: (g) => void g.addPull({ head: cs.branch, title: 'old title', body: 'old body' }),
    });
    const [r] = await writeBack([cs], deps);
    expect(r).toMatchObject({ action: 'updated', pullRequest: { number: 1 } });
    expect(gh.pulls).toHaveLength(1);
    expect(gh.pulls[0]).toMatchObject({ title: cs.title, labels: ['gpuops', 'gpuops/placement'] });
    expect(parseDesiredHash(gh.pulls[0]!.body)).toBe(cs.desiredHash);
    expect(gh.requests.filter((q) => q.method === 'POST' && q.path === PULLS).map((q) => q.status)).toEqual([
      422,
    ]);
  });

  it('does not reopen or recreate a PR a person closed, until the desired state changes', async () => {
    const { repo, deps } = await setup();
    const cs = placement('resnet50-infer', 1);
    await writeBack([cs], deps);
    gh.pulls[0]!.state = 'closed';
    const head = remoteRef(repo, cs.branch);
    const writes = gh.writes().length;

    const [skipped] = await writeBack([cs], deps);
    expect(skipped).toMatchObject({
      action: 'closed-by-person',
      reason: 'ClosedByPerson',
      pullRequest: { number: 1 },
    });
    expect(gh.writes()).toHaveLength(writes);
    expect(gh.pulls.map((p) => p.state)).toEqual(['closed']);
    expect(remoteRef(repo, cs.branch)).toBe(head);

    const changed = placement('resnet50-infer', 2);
    const [created] = await writeBack([changed], deps);
    expect(created).toMatchObject({ action: 'created', pullRequest: { number: 2 } });
    expect(gh.pulls.map((p) => [p.number, p.state])).toEqual([
      [1, 'closed'],
      [2, 'open'],
    ]);
    expect(remoteFile(repo, changed.branch, changed.files[0]!.path)).toBe(changed.files[0]!.content);
    expect(git(repo.remote, 'rev-list', '--count', `main..${changed.branch}`)).toBe('1');
  });

  it('leaves a branch a person committed to untouched and says so on its PR, once', async () => {
    const { repo, deps } = await setup();
    const cs = placement('resnet50-infer', 1);
    await writeBack([cs], deps);
    const theirs = new PersonClone(repo).commit(cs.branch, { [cs.files[0]!.path]: 'replicas: 4 # Jane\n' });

    const [r] = await writeBack([placement('resnet50-infer', 3)], deps);
    expect(r).toMatchObject({
      action: 'person-commits',
      reason: 'PersonCommits',
      pullRequest: { number: 1 },
    });
    expect(remoteRef(repo, cs.branch)).toBe(theirs);
    expect(remoteFile(repo, cs.branch, cs.files[0]!.path)).toBe('replicas: 4 # Jane\n');
    const comments = gh.comments.get(1) ?? [];
    expect(comments).toHaveLength(1);
    expect(comments[0]!.body).toContain(theirs.slice(0, 12));
    expect(comments[0]!.body).toContain('Jane Doe <jane@example.com>');

    await writeBack([placement('resnet50-infer', 3)], deps);
    expect(gh.comments.get(1)).toHaveLength(1);
    expect(remoteRef(repo, cs.branch)).toBe(theirs);
  });

  it('starts the branch of a merged PR afresh from main and opens a new PR', async () => {
    const { repo, deps } = await setup();
    const cs = placement('resnet50-infer', 1);
    await writeBack([cs], deps);
    const merge = new PersonClone(repo).merge(cs.branch);
    Object.assign(gh.pulls[0]!, { state: 'closed', merged: true });

    const next = placement('resnet50-infer', 2);
    const [r] = await writeBack([next], deps);
    expect(r).toMatchObject({ action: 'created', pullRequest: { number: 2 } });
    expect(r!.message).toContain('started afresh from main');
    expect(git(repo.remote, 'rev-parse', `${next.branch}^`)).toBe(merge);
    expect(git(repo.remote, 'rev-list', '--count', `main..${next.branch}`)).toBe('1');
  });

  it('waits out a secondary rate limit (403 without retry-after) for the 60 s GitHub asks, then succeeds', async () => {
    const { deps, waits } = await setup();
    gh.script(secondaryRateLimit('POST', PULLS));
    const [r] = await writeBack([placement('resnet50-infer', 1)], deps);
    expect(r!.action).toBe('created');
    expect(waits).toEqual([
      { kind: 'secondary', seconds: 60, retryCount: 0, method: 'POST', url: '/repos/{owner}/{repo}/pulls' },
    ]);
    expect(gh.requests.filter((q) => q.method === 'POST' && q.path === PULLS).map((q) => q.status)).toEqual([
      403, 201,
    ]);
  });

  it('waits the retry-after of a 429, then succeeds', async () => {
    const { deps, waits } = await setup();
    gh.script(tooManyRequests('PATCH', `${PULLS}/1`, 7));
    const cs = placement('resnet50-infer', 1);
    gh.addPull({ head: cs.branch, title: 'stale' });
    const [r] = await writeBack([cs], deps);
    expect(r!.action).toBe('updated');
    expect(waits.map((w) => [w.kind, w.seconds])).toEqual([['retry-after', 7]]);
    expect(gh.pulls[0]!.title).toBe(cs.title);
    expect(gh.requests.filter((q) => q.method === 'PATCH').map((q) => q.status)).toEqual([429, 200]);
  });

  it('waits until x-ratelimit-reset when x-ratelimit-remaining is 0, then succeeds', async () => {
    const { deps, waits } = await setup();
    gh.script(primaryRateLimit('GET', PULLS, Math.floor(Date.now() / 1000) + 3));
    const [r] = await writeBack([placement('resnet50-infer', 1)], deps);
    expect(r!.action).toBe('created');
    expect(waits).toHaveLength(1);
    expect(waits[0]!.kind).toBe('primary');
    expect(waits[0]!.seconds).toBeGreaterThanOrEqual(2);
    expect(waits[0]!.seconds).toBeLessThanOrEqual(4);
  });

  it('does not wait for a reset beyond the bound: RateLimited until HH:MM:SS (UTC), and the next pass writes', async () => {
    const { repo, deps, waits } = await setup();
    // The real second: a wait of an hour would time the test out.
    const host = new GitHubHost({
      owner: 'acme',
      repo: 'gitops',
      base: 'main',
      cluster: 'prod',
      token: gh.token,
      baseUrl: gh.url,
      pacing: false,
      onWait: (w) => waits.push(w),
    });
    const reset = Math.floor(Date.now() / 1000) + 3600;
    gh.script(primaryRateLimit('POST', PULLS, reset));
    const cs = placement('resnet50-infer', 1);
    const [r] = await writeBack([cs], { ...deps, host });
    const until = new Date(reset * 1000).toISOString().slice(11, 19);
    expect(r).toMatchObject({ action: 'failed', reason: 'RateLimited' });
    expect(r!.message).toMatch(new RegExp(`^RateLimited until ${until} UTC`));
    expect(r!.message).not.toContain(gh.token);
    expect(waits.map((w) => w.kind)).toEqual(['primary']);
    expect(waits[0]!.seconds).toBeGreaterThan(60);
    expect(gh.pulls).toEqual([]);
    const head = remoteRef(repo, cs.branch); // the branch was pushed; only its PR is missing
    expect(head).not.toBeNull();

    const [next] = await writeBack([cs], { ...deps, host });
    expect(next).toMatchObject({ action: 'created', commit: null, pullRequest: { number: 1 } });
    expect(remoteRef(repo, cs.branch)).toBe(head);
  });

  it('waits a secondary limit of exactly the bound (60 s), but not one of 61 s', async () => {
    const { deps, waits } = await setup();
    gh.script({ ...secondaryRateLimit('POST', PULLS), headers: { 'retry-after': '61' } });
    const [over] = await writeBack([placement('a-over', 1)], deps);
    expect(over).toMatchObject({ action: 'failed', reason: 'RateLimited' });
    gh.script({ ...secondaryRateLimit('POST', PULLS), headers: { 'retry-after': '60' } });
    const [at] = await writeBack([placement('b-at', 1)], deps);
    expect(at).toMatchObject({ action: 'created' });
    expect(waits.map((w) => w.seconds)).toEqual([61, 60]);
  });

  it('a failing list of open pull requests gives every branch its own result and writes nothing', async () => {
    const { repo, deps } = await setup();
    gh.script(primaryRateLimit('GET', PULLS, Math.floor(Date.now() / 1000) + 3600));
    const input = [placement('a', 1), placement('b', 2)];
    const results = await writeBack(input, deps);
    expect(results.map((r) => [r.subject, r.action, r.reason])).toEqual([
      ['a', 'failed', 'RateLimited'],
      ['b', 'failed', 'RateLimited'],
    ]);
    expect(results.every((r) => r.message.startsWith('RateLimited until '))).toBe(true);
    expect(input.map((cs) => remoteRef(repo, cs.branch))).toEqual([null, null]);
  });

  it('two write-backs at once on one remote and one repository: one branch, one commit and one PR per subject', async () => {
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
      writeBack(input, { ...a.deps, workingCopy: wc2, store: new MemoryPullRequestStore() }),
    ]);
    expect([...ra, ...rb].filter((r) => r.action === 'failed')).toEqual([]);
    expect(gh.pulls.map((p) => p.head).sort()).toEqual(input.map((cs) => cs.branch).sort());
    for (const cs of input) {
      expect(git(a.repo.remote, 'rev-list', '--count', `main..${cs.branch}`)).toBe('1');
    }
  });

  it('reports a permission 403 without retrying, and goes on with the other subjects', async () => {
    const { deps, waits, store } = await setup();
    gh.script(permissionDenied('POST', PULLS));
    const results = await writeBack([placement('a-first', 1), placement('b-second', 1)], deps);
    expect(results.map((r) => [r.subject, r.action, r.reason])).toEqual([
      ['a-first', 'failed', 'HostPermission'],
      ['b-second', 'created', 'Created'],
    ]);
    expect(results[0]!.message).toContain('Resource not accessible by integration');
    expect(results[0]!.message).not.toContain(gh.token);
    expect(waits).toEqual([]);
    expect(gh.requests.filter((q) => q.method === 'POST' && q.path === PULLS).map((q) => q.status)).toEqual([
      403, 201,
    ]);
    expect(store.records.map((r) => r.subject)).toEqual(['b-second']);
  });

  it('defers new PRs over maxOpenedPerPass and maxOpen, pushing nothing for them', async () => {
    const { repo, deps } = await setup({ limits: { maxOpenedPerPass: 1, maxOpen: 2 } });
    gh.addPull({ head: 'gpuops/prod/scale/other', title: 'open already' });
    const input = [placement('a', 1), placement('b', 1)];
    const first = await writeBack(input, deps);
    expect(first.map((r) => [r.subject, r.action, r.reason])).toEqual([
      ['a', 'created', 'Created'],
      ['b', 'deferred', 'MaxOpenedPerPass'],
    ]);
    expect(remoteRef(repo, input[1]!.branch)).toBeNull();
    const second = await writeBack(input, deps);
    expect(second.map((r) => [r.subject, r.action, r.reason])).toEqual([
      ['a', 'unchanged', 'UpToDate'],
      ['b', 'deferred', 'MaxOpen'],
    ]);
  });

  it('dry-run reports what it would do and writes nothing anywhere', async () => {
    const { repo, wc, deps, store } = await setup({ dryRun: true });
    const results = await writeBack([placement('resnet50-infer', 1)], deps);
    expect(results).toMatchObject([
      { action: 'would-create', reason: 'DryRun', files: [{ change: 'create' }] },
    ]);
    expect(gh.writes()).toEqual([]);
    expect(wc.counters).toMatchObject({ commits: 0, pushes: 0 });
    expect(remoteRef(repo, 'gpuops/prod/placement/resnet50-infer')).toBeNull();
    expect(store.upserts).toBe(0);
  });
});

describe('writeBack in patch mode', () => {
  it('re-applies on the new head when someone pushed to main meanwhile, then is idempotent', async () => {
    const { repo, wc, deps } = await setup({ mode: 'patch' });
    const person = new PersonClone(repo);
    let theirs = '';
    const racing = {
      baseBranch: wc.baseBranch,
      sync: () => wc.sync(),
      // A person pushes to main after write-back fetched and before it pushes.
      applyAll: async (...args: Parameters<WorkingCopy['applyAll']>) => {
        theirs = person.commit('main', { 'algorithms/new.yaml': 'kind: Algorithm\n' });
        return wc.applyAll(...args);
      },
    };
    const cs = placement('resnet50-infer', 1);
    const [r] = await writeBack([cs], { ...deps, workingCopy: racing });
    expect(r).toMatchObject({ action: 'committed', branch: 'main' });
    expect(git(repo.remote, 'rev-parse', 'main')).toBe(r!.commit);
    expect(git(repo.remote, 'rev-parse', 'main^')).toBe(theirs);
    expect(remoteFile(repo, 'main', 'algorithms/new.yaml')).toBe('kind: Algorithm\n');
    expect(remoteFile(repo, 'main', cs.files[0]!.path)).toBe(cs.files[0]!.content);
    expect(gh.requests).toEqual([]);

    const pushes = wc.counters.pushes;
    const [again] = await writeBack([cs], deps);
    expect(again!.action).toBe('unchanged');
    expect(wc.counters.pushes).toBe(pushes);
  });
});

describe('reportInvalidSpecs', () => {
  it('comments the errors on the open PR of that algorithm once, and not on other PRs', async () => {
    const { host } = await setup();
    gh.addPull({ head: 'gpuops/prod/scale/bert', title: 'scale bert' });
    gh.addPull({ head: 'gpuops/prod/scale/other', title: 'scale other' });
    const invalid = [
      {
        algorithm: 'bert',
        errors: [
          {
            file: 'algorithms/bert.yaml',
            line: 9,
            column: 7,
            field: 'spec.resources.gpus',
            message: 'must be ≥ 1',
          },
        ],
      },
    ];
    const deps = { host, cluster: 'prod', base: 'main', dryRun: false };
    expect(await reportInvalidSpecs(invalid, deps)).toEqual([1]);
    expect(await reportInvalidSpecs(invalid, deps)).toEqual([]);
    expect(gh.comments.get(1)?.map((c) => c.body)).toHaveLength(1);
    expect(gh.comments.get(1)![0]!.body).toContain(
      '`algorithms/bert.yaml:9:7` `spec.resources.gpus`: `must be ≥ 1`',
    );
    expect(gh.comments.get(2)).toBeUndefined();
  });
});
