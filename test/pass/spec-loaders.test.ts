/**
 * One loader, one answer: the specs of a GitOps repo read from disk (`validate`, `plan --repo`:
 * `loadRepo`) and from Git (`reconcile`, `run`: `workingCopySpecs`) are the same algorithms and
 * the same errors — a dot-folder under `algorithms/` is skipped by both, a file over the per-file
 * cap or past the folder's byte budget is that file's error in both, never read, and the other
 * specs go on. A blob over the cap (64 MiB here; the review's was 600 MiB) is judged by the size git reports and never read. Real git, temporary
 * bare repositories; the same files on disk.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadDefaultPolicy, loadRepo } from '../../src/definitions/load.js';
import {
  MAX_FILE_BYTES,
  MAX_TOTAL_BYTES,
  budgetSpecFiles,
  specFolderOf,
} from '../../src/definitions/spec-files.js';
import type { LoadedRepo } from '../../src/definitions/types.js';
import { WorkingCopy } from '../../src/working-copy/working-copy.js';
import { workingCopySpecs } from '../../src/pass/specs.js';
import { createReconcilerMemory } from '../../src/plan/memory.js';
import { algorithmFile } from '../support/reconcile-harness.js';
import { git, makeRemote, type TempRepo } from '../gitops/helpers.js';

const temps: TempRepo[] = [];
afterAll(() => {
  for (const t of temps) t.cleanup();
});

/** The same files on disk and in a bare remote's `main`; `blobs` are written to Git only (by size). */
function bothWays(
  files: Record<string, string>,
  blobs: Record<string, number> = {},
): { dir: string; repo: TempRepo } {
  const repo = makeRemote();
  temps.push(repo);
  const dir = join(repo.root, 'disk');
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, p)), { recursive: true });
    writeFileSync(join(dir, p), text);
  }
  const work = join(repo.root, 'work');
  git(repo.root, 'clone', '-q', repo.remote, work);
  execFileSync('cp', ['-r', `${dir}/.`, work]);
  git(work, 'add', '-A');
  for (const [p, size] of Object.entries(blobs)) {
    // A blob of `size` spaces, streamed into git without a file on disk.
    const sha = execFileSync('sh', ['-c', `head -c ${size} /dev/zero | git hash-object -w --stdin`], {
      cwd: work,
      encoding: 'utf8',
    }).trim();
    git(work, 'update-index', '--add', '--cacheinfo', `100644,${sha},${p}`);
  }
  git(work, 'commit', '-q', '-m', 'specs');
  git(work, 'push', '-q', 'origin', 'HEAD:main');
  rmSync(work, { recursive: true, force: true });
  return { dir, repo };
}

async function fromGit(repo: TempRepo): Promise<LoadedRepo> {
  const wc = await WorkingCopy.open({ repoUrl: repo.url, baseBranch: 'main', dir: join(repo.root, 'cache') });
  const { repo: loaded } = await workingCopySpecs(wc).read(
    'prod',
    await loadDefaultPolicy(),
    createReconcilerMemory(),
  );
  return loaded;
}

const summary = (r: LoadedRepo) => ({
  algorithms: r.algorithms.map((a) => a.name).sort(),
  errors: r.errors.map((e) => e.file).sort(),
  unnamed: [...(r.names ?? [])]
    .filter(([, n]) => n.length === 0)
    .map(([f]) => f)
    .sort(),
});

describe('the disk and the Git loader give one answer', () => {
  it('a dot-folder is skipped by both; a dot-file, a nested and a .yml spec are read by both; policies/ is top level only', async () => {
    const { dir, repo } = bothWays({
      'algorithms/a.yaml': algorithmFile('a'),
      'algorithms/.archive/ghost.yaml': algorithmFile('ghost'),
      'algorithms/team/.hidden/ghost2.yaml': algorithmFile('ghost2'),
      'algorithms/.dotted.yaml': algorithmFile('dotted'),
      'algorithms/team/deep/b.yml': algorithmFile('b'),
      'algorithms/README.md': '# not a spec',
      'policies/sub/ignored.yaml': 'not: a policy',
    });
    const disk = summary(await loadRepo(dir));
    // Before: the Git loader placed `ghost` and `ghost2` (validate and plan skipped them).
    expect(summary(await fromGit(repo))).toEqual(disk);
    expect(disk.algorithms).toEqual(['a', 'b', 'dotted']);
  });

  it('a file one byte over the cap is that file’s error in both, and names no algorithm (none is removed); the others go on', async () => {
    const big = `${algorithmFile('big')}#${'x'.repeat(MAX_FILE_BYTES)}\n`.slice(0, MAX_FILE_BYTES + 1);
    const { dir, repo } = bothWays({ 'algorithms/a.yaml': algorithmFile('a'), 'algorithms/big.yaml': big });
    const git = summary(await fromGit(repo));
    expect(git).toEqual(summary(await loadRepo(dir)));
    expect(git).toEqual({
      algorithms: ['a'],
      errors: ['algorithms/big.yaml'],
      unnamed: ['algorithms/big.yaml'],
    });
  });

  it("a 64 MiB blob under algorithms/ (a few kB in Git's pack) is that file's error by the size git reports, never read; the others go on", async () => {
    // The same path as the 600 MiB input of the review, at a size a test can make in seconds.
    const size = 64 * 1024 * 1024;
    const { repo } = bothWays({ 'algorithms/a.yaml': algorithmFile('a') }, { 'algorithms/huge.yaml': size });
    const loaded = await fromGit(repo);
    expect(summary(loaded)).toEqual({
      algorithms: ['a'],
      errors: ['algorithms/huge.yaml'],
      unnamed: ['algorithms/huge.yaml'],
    });
    // Before: the blob was read and parsed (a YAML error at best; past 512 MiB, no string at all).
    expect(loaded.errors[0]!.message).toMatch(
      new RegExp(`^file is ${size} bytes; spec files are at most ${MAX_FILE_BYTES}`),
    );
  }, 120_000);
});

describe('spec-files (pure)', () => {
  it.each([
    ['algorithms/a.yaml', 'algorithms'],
    ['algorithms/x/y/a.yml', 'algorithms'],
    ['algorithms/.a.yaml', 'algorithms'],
    ['algorithms/.archive/a.yaml', null],
    ['algorithms/x/.old/a.yaml', null],
    ['algorithms/a.json', null],
    ['policies/p.yaml', 'policies'],
    ['policies/sub/p.yaml', null],
    ['clusters/prod/nodes/n.yaml', null],
    ['a.yaml', null],
  ])('specFolderOf(%s) = %s', (path, folder) => {
    expect(specFolderOf(path)).toBe(folder);
  });

  it.each([
    ['at the cap: read', [MAX_FILE_BYTES], 1, 0],
    ['one byte over the cap: its error', [MAX_FILE_BYTES + 1], 0, 1],
    ['the budget exactly: all read', Array(128).fill(MAX_FILE_BYTES), 128, 0],
    ['one byte past the budget: the last file’s error', [...Array(128).fill(MAX_FILE_BYTES), 1], 128, 1],
  ])('budgetSpecFiles: %s', (_, sizes, read, errors) => {
    expect(MAX_TOTAL_BYTES).toBe(128 * MAX_FILE_BYTES);
    const r = budgetSpecFiles(
      sizes.map((size, i) => ({ path: `algorithms/f${String(i).padStart(3, '0')}.yaml`, size })),
    );
    expect([r.read.length, r.errors.length]).toEqual([read, errors]);
  });
});
