/**
 * Pull request history and fleet status on SQLite (a real file) and a real PostgreSQL server:
 * every open → merged/closed cycle of a branch is kept with its body; a branch opened again
 * starts a new cycle; refreshes of an ended cycle keep its closing time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cycleAction } from '../../src/store/history-rows.js';
import { openStore, statusStoreOf } from '../../src/store/index.js';
import type { PullRequestCycle, PullRequestRecord, StatusStore, Store } from '../../src/store/types.js';
import { storeBackends } from '../support/store-backends.js';

const T0 = Date.UTC(2026, 10, 30, 12, 0, 0);
const at = (s: number) => new Date(T0 + s * 1000).toISOString();

function pr(over: Partial<PullRequestRecord>): PullRequestRecord {
  return {
    cluster: 'prod',
    branch: 'gpuops/prod/pools',
    kind: 'pools',
    subject: 'pools',
    title: 'gpuops(prod): move gpu-h100-01 into long-task',
    body: 'first body',
    desiredHash: 'h1',
    number: 1,
    url: 'https://github.com/acme/gitops/pull/1',
    state: 'open',
    updatedAt: at(0),
    ...over,
  };
}

describe('cycleAction', () => {
  const cycle = (over: Partial<PullRequestCycle>): PullRequestCycle => ({
    id: 1,
    cluster: 'prod',
    branch: 'b',
    kind: 'pools',
    subject: 'pools',
    title: 't',
    body: 'b',
    number: 1,
    url: null,
    state: 'open',
    openedAt: at(0),
    closedAt: null,
    updatedAt: at(0),
    ...over,
  });
  it.each([
    ['no cycle yet', null, pr({}), 'insert'],
    ['open, updated in place', cycle({}), pr({ body: 'new' }), 'update'],
    ['open, now merged', cycle({}), pr({ state: 'merged' }), 'update'],
    ['merged, refreshed as merged', cycle({ state: 'merged' }), pr({ state: 'merged' }), 'update'],
    [
      'closed, opened again (same number reopened)',
      cycle({ state: 'closed' }),
      pr({ state: 'open' }),
      'insert',
    ],
    ['open, but the host gave a new number', cycle({ number: 1 }), pr({ number: 2 }), 'insert'],
    ['plain git (no numbers), still open', cycle({ number: null }), pr({ number: null }), 'update'],
  ] as const)('%s → %s', (_, latest, next, expected) => {
    expect(cycleAction(latest, next)).toBe(expected);
  });
});

const { backends, setup, teardown } = storeBackends('prhist');
beforeAll(setup, 120_000);
afterAll(teardown);

describe.each(backends)('pull request history on $name', (backend) => {
  const stores: Store[] = [];
  const fresh = async (): Promise<Store & StatusStore> => {
    const s = await openStore(await backend.url());
    stores.push(s);
    return statusStoreOf(s)!;
  };
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
  });

  it('keeps every cycle with its last body and outcome; pullRequests keeps one row per branch', async () => {
    const s = await fresh();
    await s.upsertPullRequest(pr({}));
    await s.upsertPullRequest(pr({ body: 'second body', updatedAt: at(60) }));
    await s.upsertPullRequest(pr({ body: 'second body', state: 'merged', updatedAt: at(120) }));
    await s.upsertPullRequest(pr({ body: 'second body', state: 'merged', updatedAt: at(180) })); // refresh
    await s.upsertPullRequest(
      pr({ number: 2, url: 'https://github.com/acme/gitops/pull/2', body: 'move body', updatedAt: at(300) }),
    );
    await s.upsertPullRequest(pr({ number: 2, body: 'move body', state: 'closed', updatedAt: at(400) }));
    await s.upsertPullRequest(
      pr({ branch: 'gpuops/prod/scale/x', kind: 'scale', subject: 'x', number: 3, updatedAt: at(350) }),
    );
    await s.upsertPullRequest(pr({ cluster: 'other', number: 9, updatedAt: at(500) }));

    expect(await s.pullRequests('prod')).toHaveLength(2);
    const all = await s.pullRequestHistory('prod');
    expect(all.map((c) => [c.number, c.state, c.body, c.openedAt, c.closedAt])).toEqual([
      [3, 'open', 'first body', at(350), null],
      [2, 'closed', 'move body', at(300), at(400)],
      [1, 'merged', 'second body', at(0), at(120)],
    ]);
    const one = await s.pullRequestCycle(all[2]!.id);
    expect(one).toMatchObject({
      number: 1,
      state: 'merged',
      updatedAt: at(180),
      branch: 'gpuops/prod/pools',
    });
    expect(await s.pullRequestCycle(99_999)).toBeNull();
    expect((await s.pullRequestHistory('other')).map((c) => c.number)).toEqual([9]);
  });

  it('plain git branches: merged, then opened again, are two cycles', async () => {
    const s = await fresh();
    const branch = pr({ number: null, url: null });
    await s.upsertPullRequest(branch);
    await s.upsertPullRequest({ ...branch, state: 'merged', updatedAt: at(10) });
    await s.upsertPullRequest({ ...branch, body: 'again', updatedAt: at(20) });
    const all = await s.pullRequestHistory('prod');
    expect(all.map((c) => [c.state, c.body])).toEqual([
      ['open', 'again'],
      ['merged', 'first body'],
    ]);
  });

  it('stores the newest fleet status per cluster and the newest decisions across subjects', async () => {
    const s = await fresh();
    expect(await s.fleetStatus('prod')).toBeNull();
    const status = {
      cluster: 'prod',
      at: at(0),
      longTaskThresholdSeconds: 600,
      pools: [{ node: 'gpu-1', from: null, to: 'test', reason: 'TestPool', message: 'm' }],
      algorithms: [],
    };
    await s.saveFleetStatus(status);
    await s.saveFleetStatus({ ...status, at: at(60) });
    expect(await s.fleetStatus('prod')).toEqual({ ...status, at: at(60) });
    for (const [i, subject] of ['a', 'b', 'c'].entries())
      await s.recordDecision({
        kind: 'scaling',
        subject,
        action: 'hold',
        reason: 'WithinBand',
        message: subject,
        replicasFrom: 1,
        replicasTo: 1,
        utilization: 50,
        at: at(i * 10),
      });
    expect((await s.recentDecisions(at(5), 10)).map((d) => d.subject)).toEqual(['c', 'b']);
    expect((await s.recentDecisions(at(0), 1)).map((d) => d.subject)).toEqual(['c']);
  });
});
