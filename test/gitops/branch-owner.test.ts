/**
 * Whose commits a gpuops branch holds: gpuops knows its own by the ids it pushed (the ledger), never
 * by the author e-mail anyone can type. Real git, temporary bare repositories: a commit authored as
 * gpuops that gpuops never pushed (adding a ClusterRoleBinding under `clusters/prod/`) is a
 * person's and every file of the branch's diff is reported; gpuops's own commits, commits the base
 * holds by content and a branch pointed at another branch's gpuops commit are its neighbours.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { branchFileList, containedInBase, recordedClosure } from '../../src/working-copy/branch-owner.js';
import { memoryLedger, type CommitLedger } from '../../src/working-copy/commit-ledger.js';
import { desiredHash } from '../../src/change-sets/pr-body.js';
import type { ApplyOutcome, ChangeSet, FileChange } from '../../src/change-sets/types.js';
import { DEFAULT_AUTHOR, WorkingCopy } from '../../src/working-copy/working-copy.js';
import { PersonClone, git, makeRemote, remoteFile, remoteRef, type TempRepo } from './helpers.js';

const repos: TempRepo[] = [];
afterEach(() => {
  for (const r of repos.splice(0)) r.cleanup();
});

const NODE = 'clusters/prod/nodes/gpu-a.yaml';
const CRB = 'clusters/prod/nodes/zz-admin.yaml';
const CRB_TEXT = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: "@attacker ![x](https://evil.example/p.png)"
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
subjects: [{kind: ServiceAccount, name: default, namespace: team-a}]
`;

function pools(content: string): ChangeSet {
  const files: FileChange[] = [{ path: NODE, content }];
  return {
    kind: 'pools',
    subject: 'pools',
    branch: 'gpuops/prod/pools',
    title: 'gpuops(prod): pools',
    body: 'body',
    files,
    desiredHash: desiredHash(files),
  };
}

async function open(repo: TempRepo, ledger: CommitLedger, name = 'cache'): Promise<WorkingCopy> {
  return WorkingCopy.open({
    repoUrl: repo.url,
    baseBranch: 'main',
    dir: join(repo.root, name),
    sleep: async () => undefined,
    random: () => 0.5,
    ledger,
  });
}

/** A commit on `branch` authored and committed as gpuops (name and e-mail typed by anyone), pushed. */
function spoofedCommit(repo: TempRepo, branch: string, files: Record<string, string>): string {
  const dir = join(repo.root, `spoof-${Math.random().toString(36).slice(2)}`);
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: tmpdir(),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: DEFAULT_AUTHOR.name,
    GIT_AUTHOR_EMAIL: DEFAULT_AUTHOR.email,
    GIT_COMMITTER_NAME: DEFAULT_AUTHOR.name,
    GIT_COMMITTER_EMAIL: DEFAULT_AUTHOR.email,
  };
  const run = (...args: string[]) => execFileSync('git', args, { cwd: dir, env, encoding: 'utf8' }).trim();
  execFileSync('git', ['clone', '-q', repo.remote, dir], { env });
  run('checkout', '-q', '-B', branch, `origin/${branch}`);
  for (const [p, c] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, p)), { recursive: true });
    writeFileSync(join(dir, p), c);
  }
  run('add', '-A');
  run('commit', '-q', '-m', 'gpuops(prod): pools');
  run('push', '-q', 'origin', `HEAD:refs/heads/${branch}`);
  return run('rev-parse', 'HEAD');
}

const outcome = (r: ApplyOutcome) => r;

