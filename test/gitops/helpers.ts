/** Test helpers: temporary bare repositories, a person's clone, and an in-memory PR record store. */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll } from 'vitest';
import type { PullRequestRecord, Store } from '../../src/store/types.js';

const ENV = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: tmpdir(),
  LANG: 'C',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'Jane Doe',
  GIT_AUTHOR_EMAIL: 'jane@example.com',
  GIT_COMMITTER_NAME: 'Jane Doe',
  GIT_COMMITTER_EMAIL: 'jane@example.com',
};

/** Runs git; returns trimmed stdout. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    env: ENV,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();
}

/** A temporary folder holding a bare remote (`remote.git`, base `main`, one commit) and room for clones. */
export interface TempRepo {
  root: string;
  remote: string;
  url: string;
  cleanup(): void;
}

/** Template remotes by content, built once per test file (see `templateRoots`). */
const templates = new Map<string, string>();

/** A bare remote holding `files` in one commit on `main`; built once per content, then copied. */
export function makeRemote(files: Record<string, string> = { 'README.md': '# gitops\n' }): TempRepo {
  const key = JSON.stringify(Object.entries(files).sort());
  let template = templates.get(key);
  if (!template) {
    template = buildRemote(files);
    templates.set(key, template);
  }
  const root = mkdtempSync(join(tmpdir(), 'gpuops-gitops-'));
  const remote = join(root, 'remote.git');
  cpSync(template, remote, { recursive: true });
  return {
    root,
    remote,
    url: `file://${remote}`,
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

/**
 * Template folders, removed after the test file that built them (each file imports this module
 * afresh: vitest isolates files). A process 'exit' handler is not enough: vitest ends its forks by
 * a signal, which emits no 'exit'.
 */
const templateRoots: string[] = [];
afterAll(() => {
  for (const r of templateRoots.splice(0)) rmSync(r, { recursive: true, force: true });
  templates.clear();
});

function buildRemote(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'gpuops-template-'));
  templateRoots.push(root);
  const remote = join(root, 'remote.git');
  git(root, 'init', '-q', '--bare', '-b', 'main', remote);
  const seed = join(root, 'seed');
  git(root, 'clone', '-q', remote, seed);
  git(seed, 'checkout', '-q', '-b', 'main');
  for (const [p, c] of Object.entries(files)) {
    mkdirSync(dirname(join(seed, p)), { recursive: true });
    writeFileSync(join(seed, p), c);
  }
  git(seed, 'add', '-A');
  git(seed, 'commit', '-q', '-m', 'initial');
  git(seed, 'push', '-q', 'origin', 'HEAD:refs/heads/main');
  rmSync(seed, { recursive: true, force: true });
  return remote;
}

/** A person's clone: commits as Jane Doe and pushes. */
export class PersonClone {
  readonly dir: string;
  constructor(repo: TempRepo, name = 'person') {
    this.dir = join(repo.root, name);
    git(repo.root, 'clone', '-q', repo.remote, this.dir);
  }
  /** Checks out `branch` from origin, writes files, commits and pushes; returns the commit. */
  commit(branch: string, files: Record<string, string>, message = 'a person edits'): string {
    git(this.dir, 'fetch', '-q', 'origin');
    git(this.dir, 'checkout', '-q', '-B', branch, `origin/${branch}`);
    for (const [p, c] of Object.entries(files)) {
      mkdirSync(dirname(join(this.dir, p)), { recursive: true });
      writeFileSync(join(this.dir, p), c);
    }
    git(this.dir, 'add', '-A');
    git(this.dir, 'commit', '-q', '-m', message);
    git(this.dir, 'push', '-q', 'origin', `HEAD:refs/heads/${branch}`);
    return git(this.dir, 'rev-parse', 'HEAD');
  }
  /** Merges `branch` into `main` with a merge commit and pushes (as "Merge pull request" on GitHub). */
  merge(branch: string): string {
    git(this.dir, 'fetch', '-q', 'origin');
    git(this.dir, 'checkout', '-q', '-B', 'main', 'origin/main');
    git(this.dir, 'merge', '-q', '--no-ff', '-m', `Merge ${branch}`, `origin/${branch}`);
    git(this.dir, 'push', '-q', 'origin', 'HEAD:refs/heads/main');
    return git(this.dir, 'rev-parse', 'HEAD');
  }
}

/** `git rev-parse` of a ref in the bare remote, or null. */
export function remoteRef(repo: TempRepo, ref: string): string | null {
  try {
    return git(repo.remote, 'rev-parse', '--verify', '-q', `refs/heads/${ref}`);
  } catch {
    return null;
  }
}

/** A file at a ref of the bare remote, or null. */
export function remoteFile(repo: TempRepo, ref: string, path: string): string | null {
  try {
    return execFileSync('git', ['show', `${ref}:${path}`], {
      cwd: repo.remote,
      env: ENV,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
  } catch {
    return null;
  }
}

/** Number of commits on a ref of the remote. */
export function commitCount(repo: TempRepo, ref: string): number {
  return Number(git(repo.remote, 'rev-list', '--count', ref));
}

/** Authors (`Name <email>`) of commits `a..b` in the remote, newest first. */
export function authors(repo: TempRepo, range: string): string[] {
  const out = git(repo.remote, 'log', '--format=%an <%ae>', range);
  return out === '' ? [] : out.split('\n');
}

/** The pull-request part of the Store, in memory, counting writes. */
export class MemoryPullRequestStore implements Pick<
  Store,
  'pullRequests' | 'pullRequest' | 'upsertPullRequest'
> {
  records: PullRequestRecord[] = [];
  upserts = 0;
  async upsertPullRequest(pr: PullRequestRecord): Promise<void> {
    this.upserts++;
    this.records = [
      ...this.records.filter((r) => !(r.cluster === pr.cluster && r.branch === pr.branch)),
      { ...pr },
    ];
  }
  async pullRequests(cluster: string): Promise<PullRequestRecord[]> {
    return this.records
      .filter((r) => r.cluster === cluster)
      .sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : 0))
      .map((r) => ({ ...r }));
  }
  async pullRequest(cluster: string, branch: string): Promise<PullRequestRecord | null> {
    const r = this.records.find((x) => x.cluster === cluster && x.branch === branch);
    return r ? { ...r } : null;
  }
}
