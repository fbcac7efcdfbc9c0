import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { localRemoteHeads } from '../../src/working-copy/local-remote-heads.js';

const root = mkdtempSync(path.join(tmpdir(), 'gpuops-local-heads-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@x',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@x',
    },
  });

/** What git itself says: `ls-remote --heads`. */
function lsRemote(url: string): Map<string, string> {
  const out = git(root, 'ls-remote', '--heads', url);
  return new Map(
    out
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const [sha, ref] = l.split('\t');
        return [ref!.slice('refs/heads/'.length), sha!] as const;
      }),
  );
}

describe('localRemoteHeads', () => {
  const bare = path.join(root, 'origin.git');
  const work = path.join(root, 'work');
  git(root, 'init', '--quiet', '--bare', '--initial-branch=main', bare);
  git(root, 'init', '--quiet', '--initial-branch=main', work);
  writeFileSync(path.join(work, 'a'), '1');
  git(work, 'add', 'a');
  git(work, 'commit', '--quiet', '-m', 'one');
  git(work, 'push', '--quiet', bare, 'main', 'main:gpuops/replay/scale/sd-serve');

  it('equals ls-remote with loose refs, a path and a file:// URL', async () => {
    expect(await localRemoteHeads(bare)).toEqual(lsRemote(bare));
    expect(await localRemoteHeads(pathToFileURL(bare).href)).toEqual(lsRemote(bare));
  });

  it('equals ls-remote after pack-refs, with a newer loose ref winning over the packed one', async () => {
    git(bare, 'pack-refs', '--all');
    writeFileSync(path.join(work, 'a'), '2');
    git(work, 'commit', '--quiet', '-am', 'two');
    git(work, 'push', '--quiet', bare, 'main');
    const heads = await localRemoteHeads(bare);
    expect(heads).toEqual(lsRemote(bare));
    expect(heads?.get('main')).toBe(git(work, 'rev-parse', 'HEAD').trim());
    git(work, 'push', '--quiet', bare, ':gpuops/replay/scale/sd-serve');
    expect(await localRemoteHeads(bare)).toEqual(lsRemote(bare));
    expect((await localRemoteHeads(bare))?.size).toBe(1);
  });

  it('leaves network URLs, relative paths and non-repositories to git (null)', async () => {
    expect(await localRemoteHeads('https://github.com/o/r.git')).toBeNull();
    expect(await localRemoteHeads('ssh://git@host/r.git')).toBeNull();
    expect(await localRemoteHeads('origin.git')).toBeNull();
    expect(await localRemoteHeads(root)).toBeNull();
  });
});
