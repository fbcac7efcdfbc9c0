/**
 * The ids of the commits gpuops pushed (`Store.recordPushedCommits` / `pushedCommits`, migration 9,
 * `store/pushed-commits.ts`) on SQLite (a real file) and a real PostgreSQL server: what was
 * recorded is known from a new connection (a restart, another replica), nothing else is, the same
 * commit recorded twice is one record, and a branch keeps its newest 32.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { storeLedger } from '../../src/working-copy/commit-ledger.js';
import { openStore } from '../../src/store/open-store.js';
import { PUSHED_COMMITS_PER_BRANCH } from '../../src/store/pushed-commits.js';
import type { Store } from '../../src/store/types.js';
import { storeBackends } from '../support/store-backends.js';

const sha = (i: number) => i.toString(16).padStart(40, '0');
const at = (s: number) => new Date(Date.UTC(2026, 11, 1) + s * 1000).toISOString();

const { backends, setup, teardown } = storeBackends('pushed');
beforeAll(setup, 120_000);
afterAll(teardown);

describe.each(backends)('pushed commits on $name', (backend) => {
  const open: Store[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });
  const connect = async (url: string) => {
    const s = await openStore(url);
    open.push(s);
    return s;
  };

  it('what was recorded is known from another connection; nothing else is; a second record of a commit is one', async () => {
    const url = await backend.url();
    const a = await connect(url);
    await a.recordPushedCommits!([
      { sha: sha(1), branch: 'gpuops/prod/pools', at: at(0) },
      { sha: sha(2), branch: 'gpuops/prod/scale/x', at: at(0) },
    ]);
    await a.recordPushedCommits!([{ sha: sha(1), branch: 'gpuops/prod/pools', at: at(5) }]);
    const b = await connect(url);
    expect((await b.pushedCommits!([sha(1), sha(2), sha(3), sha(1)])).sort()).toEqual([sha(1), sha(2)]);
    expect(await b.pushedCommits!([])).toEqual([]);
    const ledger = storeLedger(b);
    expect([...(await ledger.known([sha(2), sha(9)]))]).toEqual([sha(2)]);
  });

  it(`a branch keeps its newest ${PUSHED_COMMITS_PER_BRANCH}; another branch's are not touched`, async () => {
    const s = await connect(await backend.url());
    await s.recordPushedCommits!([{ sha: sha(1000), branch: 'gpuops/prod/scale/y', at: at(0) }]);
    for (let i = 1; i <= PUSHED_COMMITS_PER_BRANCH + 2; i++)
      await s.recordPushedCommits!([{ sha: sha(i), branch: 'gpuops/prod/pools', at: at(i) }]);
    const all = Array.from({ length: PUSHED_COMMITS_PER_BRANCH + 2 }, (_, k) => sha(k + 1));
    const known = await s.pushedCommits!([...all, sha(1000)]);
    expect(known.sort()).toEqual([...all.slice(2), sha(1000)].sort());
  });
});
