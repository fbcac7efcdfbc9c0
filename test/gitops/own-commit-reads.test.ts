/**
 * The working copy keeps what its own commits hold (`ObjectReader.rememberCommit`): against real
 * git, the blob ids it computes equal `git hash-object`, the listing it keeps of its commit equals
 * `git ls-tree` of that commit, reading it back runs no git, and a commit another writer made on
 * top is read from git.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { desiredHash } from '../../src/change-sets/pr-body.js';
import { blobId } from '../../src/working-copy/working-copy-objects.js';
import { WorkingCopy } from '../../src/working-copy/working-copy.js';
import type { ChangeSet, FileChange } from '../../src/change-sets/types.js';
import { PersonClone, git, makeRemote, type TempRepo } from './helpers.js';

const repos: TempRepo[] = [];
afterEach(() => {
  for (const r of repos.splice(0)) r.cleanup();
});

function changeSet(files: FileChange[]): ChangeSet {
  return {
    kind: 'placement',
    subject: 'resnet50-infer',
    branch: 'gpuops/prod/placement/resnet50-infer',
    title: 'gpuops(prod): place resnet50-infer',
    body: 'body',
    files,
    desiredHash: desiredHash(files),
  };
}

/** `git ls-tree -r -l` of `rev` in the remote, as path → [blob, size]. */
function lsTree(repo: TempRepo, rev: string): Map<string, [string, number]> {
  const out = new Map<string, [string, number]>();
  for (const line of git(repo.remote, 'ls-tree', '-r', '-l', '--full-tree', rev).split('\n')) {
    const m = /^\d+ blob ([0-9a-f]+) +(\d+)\t(.*)$/.exec(line);
    if (m) out.set(m[3]!, [m[1]!, Number(m[2])]);
  }
  return out;
}

describe('blobId', () => {
  it.each([
    ['empty', ''],
    ['one line', 'replicas: 2\n'],
    ['no newline at the end', 'a: 1'],
    ['UTF-8 beyond ASCII', 'name: Zürich — 東京 🚀\n'],
    ['NUL and CRLF', 'a\u0000b\r\nc\r\n'],
  ])('equals git hash-object (%s)', (_, content) => {
    const expected = execFileSync('git', ['hash-object', '--stdin'], {
      input: content,
      encoding: 'utf8',
    }).trim();
    expect(blobId(Buffer.from(content, 'utf8'))).toBe(expected);
  });
});

describe('reads after its own commit', () => {
  const DEPLOY = 'clusters/prod/algorithms/resnet50-infer/deployment.yaml';
  const files = {
    'README.md': '# gitops\n',
    [DEPLOY]: 'replicas: 1\n',
    'clusters/prod/pools/old.yaml': 'pool: old\n',
  };

  /** A remote holding `files` and gpuops's working copy of it (the remote is removed after the test). */
  async function openCopy() {
    const repo = makeRemote(files);
    repos.push(repo);
    const wc = await WorkingCopy.open({
      repoUrl: repo.url,
      baseBranch: 'main',
      dir: join(repo.root, 'cache'),
    });
    return { repo, wc };
  }

  it('keeps the tree it wrote (equal to ls-tree) and reads it back with no git', async () => {
    const { repo, wc } = await openCopy();
    expect(await wc.readTree('')).toEqual(new Map(Object.entries(files).sort()));
    const out = await wc.apply(
      changeSet([
        { path: DEPLOY, content: 'replicas: 2 # Zürich\n' },
        { path: 'clusters/prod/pools/new.yaml', content: 'pool: new\n' },
        { path: 'clusters/prod/pools/old.yaml', content: null },
      ]),
      { mode: 'patch' },
    );
    expect(out.status).toBe('pushed');
    const head = git(repo.remote, 'rev-parse', 'main');

    const before = wc.counters.processes;
    const listing = new Map<string, [string, number]>();
    const tree = await wc.readSelected((entries) => {
      for (const e of entries) listing.set(e.path, [e.blob, e.size]);
      return entries;
    });
    expect(wc.counters.processes - before).toBe(0);
    expect(listing).toEqual(lsTree(repo, head));
    for (const [path, text] of tree) expect(text).toBe(git(repo.remote, 'show', `${head}:${path}`) + '\n');
    expect([...tree.keys()]).toEqual([
      'README.md',
      'clusters/prod/algorithms/resnet50-infer/deployment.yaml',
      'clusters/prod/pools/new.yaml',
    ]);
  });

  it('reads from git after another writer commits on top', async () => {
    const { repo, wc } = await openCopy();
    await wc.readTree('');
    await wc.apply(changeSet([{ path: DEPLOY, content: 'replicas: 2\n' }]), { mode: 'patch' });
    const person = new PersonClone(repo);
    person.commit('main', { [DEPLOY]: 'replicas: 9\n' });
    await wc.sync();

    const before = wc.counters.processes;
    const tree = await wc.readTree('clusters/');
    expect(wc.counters.processes - before).toBeGreaterThan(0);
    expect(tree.get(DEPLOY)).toBe('replicas: 9\n');
  });
});
