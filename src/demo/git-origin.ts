/**
 * The demo's GitOps repo, with real git: a bare "origin" seeded from a folder of example files,
 * and a person's merge of a gpuops branch into the base branch (`git merge --no-ff` in a clone,
 * then a push), as someone would press "Merge" on a pull request. A process per git call is fine
 * here (a merge per pull request), so every step is one of simple-git's typed commands.
 */
import { cpSync, existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { GitResponseError, simpleGit, type MergeResult as GitMerge, type SimpleGit } from 'simple-git';
import { makeDirs } from '../disk/index.js';

/** Who merges pull requests in the demo (the reviewer, not gpuops). */
export const REVIEWER = { name: 'Demo Reviewer', email: 'reviewer@example.com' };

/**
 * simple-git in `cwd` with a fixed identity and no user or system configuration (a person's
 * `~/.gitconfig` never changes what the demo does). The environment is built, not inherited, so no
 * `GIT_*`, `EDITOR` or `PAGER` of the caller reaches git.
 */
function reviewerGit(cwd: string): SimpleGit {
  return simpleGit({ baseDir: cwd, unsafe: { allowUnsafeConfigPaths: true } }).env({
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/tmp',
    LANG: 'C',
    LC_ALL: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_AUTHOR_NAME: REVIEWER.name,
    GIT_AUTHOR_EMAIL: REVIEWER.email,
    GIT_COMMITTER_NAME: REVIEWER.name,
    GIT_COMMITTER_EMAIL: REVIEWER.email,
    GIT_TERMINAL_PROMPT: '0',
  });
}

/** Prefixes a git failure with the folder it ran in. */
async function inRepo<T>(cwd: string, what: string, fn: (git: SimpleGit) => Promise<T>): Promise<T> {
  try {
    return await fn(reviewerGit(cwd));
  } catch (err) {
    throw new Error(`git ${what} (in ${cwd}): ${(err as Error).message.trim()}`);
  }
}

/**
 * Paths of the files under `prefix` (e.g. `clusters/demo/`; `''` for all) at the checkout's HEAD, sorted as git
 * lists them. `ls-tree` has no typed command in simple-git; this is its one raw call.
 * @throws Error when git fails
 */
export async function listFiles(checkout: string, prefix: string): Promise<string[]> {
  const out = await inRepo(checkout, 'ls-tree', (g) =>
    g.raw(['ls-tree', '-r', '--name-only', 'HEAD', ...(prefix === '' ? [] : ['--', prefix])]),
  );
  return out.split('\n').filter(Boolean);
}

/**
 * Creates a bare repository at `origin` whose `base` branch holds one commit with the files of
 * `seed` (copied recursively). @throws Error when git fails
 */
export async function createOrigin(origin: string, seed: string, base = 'main'): Promise<void> {
  const work = `${origin}.seed`;
  rmSync(work, { recursive: true, force: true });
  makeDirs(origin);
  await inRepo(origin, 'init --bare', (g) => g.init(true, [`--initial-branch=${base}`]));
  cpSync(seed, work, { recursive: true });
  try {
    await inRepo(work, 'init/add/commit/push', async (g) => {
      await g.init([`--initial-branch=${base}`]);
      await g.add(['--all']);
      await g.commit('Example algorithms and the demo policy');
      await g.push(origin, `${base}:${base}`);
    });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** The result of {@link mergeBranch}. */
export type MergeResult =
  { merged: true; commit: string } | { merged: false; reason: 'Conflict' | 'NoBranch'; message: string };

/**
 * Merges `branch` into `base` of the bare repo `origin` with `git merge --no-ff` in the clone at
 * `checkout` (created on first use, fetched after), and pushes `base`. A conflict aborts the merge
 * and pushes nothing (the pull request stays open; gpuops rebuilds its branch on the next pass).
 * Leaves `checkout` at `base`'s head, so the caller can sync `clusters/<cluster>/` from it.
 * @throws Error when git fails for another reason
 */
export async function mergeBranch(
  origin: string,
  checkout: string,
  branch: string,
  base = 'main',
): Promise<MergeResult> {
  await syncCheckout(origin, checkout, base);
  return inRepo(checkout, `merge ${branch}`, async (g) => {
    const exists = (await g.listRemote(['--heads', 'origin', branch])).trim() !== '';
    if (!exists) return { merged: false, reason: 'NoBranch', message: `no branch ${branch} in ${origin}` };
    await g.fetch('origin', `+refs/heads/${branch}:refs/remotes/origin/${branch}`);
    try {
      await g.merge(['--no-ff', '-m', `Merge branch '${branch}' (reviewed in the demo)`, `origin/${branch}`]);
    } catch (err) {
      if (!(err instanceof GitResponseError)) throw err;
      const conflicts = (err as GitResponseError<GitMerge>).git.conflicts.map((c) => c.file ?? c.reason);
      await g.merge(['--abort']);
      return {
        merged: false,
        reason: 'Conflict',
        message: `conflicts with ${base} in ${conflicts.join(', ') || err.message}`,
      };
    }
    await g.push('origin', `HEAD:${base}`);
    return { merged: true, commit: (await g.revparse(['HEAD'])).trim() };
  });
}

/** Clones `origin` into `checkout` when absent, else fetches; then resets to `origin/base`. */
export async function syncCheckout(origin: string, checkout: string, base = 'main'): Promise<void> {
  if (!existsSync(path.join(checkout, '.git'))) {
    makeDirs(path.dirname(checkout));
    await inRepo(path.dirname(checkout), 'clone', (g) => g.clone(origin, path.basename(checkout)));
  }
  await inRepo(checkout, 'fetch/checkout/reset', async (g) => {
    await g.fetch(['--prune', 'origin']);
    await g.checkout(['-B', base, `origin/${base}`]);
    await g.reset(['--hard', `origin/${base}`]);
  });
}
