/**
 * Races on the remote (issue 13 items 6 and 7): another writer moves a branch while gpuops's push
 * is received, two gpuops working copies write the same remote at once, two share a clone cache.
 * All against real git: a bare remote whose pre-receive hook plays the other writer.
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { memoryLedger } from '../../src/working-copy/commit-ledger.js';
import { GitOpsError } from '../../src/working-copy/git-errors.js';
import { desiredHash } from '../../src/change-sets/pr-body.js';
import type { ApplyOutcome, ChangeSet, FileChange } from '../../src/change-sets/types.js';
import { DEFAULT_AUTHOR, WorkingCopy } from '../../src/working-copy/working-copy.js';
import {
  PersonClone,
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

function setup(): TempRepo {
  const r = makeRemote();
  repos.push(r);
  return r;
}

function open(repo: TempRepo, name = 'cache', extra: Partial<Parameters<typeof WorkingCopy.open>[0]> = {}) {
  return WorkingCopy.open({
    repoUrl: repo.url,
    baseBranch: 'main',
    dir: join(repo.root, name),
    sleep: async () => undefined,
    random: () => 0.5,
    ...extra,
  });
}

function changeSet(subject: string, replicas: number): ChangeSet {
  const files: FileChange[] = [
    { path: `clusters/prod/algorithms/${subject}/deployment.yaml`, content: `replicas: ${replicas}\n` },
  ];
  return {
    kind: 'placement',
    subject,
    branch: `gpuops/prod/placement/${subject}`,
    title: `gpuops(prod): place ${subject}`,
    body: 'body',
    files,
    desiredHash: desiredHash(files),
  };
}

/**
 * Arms the remote's pre-receive hook to move `branch` to `sha` once, while the next push is being
 * received: exactly what a second writer racing gpuops does. The hook disarms itself.
 */
function raceOnce(repo: TempRepo, branch: string, sha: string): void {
  const marker = join(repo.remote, 'race-once');
  writeFileSync(marker, `refs/heads/${branch} ${sha}\n`);
  const hook = join(repo.remote, 'hooks', 'pre-receive');
  writeFileSync(
    hook,
    [
      '#!/bin/sh',
      'cat >/dev/null',
      `if [ -f '${marker}' ]; then`,
      '  unset GIT_QUARANTINE_PATH',
      `  git update-ref $(cat '${marker}') && rm -f '${marker}'`,
      'fi',
      'exit 0',
      '',
    ].join('\n'),
  );
  chmodSync(hook, 0o755);
}

/** A commit by a person on top of `main`, pushed to a side ref only (not yet on any gpuops branch). */
function personCommit(repo: TempRepo, path: string, content: string): string {
  const person = new PersonClone(repo, `person-${Math.random().toString(36).slice(2, 8)}`);
  git(person.dir, 'checkout', '-q', '-B', 'side', 'origin/main');
  mkdirSync(dirname(join(person.dir, path)), { recursive: true });
  writeFileSync(join(person.dir, path), content);
  git(person.dir, 'add', '-A');
  git(person.dir, 'commit', '-q', '-m', 'Jane tunes replicas');
  git(person.dir, 'push', '-q', 'origin', 'HEAD:refs/heads/jane-side');
  return git(person.dir, 'rev-parse', 'HEAD');
}

function outcome(r: ApplyOutcome | GitOpsError | undefined): ApplyOutcome {
  if (r instanceof GitOpsError || r === undefined) throw r ?? new Error('no result');
  return r;
}