describe('a gpuops branch: gpuops knows its commits by the ids it pushed', () => {
  it('a commit authored as gpuops but not pushed by it is a person’s; every file of the diff and its ClusterRoleBinding are reported', async () => {
    const repo = makeRemote();
    repos.push(repo);
    const wc = await open(repo, memoryLedger());
    const cs = pools('pool: test\n');
    expect((await wc.apply(cs, { mode: 'pull-request' })).status).toBe('pushed');
    const theirs = spoofedCommit(repo, cs.branch, { [CRB]: CRB_TEXT });
    await wc.sync();
    const r = outcome(await wc.apply(cs, { mode: 'pull-request' }));
    // Before: "unchanged" (the author e-mail was gpuops's, the branch held the desired files).
    expect(r.status).toBe('person-commits');
    expect(r.personCommits.map((c) => [c.sha, c.email])).toEqual([[theirs, DEFAULT_AUTHOR.email]]);
    expect(r.personChanges?.files).toEqual([
      { path: NODE, change: 'create', writtenBy: 'gpuops' },
      { path: CRB, change: 'create', writtenBy: 'person' },
    ]);
    expect(r.personChanges?.grants.map((g) => [g.kind, g.action, g.role])).toEqual([
      ['ClusterRoleBinding', 'create', 'ClusterRole/cluster-admin'],
    ]);
    expect(remoteRef(repo, cs.branch)).toBe(theirs); // never silently dropped
    expect(remoteFile(repo, 'main', CRB)).toBeNull(); // nor silently kept: nothing merged
  });

  it('gpuops’s own commit, known from the shared ledger by another working copy (a restart, a replica), is gpuops’s', async () => {
    const repo = makeRemote();
    repos.push(repo);
    const ledger = memoryLedger();
    const cs = pools('pool: test\n');
    await (await open(repo, ledger)).apply(cs, { mode: 'pull-request' });
    const again = await open(repo, ledger, 'restarted');
    expect((await again.apply(cs, { mode: 'pull-request' })).status).toBe('unchanged');
    // The same branch seen through a ledger that does not know the commit: a person's.
    const stranger = await open(repo, memoryLedger(), 'stranger');
    expect((await stranger.apply(cs, { mode: 'pull-request' })).status).toBe('person-commits');
  });

  it('a person’s commit the base holds by content (squash-merged) is nobody’s to keep: the branch starts afresh', async () => {
    const repo = makeRemote();
    repos.push(repo);
    const wc = await open(repo, memoryLedger());
    const cs = pools('pool: test\n');
    await wc.apply(cs, { mode: 'pull-request' });
    const person = new PersonClone(repo);
    person.commit(cs.branch, { 'clusters/prod/nodes/gpu-b.yaml': 'pool: unused\n' });
    // A reviewer squash-merges the branch into main: main holds both files, in one new commit.
    git(person.dir, 'checkout', '-q', '-B', 'main', 'origin/main');
    git(person.dir, 'merge', '-q', '--squash', `origin/${cs.branch}`);
    git(person.dir, 'commit', '-q', '-m', 'squash');
    git(person.dir, 'push', '-q', 'origin', 'HEAD:refs/heads/main');
    await wc.sync();
    const next = pools('pool: unused\n');
    const r = await wc.apply(next, { mode: 'pull-request' });
    expect([r.status, r.startedAfresh, r.forced]).toEqual(['pushed', true, true]);
    expect(git(repo.remote, 'rev-parse', `${r.commit}^`)).toBe(remoteRef(repo, 'main'));
  });

  it('a branch pointed at another branch’s gpuops commit is rebuilt: its diff holds paths the change set does not write', async () => {
    const repo = makeRemote();
    repos.push(repo);
    const wc = await open(repo, memoryLedger());
    const other: ChangeSet = {
      ...pools('x\n'),
      branch: 'gpuops/prod/scale/a',
      files: [{ path: 'clusters/prod/algorithms/a/deployment.yaml', content: 'replicas: 9\n' }],
    };
    const cs = pools('pool: test\n');
    await wc.applyAll([{ changeSet: other }, { changeSet: cs }], { mode: 'pull-request' });
    git(repo.remote, 'update-ref', `refs/heads/${cs.branch}`, remoteRef(repo, other.branch)!);
    await wc.sync();
    const r = await wc.apply(cs, { mode: 'pull-request' });
    expect([r.status, r.startedAfresh, r.forced]).toEqual(['pushed', true, true]);
    expect(remoteFile(repo, cs.branch, 'clusters/prod/algorithms/a/deployment.yaml')).toBeNull();
  });
});

describe('branch-owner (pure)', () => {
  const c = (sha: string, ...parents: string[]) => ({ sha, parents, author: 'x', email: 'x@y' });
  it.each([
    ['the recorded tip and its ancestors within the log', ['c'], ['b', 'c']],
    ['a recorded middle commit: not the commit on top of it', ['b'], ['b']],
    ['nothing recorded', [], []],
    ['a merge: both parents', ['m'], ['a', 'b', 'm']],
    ['an id the log does not hold', ['zz'], []],
  ])('recordedClosure: %s', (_, recorded, known) => {
    const logged = [c('m', 'b', 'a'), c('c', 'b'), c('b', 'base'), c('a', 'base')];
    expect([...recordedClosure(logged, new Set(recorded))].sort()).toEqual(known);
  });

  const base = new Map([
    ['a', { path: 'a', blob: '1', size: 1 }],
    ['b', { path: 'b', blob: '2', size: 1 }],
  ]);
  it.each([
    ['same blob', [{ path: 'a', change: 'update' as const, blob: '1' }], true],
    ['another blob', [{ path: 'a', change: 'update' as const, blob: '9' }], false],
    ['a file the base lacks', [{ path: 'c', change: 'create' as const, blob: '3' }], false],
    ['a deletion the base has made', [{ path: 'c', change: 'delete' as const, blob: null }], true],
    ['a deletion the base has not made', [{ path: 'b', change: 'delete' as const, blob: null }], false],
    ['no change at all', [], true],
  ])('containedInBase: %s', (_, changes, expected) => {
    expect(containedInBase(changes, base)).toBe(expected);
  });

  it('branchFileList marks a path gpuops writes with another content, or does not write, as a person’s', () => {
    const cs = {
      files: [
        { path: 'n1', content: 'ok\n' },
        { path: 'n2', content: null },
        { path: 'n3', content: 'x\n' },
      ],
    };
    const head = new Map([
      ['n1', 'ok\n'],
      ['n3', 'tuned\n'],
      ['crb', 'kind: ClusterRoleBinding\n'],
    ]);
    const files = branchFileList(
      [
        { path: 'n3', change: 'update', blob: 'c' },
        { path: 'crb', change: 'create', blob: 'd' },
        { path: 'n1', change: 'create', blob: 'a' },
        { path: 'n2', change: 'delete', blob: null },
      ],
      cs,
      (p) => head.get(p),
    );
    expect(files).toEqual([
      { path: 'crb', change: 'create', writtenBy: 'person' },
      { path: 'n1', change: 'create', writtenBy: 'gpuops' },
      { path: 'n2', change: 'delete', writtenBy: 'gpuops' },
      { path: 'n3', change: 'update', writtenBy: 'person' },
    ]);
  });
});
