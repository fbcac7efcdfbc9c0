/**
 * The demo's GitOps repo, with real git: a bare "origin" seeded from a folder of example files,
 * and a person's merge of a gpuops branch into the base branch (`git merge --no-ff` in a clone,
 * then a push), as someone would press "Merge" on a pull request.
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Who merges pull requests in the demo (the reviewer, not gpuops). */
export const REVIEWER = { name: 'Demo Reviewer', email: 'reviewer@example.com' };

/** Runs git with a fixed identity and no user or system configuration; returns stdout. */
export async function git(cwd: string, args: string[]): Promise<string> {
  const env = {
    ...process.env,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_AUTHOR_NAME: REVIEWER.name,
    GIT_AUTHOR_EMAIL: REVIEWER.email,
    GIT_COMMITTER_NAME: REVIEWER.name,
    GIT_COMMITTER_EMAIL: REVIEWER.email,
    GIT_TERMINAL_PROMPT: '0',
  };
  try {
    const { stdout } = await run('git', args, { cwd, env, maxBuffer: 16 * 1024 * 1024 });
    return stdout;
  } catch (err) {
    const e = err as { stderr?: string; stdout?: string; message: string };
    throw new Error(`git ${args.join(' ')} (in ${cwd}): ${(e.stderr || e.stdout || e.message).trim()}`);
  }
}

/**
 * Creates a bare repository at `origin` whose `base` branch holds one commit with the files of
 * `seed` (copied recursively). @throws Error when git fails
 */
export async function createOrigin(origin: string, seed: string, base = 'main'): Promise<void> {
  const work = `${origin}.seed`;
  rmSync(work, { recursive: true, force: true });
  mkdirSync(origin, { recursive: true });
  await git(origin, ['init', '--quiet', '--bare', `--initial-branch=${base}`]);
  cpSync(seed, work, { recursive: true });
  try {
    await git(work, ['init', '--quiet', `--initial-branch=${base}`]);
    await git(work, ['add', '--all']);
    await git(work, ['commit', '--quiet', '-m', 'Example algorithms and the demo policy']);
    await git(work, ['push', '--quiet', origin, `${base}:${base}`]);
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
  const exists = (await git(checkout, ['ls-remote', '--heads', 'origin', branch])).trim() !== '';
  if (!exists) return { merged: false, reason: 'NoBranch', message: `no branch ${branch} in ${origin}` };
  await git(checkout, ['fetch', '--quiet', 'origin', `+refs/heads/${branch}:refs/remotes/origin/${branch}`]);
  try {
    await git(checkout, [
      'merge',
      '--no-ff',
      '--quiet',
      '-m',
      `Merge branch '${branch}' (reviewed in the demo)`,
      `origin/${branch}`,
    ]);
  } catch (err) {
    const conflicts = (await git(checkout, ['diff', '--name-only', '--diff-filter=U'])).trim().split('\n');
    await git(checkout, ['merge', '--abort']);
    return {
      merged: false,
      reason: 'Conflict',
      message: `conflicts with ${base} in ${conflicts.filter(Boolean).join(', ') || (err as Error).message}`,
    };
  }
  await git(checkout, ['push', '--quiet', 'origin', `HEAD:${base}`]);
  return { merged: true, commit: (await git(checkout, ['rev-parse', 'HEAD'])).trim() };
}

/** Clones `origin` into `checkout` when absent, else fetches; then resets to `origin/base`. */
export async function syncCheckout(origin: string, checkout: string, base = 'main'): Promise<void> {
  if (!existsSync(path.join(checkout, '.git'))) {
    mkdirSync(path.dirname(checkout), { recursive: true });
    await git(path.dirname(checkout), ['clone', '--quiet', origin, path.basename(checkout)]);
  }
  await git(checkout, ['fetch', '--quiet', '--prune', 'origin']);
  await git(checkout, ['checkout', '--quiet', '-B', base, `origin/${base}`]);
  await git(checkout, ['reset', '--quiet', '--hard', `origin/${base}`]);
}
