import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { desiredHash } from '../../src/change-sets/pr-body.js';
import { GitOpsError } from '../../src/working-copy/git-errors.js';
import { WorkingCopy } from '../../src/working-copy/working-copy.js';
import type { ChangeSet, FileChange } from '../../src/change-sets/types.js';
import {
  PersonClone,
  authors,
  commitCount,
  git,
  makeRemote,
  remoteFile,
  remoteRef,
  type TempRepo,
} from './helpers.js';

const repos: TempRepo[] = [];
afterEach(() => {
  for (const r of repos.splice(0)) r.cleanup();
});

function setup(files?: Record<string, string>): TempRepo {
  const r = makeRemote(files);
  repos.push(r);
  return r;
}

function open(repo: TempRepo, name = 'cache'): Promise<WorkingCopy> {
  return WorkingCopy.open({
    repoUrl: repo.url,
    baseBranch: 'main',
    dir: join(repo.root, name),
    sleep: async () => undefined,
    random: () => 0.5,
  });
}

function changeSet(
  files: FileChange[],
  subject = 'resnet50-infer',
  kind: ChangeSet['kind'] = 'placement',
): ChangeSet {
  return {
    kind,
    subject,
    branch: kind === 'pools' ? 'gpuops/prod/pools' : `gpuops/prod/${kind}/${subject}`,
    title: `gpuops(prod): place ${subject} on short-task`,
    body: 'body',
    files,
    desiredHash: desiredHash(files),
  };
}

const DEPLOY = 'clusters/prod/algorithms/resnet50-infer/deployment.yaml';

