/**
 * The demo's reviewer against real git: a seeded bare origin, a clean merge, a conflict that is
 * aborted and pushes nothing, a branch that does not exist, and the files a checkout lists.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REVIEWER, createOrigin, listFiles, mergeBranch, syncCheckout } from '../../src/demo/git-origin.js';

const ENV = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: tmpdir(),
  LANG: 'C',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'gpuops',
  GIT_AUTHOR_EMAIL: 'gpuops@users.noreply.local',
  GIT_COMMITTER_NAME: 'gpuops',
  GIT_COMMITTER_EMAIL: 'gpuops@users.noreply.local',
};
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, env: ENV, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

let root: string;
let origin: string;
let reviewer: string;

/** Pushes a gpuops branch whose one commit writes `files` on top of `main`. */
function pushBranch(branch: string, files: Record<string, string>): void {
  const work = path.join(root, `work-${branch.replace(/\//g, '-')}`);
  git(root, 'clone', '-q', origin, work);
  git(work, 'checkout', '-q', '-b', branch);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(work, file)), { recursive: true });
    writeFileSync(path.join(work, file), text);
  }
  git(work, 'add', '--all');
  git(work, 'commit', '-q', '-m', `write ${branch}`);
  git(work, 'push', '-q', 'origin', branch);
}

beforeEach(async () => {
  root = mkdtempSync(path.join(tmpdir(), 'gpuops-demo-origin-'));
  const seed = path.join(root, 'seed');
  mkdirSync(path.join(seed, 'algorithms'), { recursive: true });
  writeFileSync(path.join(seed, 'algorithms', 'a.yaml'), 'name: a\n');
  writeFileSync(path.join(seed, 'README.md'), '# demo\n');
  origin = path.join(root, 'origin.git');
  reviewer = path.join(root, 'checkouts', 'reviewer');
  await createOrigin(origin, seed);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('demo git origin (simple-git typed commands, real git)', () => {
  it('seeds a bare origin with one reviewer commit holding the seed files', async () => {
    expect(git(origin, 'rev-parse', '--is-bare-repository')).toBe('true');
    expect(git(origin, 'log', '--format=%an <%ae>|%s', 'main').split('\n')).toEqual([
      `${REVIEWER.name} <${REVIEWER.email}>|Example algorithms and the demo policy`,
    ]);
    expect(git(origin, 'ls-tree', '-r', '--name-only', 'main').split('\n')).toEqual([
      'README.md',
      'algorithms/a.yaml',
    ]);
    expect(git(root, 'ls-remote', '--heads', origin)).not.toMatch(/seed/);
  });

  it('merges a branch with --no-ff, pushes main, and the checkout lists the merged files', async () => {
    pushBranch('gpuops/demo/pools', { 'clusters/demo/nodes/n1.yaml': 'kind: Node\n' });
    const r = await mergeBranch(origin, reviewer, 'gpuops/demo/pools');
    expect(r).toEqual({ merged: true, commit: git(origin, 'rev-parse', 'main') });
    expect(git(origin, 'log', '-1', '--format=%P|%an|%s', 'main')).toMatch(
      new RegExp(`^[0-9a-f]{40} [0-9a-f]{40}\\|${REVIEWER.name}\\|Merge branch 'gpuops/demo/pools'`),
    );
    expect(await listFiles(reviewer, 'clusters/demo/')).toEqual(['clusters/demo/nodes/n1.yaml']);
    expect(await listFiles(reviewer, 'clusters/other/')).toEqual([]);
  });

  it('aborts a conflicting merge, names the file, and pushes nothing', async () => {
    pushBranch('gpuops/demo/a', { 'algorithms/a.yaml': 'name: from-branch\n' });
    pushBranch('gpuops/demo/b', { 'algorithms/a.yaml': 'name: from-other\n' });
    expect(await mergeBranch(origin, reviewer, 'gpuops/demo/a')).toMatchObject({ merged: true });
    const before = git(origin, 'rev-parse', 'main');
    const r = await mergeBranch(origin, reviewer, 'gpuops/demo/b');
    expect(r).toEqual({
      merged: false,
      reason: 'Conflict',
      message: 'conflicts with main in algorithms/a.yaml',
    });
    expect(git(origin, 'rev-parse', 'main')).toBe(before);
    expect(git(reviewer, 'status', '--porcelain')).toBe('');
  });

  it('reports a branch that does not exist as NoBranch', async () => {
    const r = await mergeBranch(origin, reviewer, 'gpuops/demo/missing');
    expect(r).toEqual({
      merged: false,
      reason: 'NoBranch',
      message: `no branch gpuops/demo/missing in ${origin}`,
    });
  });

  it('syncCheckout resets a checkout to origin/main, dropping local commits', async () => {
    await syncCheckout(origin, reviewer);
    writeFileSync(path.join(reviewer, 'stray.txt'), 'x\n');
    git(reviewer, 'add', 'stray.txt');
    git(reviewer, 'commit', '-q', '-m', 'stray');
    await syncCheckout(origin, reviewer);
    expect(git(reviewer, 'rev-parse', 'HEAD')).toBe(git(origin, 'rev-parse', 'main'));
    expect(await listFiles(reviewer, '')).toEqual(['README.md', 'algorithms/a.yaml']);
  });

  it('names the folder when git fails', async () => {
    await expect(mergeBranch(path.join(root, 'no-such.git'), reviewer, 'x')).rejects.toThrow(
      /^git clone \(in .*checkouts\): /,
    );
  });
});
