/**
 * A force-pushed base branch (history rewritten with the same files, then rewound to older files)
 * while gpuops's own, already merged branch is still on the remote (the shared case T4-06). The
 * commits of the old history on gpuops's branch are not a person's: gpuops pushed or built on them,
 * or the new base holds them by content. The branch is rebuilt on the new base; a person's commit
 * on it is still left alone; a branch merely behind a base that moved on is left as it is.
 * Real git, temporary bare repositories.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { memoryLedger, type CommitLedger } from '../../src/working-copy/commit-ledger.js';
import { desiredHash } from '../../src/change-sets/pr-body.js';
import type { ChangeSet, FileChange } from '../../src/change-sets/types.js';
import { WorkingCopy } from '../../src/working-copy/working-copy.js';
import { PersonClone, git, makeRemote, remoteFile, remoteRef, type TempRepo } from './helpers.js';

const repos: TempRepo[] = [];
afterEach(() => {
  for (const r of repos.splice(0)) r.cleanup();
});

const BRANCH = 'gpuops/prod/pools';
const node = (n: string) => `clusters/prod/nodes/${n}.yaml`;

function pools(nodes: string[]): ChangeSet {
  const files: FileChange[] = nodes.map((n) => ({ path: node(n), content: `name: ${n}\npool: unused\n` }));
  return {
    kind: 'pools',
    subject: 'pools',
    branch: BRANCH,
    title: 'pools',
    body: 'b',
    files,
    desiredHash: desiredHash(files),
  };
}

function open(repo: TempRepo, ledger: CommitLedger): Promise<WorkingCopy> {
  return WorkingCopy.open({
    repoUrl: repo.url,
    baseBranch: 'main',
    dir: join(repo.root, 'cache'),
    sleep: async () => undefined,
    random: () => 0.5,
    ledger,
  });
}

/** An admin force-pushes main to a new root commit holding `tree` (history rewritten). */
function forcePushMain(repo: TempRepo, tree: string, message: string): string {
  const sha = git(repo.remote, 'commit-tree', tree, '-m', message);
  git(repo.remote, 'update-ref', 'refs/heads/main', sha);
  return sha;
}

/** Pass 1 and the reviewer's fast-forward merge: main holds gpuops's pools commit. Returns the seed's tree. */
async function mergedPools(repo: TempRepo, wc: WorkingCopy): Promise<string> {
  const seedTree = git(repo.remote, 'rev-parse', 'main^{tree}');
  const first = await wc.apply(pools(['gpu-a', 'gpu-b']), { mode: 'pull-request' });
  expect(first.status).toBe('pushed');
  git(repo.remote, 'update-ref', 'refs/heads/main', first.commit!);
  return seedTree;
}

describe('a force-pushed base branch', () => {
  it.each([
    ['the merged PR (fresh)', true],
    ['a PR still open', false],
  ])('rewritten with the same files: %s is rebuilt on the new base with the new node', async (_, fresh) => {
    const repo = makeRemote();
    repos.push(repo);
    const wc = await open(repo, memoryLedger());
    await mergedPools(repo, wc);
    const rewritten = forcePushMain(repo, git(repo.remote, 'rev-parse', 'main^{tree}'), 'history rewritten');
    await wc.sync();
    const r = await wc.apply(pools(['gpu-a', 'gpu-b', 'gpu-c']), { mode: 'pull-request', fresh });
    // Before: "person-commits" (the seed commit of the old history is not by gpuops's e-mail).
    expect([r.status, r.startedAfresh, r.forced]).toEqual(['pushed', true, true]);
    expect(git(repo.remote, 'rev-parse', `${r.commit}^`)).toBe(rewritten);
    expect(remoteFile(repo, BRANCH, node('gpu-c'))).not.toBeNull();
  });

  it('rewound to older files: the branch built on the rewritten base is rebuilt on the rewound one with every node', async () => {
    const repo = makeRemote();
    repos.push(repo);
    const wc = await open(repo, memoryLedger());
    const seedTree = await mergedPools(repo, wc);
    forcePushMain(repo, git(repo.remote, 'rev-parse', 'main^{tree}'), 'history rewritten');
    await wc.sync();
    const three = pools(['gpu-a', 'gpu-b', 'gpu-c']);
    expect((await wc.apply(three, { mode: 'pull-request', fresh: true })).status).toBe('pushed');
    const rewound = forcePushMain(repo, seedTree, 'rewound to the seed');
    await wc.sync();
    const r = await wc.apply(three, { mode: 'pull-request' });
    // Before: "unchanged" (the branch held the files, on a base main no longer has).
    expect([r.status, r.forced]).toEqual(['pushed', true]);
    expect(git(repo.remote, 'merge-base', '--is-ancestor', rewound, remoteRef(repo, BRANCH)!)).toBe('');
    expect(
      git(repo.remote, 'ls-tree', '-r', '--name-only', BRANCH, 'clusters/prod/nodes/').split('\n'),
    ).toHaveLength(3);
  });

  it('a person’s commit on the branch after the rewrite is still a person’s: left alone', async () => {
    const repo = makeRemote();
    repos.push(repo);
    const wc = await open(repo, memoryLedger());
    await mergedPools(repo, wc);
    const theirs = new PersonClone(repo).commit(BRANCH, { [node('gpu-a')]: 'name: gpu-a\npool: test\n' });
    forcePushMain(repo, git(repo.remote, 'rev-parse', 'main^{tree}'), 'history rewritten');
    await wc.sync();
    const r = await wc.apply(pools(['gpu-a', 'gpu-b', 'gpu-c']), { mode: 'pull-request', fresh: true });
    expect(r.status).toBe('person-commits');
    expect(r.personCommits.map((c) => c.sha)).toEqual([theirs]);
    expect(remoteRef(repo, BRANCH)).toBe(theirs);
  });

  it('a branch merely behind a base that moved on (no rewrite) and holding the files is left as it is: no push', async () => {
    const repo = makeRemote();
    repos.push(repo);
    const wc = await open(repo, memoryLedger());
    const cs = pools(['gpu-a']);
    const first = await wc.apply(cs, { mode: 'pull-request' });
    new PersonClone(repo).commit('main', { 'algorithms/x.yaml': 'kind: Algorithm\n' });
    await wc.sync();
    const r = await wc.apply(cs, { mode: 'pull-request' });
    expect(r.status).toBe('unchanged');
    expect(remoteRef(repo, BRANCH)).toBe(first.commit);
  });
});