describe('push races are retried in the same pass', () => {
  it('"failed to update ref" on an existing branch: fetched, re-checked, a person\'s commit left alone and reported', async () => {
    const repo = setup();
    const wc = await open(repo);
    const first = await wc.apply(changeSet('a', 1), { mode: 'pull-request' });
    const path = changeSet('a', 1).files[0]!.path;
    const theirs = personCommit(repo, path, 'replicas: 5 # Jane\n');
    // Jane's commit lands on the branch while gpuops's push of replicas: 2 is received.
    const janeOnBranch = git(
      repo.remote,
      'commit-tree',
      '-p',
      first.commit!,
      '-m',
      'Jane',
      `${theirs}^{tree}`,
    );
    raceOnce(repo, 'gpuops/prod/placement/a', janeOnBranch);

    const r = await wc.apply(changeSet('a', 2), { mode: 'pull-request' });
    expect(r.status).toBe('person-commits');
    expect(r.personCommits.map((c) => [c.sha, c.email])).toEqual([[janeOnBranch, 'jane@example.com']]);
    expect(remoteRef(repo, 'gpuops/prod/placement/a')).toBe(janeOnBranch);
    expect(remoteFile(repo, 'gpuops/prod/placement/a', path)).toBe('replicas: 5 # Jane\n');
    expect(wc.counters.pushes).toBe(2); // the first branch, then the one rejected attempt
  });

  it('"reference already exists" on a new branch: another gpuops wrote the same content, so nothing is duplicated', async () => {
    const repo = setup();
    // Two replicas share one ledger (the Store): each knows the other's pushed commits.
    const ledger = memoryLedger();
    const wc = await open(repo, 'cache', { ledger });
    const other = await open(repo, 'other-cache', { ledger });
    const cs = changeSet('b', 3);
    // The other process's commit of the same change set, built with the same plumbing and recorded
    // before its push, as applyAll records it.
    const base = await other.baseHead();
    const [theirs] = await other.buildCommits([{ parent: base, message: 'other gpuops', files: cs.files }]);
    await ledger.record([{ sha: theirs!, branch: cs.branch }], new Date());
    await other.pushRefs([{ ref: 'other-tmp', sha: theirs!, expected: null }]);
    raceOnce(repo, cs.branch, theirs!);

    const r = await wc.apply(cs, { mode: 'pull-request' });
    expect(r.status).toBe('unchanged');
    expect(remoteRef(repo, cs.branch)).toBe(theirs);
    expect(commitCount(repo, cs.branch) - commitCount(repo, 'main')).toBe(1);
  });

  it('a race on one branch retries that branch only; the others of the same push are final', async () => {
    const repo = setup();
    const wc = await open(repo);
    const sets = ['c1', 'c2', 'c3'].map((s) => changeSet(s, 1));
    const theirs = personCommit(repo, 'README.md', 'Jane was here\n');
    raceOnce(repo, sets[1]!.branch, theirs);
    const results = (
      await wc.applyAll(
        sets.map((changeSet) => ({ changeSet })),
        { mode: 'pull-request' },
      )
    ).map(outcome);
    expect(results.map((r) => [r.status, r.attempts])).toEqual([
      ['pushed', 1],
      ['person-commits', 0],
      ['pushed', 1],
    ]);
    expect(remoteRef(repo, sets[1]!.branch)).toBe(theirs);
    expect(wc.counters.pushes).toBe(1); // the retry found a person's branch: nothing left to push
  });

  it('gives up after maxAttempts when every attempt races, with a non-fast-forward error', async () => {
    const repo = setup();
    const wc = await open(repo, 'cache', { maxAttempts: 2 });
    const cs = changeSet('d', 1);
    // Another gpuops that moves the branch during every push gpuops makes.
    const hook = join(repo.remote, 'hooks', 'pre-receive');
    const who = `GIT_AUTHOR_NAME=gpuops GIT_AUTHOR_EMAIL=${DEFAULT_AUTHOR.email} GIT_COMMITTER_NAME=gpuops GIT_COMMITTER_EMAIL=${DEFAULT_AUTHOR.email}`;
    writeFileSync(
      hook,
      [
        '#!/bin/sh',
        'cat >/dev/null',
        'unset GIT_QUARANTINE_PATH',
        `ref=refs/heads/${cs.branch}`,
        'cur=$(git rev-parse -q --verify $ref || git rev-parse refs/heads/main)',
        `new=$(${who} git commit-tree "$cur^{tree}" -p "$cur" -m churn)`,
        'git update-ref $ref $new',
        '',
      ].join('\n'),
    );
    chmodSync(hook, 0o755);
    const [r] = await wc.applyAll([{ changeSet: cs }], { mode: 'pull-request' });
    expect(r).toBeInstanceOf(GitOpsError);
    expect((r as GitOpsError).kind).toBe('non-fast-forward');
    expect(wc.counters.pushes).toBe(2);
    expect(remoteFile(repo, cs.branch, cs.files[0]!.path)).toBeNull();
  });
});