describe('WorkingCopy', () => {
  it('reads the files under a prefix at the base branch head', async () => {
    const repo = setup({
      'README.md': 'x\n',
      'clusters/prod/nodes/a.yaml': 'a: 1\n',
      'clusters/dev/nodes/b.yaml': 'b: 2\n',
    });
    const wc = await open(repo);
    const tree = await wc.readTree('clusters/prod/');
    expect([...tree]).toEqual([['clusters/prod/nodes/a.yaml', 'a: 1\n']]);
    expect((await wc.readTree('')).size).toBe(3);
  });

  it('pushes a new branch once, authored by gpuops, and then makes no commit and no push', async () => {
    const repo = setup();
    const wc = await open(repo);
    const cs = changeSet([{ path: DEPLOY, content: 'replicas: 1\n' }]);
    const first = await wc.apply(cs, { mode: 'pull-request' });
    expect(first).toMatchObject({
      status: 'pushed',
      ref: cs.branch,
      files: [{ path: DEPLOY, change: 'create' }],
    });
    expect(remoteRef(repo, cs.branch)).toBe(first.commit);
    expect(remoteFile(repo, cs.branch, DEPLOY)).toBe('replicas: 1\n');
    expect(authors(repo, `main..${cs.branch}`)).toEqual(['gpuops <gpuops@users.noreply.local>']);
    expect(git(repo.remote, 'log', '-1', '--format=%B', cs.branch)).toContain(
      `Gpuops-Desired-Hash: ${cs.desiredHash}`,
    );

    const counters = { ...wc.counters };
    const again = await wc.apply(cs, { mode: 'pull-request' });
    expect(again.status).toBe('unchanged');
    expect(wc.counters.commits).toBe(counters.commits);
    expect(wc.counters.pushes).toBe(counters.pushes);
    expect(remoteRef(repo, cs.branch)).toBe(first.commit);
  });

  it('commits on top of its own branch when the desired files change (no force)', async () => {
    const repo = setup();
    const wc = await open(repo);
    const first = await wc.apply(changeSet([{ path: DEPLOY, content: 'replicas: 1\n' }]), {
      mode: 'pull-request',
    });
    const second = await wc.apply(changeSet([{ path: DEPLOY, content: 'replicas: 2\n' }]), {
      mode: 'pull-request',
    });
    expect(second).toMatchObject({ status: 'pushed', forced: false, startedAfresh: false });
    expect(git(repo.remote, 'rev-parse', `${second.commit}^`)).toBe(first.commit);
  });

  it('leaves a gpuops branch alone when a person committed to it', async () => {
    const repo = setup();
    const wc = await open(repo);
    const cs = changeSet([{ path: DEPLOY, content: 'replicas: 1\n' }]);
    await wc.apply(cs, { mode: 'pull-request' });
    const person = new PersonClone(repo);
    const theirs = person.commit(cs.branch, { [DEPLOY]: 'replicas: 1 # tuned by Jane\n' });
    await wc.sync();
    for (const fresh of [false, true]) {
      const out = await wc.apply(changeSet([{ path: DEPLOY, content: 'replicas: 3\n' }]), {
        mode: 'pull-request',
        fresh,
      });
      expect(out.status).toBe('person-commits');
      expect(out.personCommits).toEqual([{ sha: theirs, author: 'Jane Doe', email: 'jane@example.com' }]);
    }
    expect(remoteRef(repo, cs.branch)).toBe(theirs);
    expect(remoteFile(repo, cs.branch, DEPLOY)).toBe('replicas: 1 # tuned by Jane\n');
  });

  it('detects a person push that lands between fetch and push (lease), and leaves it', async () => {
    const repo = setup();
    const wc = await open(repo);
    await wc.apply(changeSet([{ path: DEPLOY, content: 'replicas: 1\n' }]), { mode: 'pull-request' });
    const theirs = new PersonClone(repo).commit('gpuops/prod/placement/resnet50-infer', {
      'NOTE.md': 'mine\n',
    });
    // No sync: the working copy still believes the branch is its own; the push is rejected.
    const out = await wc.apply(changeSet([{ path: DEPLOY, content: 'replicas: 2\n' }]), {
      mode: 'pull-request',
    });
    expect(out.status).toBe('person-commits');
    expect(remoteRef(repo, 'gpuops/prod/placement/resnet50-infer')).toBe(theirs);
  });

  it('patch mode: a push rejected because someone pushed to main is fetched, re-applied and pushed again', async () => {
    const repo = setup({ 'README.md': 'x\n' });
    const wc = await open(repo);
    const person = new PersonClone(repo);
    const theirs = person.commit('main', { 'algorithms/new.yaml': 'kind: Algorithm\n' });
    const out = await wc.apply(changeSet([{ path: DEPLOY, content: 'replicas: 2\n' }]), { mode: 'patch' });
    expect(out).toMatchObject({ status: 'pushed', ref: 'main', attempts: 2, forced: false });
    expect(git(repo.remote, 'rev-parse', `${out.commit}^`)).toBe(theirs);
    expect(remoteFile(repo, 'main', 'algorithms/new.yaml')).toBe('kind: Algorithm\n');
    expect(remoteFile(repo, 'main', DEPLOY)).toBe('replicas: 2\n');
    expect(commitCount(repo, 'main')).toBe(3);
    const again = await wc.apply(changeSet([{ path: DEPLOY, content: 'replicas: 2\n' }]), { mode: 'patch' });
    expect(again.status).toBe('unchanged');
  });

  it('gives up after maxAttempts pushes', async () => {
    const repo = setup();
    const person = new PersonClone(repo);
    const sleeps: number[] = [];
    const wc = await WorkingCopy.open({
      repoUrl: repo.url,
      baseBranch: 'main',
      dir: join(repo.root, 'cache'),
      maxAttempts: 1,
      sleep: async (ms) => void sleeps.push(ms),
    });
    person.commit('main', { 'f0.txt': 'x\n' });
    await expect(
      wc.apply(changeSet([{ path: DEPLOY, content: 'a\n' }]), { mode: 'patch' }),
    ).rejects.toMatchObject({
      kind: 'non-fast-forward',
      operation: 'push',
    });
    expect(remoteFile(repo, 'main', DEPLOY)).toBeNull();
    expect(sleeps).toEqual([]);
  });

  it('starts the branch of a merged PR afresh from main (fast-forward, no force)', async () => {
    const repo = setup();
    const wc = await open(repo);
    const cs = changeSet([{ path: DEPLOY, content: 'replicas: 1\n' }]);
    await wc.apply(cs, { mode: 'pull-request' });
    const mergeCommit = new PersonClone(repo).merge(cs.branch);
    await wc.sync();
    const out = await wc.apply(changeSet([{ path: DEPLOY, content: 'replicas: 2\n' }]), {
      mode: 'pull-request',
    });
    expect(out).toMatchObject({ status: 'pushed', startedAfresh: true, forced: false });
    expect(git(repo.remote, 'rev-parse', `${out.commit}^`)).toBe(mergeCommit);
    expect(git(repo.remote, 'rev-list', '--count', `main..${cs.branch}`)).toBe('1');
  });

  it('starts a closed (unmerged) gpuops-only branch afresh with a leased force-push', async () => {
    const repo = setup();
    const wc = await open(repo);
    const cs = changeSet([{ path: DEPLOY, content: 'replicas: 1\n' }]);
    const old = await wc.apply(cs, { mode: 'pull-request' });
    const out = await wc.apply(changeSet([{ path: DEPLOY, content: 'replicas: 5\n' }]), {
      mode: 'pull-request',
      fresh: true,
    });
    expect(out).toMatchObject({ status: 'pushed', startedAfresh: true, forced: true });
    expect(git(repo.remote, 'rev-parse', `${out.commit}^`)).toBe(remoteRef(repo, 'main'));
    expect(git(repo.remote, 'branch', '--contains', old.commit!)).not.toContain(cs.branch);
    expect(git(repo.remote, 'rev-list', '--count', `main..${cs.branch}`)).toBe('1');
  });

  it('reports in-base when main already holds the files, and dry-run writes nothing', async () => {
    const repo = setup({ [DEPLOY]: 'replicas: 1\n' });
    const wc = await open(repo);
    expect(
      (await wc.apply(changeSet([{ path: DEPLOY, content: 'replicas: 1\n' }]), { mode: 'pull-request' }))
        .status,
    ).toBe('in-base');
    const dry = await wc.apply(changeSet([{ path: DEPLOY, content: null }]), {
      mode: 'pull-request',
      dryRun: true,
    });
    expect(dry).toMatchObject({ status: 'would-push', files: [{ path: DEPLOY, change: 'delete' }] });
    expect(wc.counters).toMatchObject({ commits: 0, pushes: 0 });
    expect(remoteRef(repo, 'gpuops/prod/placement/resnet50-infer')).toBeNull();
  });

  it('refuses paths that leave the repository', async () => {
    const repo = setup();
    const wc = await open(repo);
    expect(() => wc.apply(changeSet([{ path: '../etc/passwd', content: 'x' }]), { mode: 'patch' })).toThrow(
      /repo-relative/,
    );
  });

  it('classifies a missing repository as refused and an unreachable host as transient, without the credentials', async () => {
    const repo = setup();
    await expect(
      WorkingCopy.open({
        repoUrl: `file://${repo.root}/missing.git`,
        baseBranch: 'main',
        dir: join(repo.root, 'c1'),
        maxAttempts: 1,
      }),
    ).rejects.toMatchObject({ kind: 'refused' });
    const err: unknown = await WorkingCopy.open({
      repoUrl: 'https://jane:hunter2secret@127.0.0.1:1/acme/gitops.git',
      baseBranch: 'main',
      dir: join(repo.root, 'c2'),
      token: 'ghs_supersecret',
      maxAttempts: 2,
      sleep: async () => undefined,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GitOpsError);
    expect((err as GitOpsError).kind).toBe('transient');
    expect((err as GitOpsError).message).not.toMatch(/hunter2secret|ghs_supersecret/);
    expect((err as GitOpsError).message).toContain('127.0.0.1');
  });
});
