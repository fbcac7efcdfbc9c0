import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WorkingCopy } from '../../src/working-copy/working-copy.js';
import { PersonClone, makeRemote, type TempRepo } from './helpers.js';

const repos: TempRepo[] = [];
afterEach(() => {
  for (const r of repos.splice(0)) r.cleanup();
});

describe('WorkingCopy.sync skips the fetch only when no branch moved', () => {
  it('no fetch while the remote stands still; a person’s push is fetched and read on the next sync', async () => {
    const repo = makeRemote({ 'algorithms/a.yaml': 'a: 1\n' });
    repos.push(repo);
    const wc = await WorkingCopy.open({
      repoUrl: repo.url,
      baseBranch: 'main',
      dir: join(repo.root, 'cache'),
    });
    expect([...(await wc.readTree('algorithms/')).keys()]).toEqual(['algorithms/a.yaml']);
    const fetches = wc.counters.fetches;
    await wc.sync();
    await wc.sync();
    expect(wc.counters.fetches).toBe(fetches);

    new PersonClone(repo).commit('main', { 'algorithms/b.yaml': 'b: 2\n' });
    await wc.sync();
    expect(wc.counters.fetches).toBe(fetches + 1);
    expect([...(await wc.readTree('algorithms/')).keys()].sort()).toEqual([
      'algorithms/a.yaml',
      'algorithms/b.yaml',
    ]);
  });
});