describe('two gpuops working copies on one remote', () => {
  // Two replicas of one controller share its store, and so the ledger of pushed commits
  // (`commit-ledger.ts`): each knows the other's commit, however far apart the two pushes land.
  it('write the same change sets at once: no lost commit, no duplicate, both succeed', async () => {
    const repo = setup();
    const ledger = memoryLedger();
    const [a, b] = await Promise.all([open(repo, 'cache-a', { ledger }), open(repo, 'cache-b', { ledger })]);
    const sets = ['p', 'q', 'r', 's'].map((s, i) => changeSet(s, i + 1));
    const items = sets.map((changeSet) => ({ changeSet }));
    const [ra, rb] = await Promise.all([
      a.applyAll(items, { mode: 'pull-request' }),
      b.applyAll(items, { mode: 'pull-request' }),
    ]);
    for (const [k, cs] of sets.entries()) {
      const statuses = [outcome(ra[k]).status, outcome(rb[k]).status].sort();
      expect(statuses, cs.branch).toEqual(['pushed', 'unchanged']);
      expect(commitCount(repo, cs.branch) - commitCount(repo, 'main'), cs.branch).toBe(1);
      expect(remoteFile(repo, cs.branch, cs.files[0]!.path)).toBe(cs.files[0]!.content);
    }
  });

  it.each([
    ['one store (one ledger): the later one finds the branch unchanged', true, 'unchanged'],
    [
      'two stores: the later one cannot tell the other from a person, and leaves the branch alone',
      false,
      'person-commits',
    ],
  ] as const)('pull-request mode, the same change set 5 s apart, %s', async (_, shared, later) => {
    // Under load, "at once" is seconds apart: the later copy fetches the branch the earlier one
    // pushed, whose commit (another second, another id) only a shared ledger says is gpuops's.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-12-06T11:00:00Z'));
    try {
      const repo = setup();
      const ledger = memoryLedger();
      const opts = shared ? { ledger } : {};
      const [a, b] = await Promise.all([open(repo, 'cache-a', opts), open(repo, 'cache-b', opts)]);
      const cs = changeSet('apart', 3);
      expect(outcome((await a.applyAll([{ changeSet: cs }], { mode: 'pull-request' }))[0]).status).toBe(
        'pushed',
      );
      vi.setSystemTime(new Date('2026-12-06T11:00:05Z'));
      expect(outcome((await b.applyAll([{ changeSet: cs }], { mode: 'pull-request' }))[0]).status).toBe(
        later,
      );
      expect(commitCount(repo, cs.branch) - commitCount(repo, 'main')).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('patch mode: both commit different subjects to main at once and neither loses the other', async () => {
    const repo = setup();
    const [a, b] = await Promise.all([open(repo, 'cache-a'), open(repo, 'cache-b')]);
    const [ra, rb] = await Promise.all([
      a.applyAll([{ changeSet: changeSet('m1', 1) }], { mode: 'patch' }),
      b.applyAll([{ changeSet: changeSet('m2', 2) }], { mode: 'patch' }),
    ]);
    expect([outcome(ra[0]).status, outcome(rb[0]).status]).toEqual(['pushed', 'pushed']);
    expect(remoteFile(repo, 'main', 'clusters/prod/algorithms/m1/deployment.yaml')).toBe('replicas: 1\n');
    expect(remoteFile(repo, 'main', 'clusters/prod/algorithms/m2/deployment.yaml')).toBe('replicas: 2\n');
    expect(commitCount(repo, 'main')).toBe(3);
  });

  it('patch mode: both commit the same change set at once and main gets it once', async () => {
    const repo = setup();
    const [a, b] = await Promise.all([open(repo, 'cache-a'), open(repo, 'cache-b')]);
    const cs = changeSet('same', 4);
    const [ra, rb] = await Promise.all([
      a.applyAll([{ changeSet: cs }], { mode: 'patch' }),
      b.applyAll([{ changeSet: cs }], { mode: 'patch' }),
    ]);
    expect([outcome(ra[0]).status, outcome(rb[0]).status].sort()).toEqual(['pushed', 'unchanged']);
    expect(commitCount(repo, 'main')).toBe(2);
    expect(remoteFile(repo, 'main', cs.files[0]!.path)).toBe('replicas: 4\n');
  });

  it('patch mode: the same change set in the same second, one push after the other: the second is unchanged', async () => {
    // Both build the identical commit (same parent, tree, author, message and second), so the
    // later push finds main already at it and git reports `[up to date]`: nothing was written.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-12-06T11:00:00Z'));
    try {
      const repo = setup();
      const [a, b] = await Promise.all([open(repo, 'cache-a'), open(repo, 'cache-b')]);
      const cs = changeSet('same', 4);
      const ra = outcome((await a.applyAll([{ changeSet: cs }], { mode: 'patch' }))[0]);
      const rb = outcome((await b.applyAll([{ changeSet: cs }], { mode: 'patch' }))[0]);
      expect(ra.status).toBe('pushed');
      expect(ra.commit).toBe(git(repo.remote, 'rev-parse', 'main'));
      expect(rb).toMatchObject({ status: 'unchanged', commit: null, files: [] });
      expect(commitCount(repo, 'main')).toBe(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it('pull-request mode: the same change set in the same second, one push after the other: the second is unchanged', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-12-06T11:00:00Z'));
    try {
      const repo = setup();
      const [a, b] = await Promise.all([open(repo, 'cache-a'), open(repo, 'cache-b')]);
      const cs = changeSet('same', 4);
      const ra = outcome((await a.applyAll([{ changeSet: cs }], { mode: 'pull-request' }))[0]);
      const rb = outcome((await b.applyAll([{ changeSet: cs }], { mode: 'pull-request' }))[0]);
      expect(ra.status).toBe('pushed');
      expect(rb).toMatchObject({ status: 'unchanged', commit: null, files: [] });
      expect(commitCount(repo, cs.branch) - commitCount(repo, 'main')).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('two working copies sharing one clone cache take turns through its file lock', async () => {
    const repo = setup();
    const a = await open(repo, 'shared');
    const b = await open(repo, 'shared');
    const [ra, rb] = await Promise.all([
      a.applyAll([{ changeSet: changeSet('l1', 1) }], { mode: 'pull-request' }),
      b.applyAll([{ changeSet: changeSet('l2', 1) }], { mode: 'pull-request' }),
    ]);
    expect([outcome(ra[0]).status, outcome(rb[0]).status]).toEqual(['pushed', 'pushed']);
    expect(existsSync(join(repo.root, 'shared.lock'))).toBe(false);
  });

  it('waits for a lock another live process holds, and takes over one its dead holder left', async () => {
    const repo = setup();
    const dir = join(repo.root, 'held');
    const wc = await open(repo, 'held', { lockTimeoutMs: 200 });
    // A real second process holds the lock until it is killed.
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    writeFileSync(`${dir}.lock`, `${child.pid}@${hostname()}`);
    await expect(wc.sync()).rejects.toThrow(/held by \d+@/);
    const gone = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await gone;
    await wc.sync();
    expect(existsSync(`${dir}.lock`)).toBe(false);
  });
});

describe('commits without a working tree', () => {
  it('writes 10 branches with one fast-import and one push, authored by gpuops, no checkout on disk', async () => {
    const repo = setup();
    const wc = await open(repo);
    const before = { ...wc.counters };
    const sets = Array.from({ length: 10 }, (_, i) => changeSet(`algo-${i}`, i + 1));
    const results = (
      await wc.applyAll(
        sets.map((changeSet) => ({ changeSet })),
        { mode: 'pull-request' },
      )
    ).map(outcome);
    expect(results.every((r) => r.status === 'pushed')).toBe(true);
    expect(wc.counters.pushes - before.pushes).toBe(1);
    expect(wc.counters.commits - before.commits).toBe(10);
    // for-each-ref, cat-file, fast-import, push (no branch existed yet, so no log).
    expect(wc.counters.processes - before.processes).toBe(4);
    for (const [k, cs] of sets.entries()) {
      expect(remoteFile(repo, cs.branch, cs.files[0]!.path)).toBe(`replicas: ${k + 1}\n`);
      expect(git(repo.remote, 'log', '-1', '--format=%an <%ae>', cs.branch)).toBe(
        `${DEFAULT_AUTHOR.name} <${DEFAULT_AUTHOR.email}>`,
      );
      expect(git(repo.remote, 'rev-parse', `${cs.branch}^`)).toBe(git(repo.remote, 'rev-parse', 'main'));
    }
    expect(existsSync(join(repo.root, 'cache', 'README.md'))).toBe(false);

    const again = { ...wc.counters };
    const second = (
      await wc.applyAll(
        sets.map((changeSet) => ({ changeSet })),
        { mode: 'pull-request' },
      )
    ).map(outcome);
    expect(second.map((r) => r.status)).toEqual(sets.map(() => 'unchanged'));
    expect(wc.counters.pushes).toBe(again.pushes);
    expect(wc.counters.commits).toBe(again.commits);
  });
});
