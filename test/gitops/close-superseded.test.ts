/**
 * Pull-request mode: a scale-down PR the load no longer wants is closed (issue 12: a stale PR was
 * merged later at an old size); a scale-up PR stays. Real SQLite store, the plain git host.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closeSupersededScalePullRequests } from '../../src/write-back/close-superseded.js';
import { decidePullRequest } from '../../src/git-hosts/ensure-pull-request.js';
import { GitPullRequestHost } from '../../src/git-hosts/git-host.js';
import type { ScalingDecision, ScalingReason } from '../../src/scaling/types.js';
import { openStore } from '../../src/store/index.js';
import type { ChangeSet } from '../../src/change-sets/types.js';

const dir = mkdtempSync(path.join(tmpdir(), 'gpuops-close-superseded-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const BRANCH = 'gpuops/prod/scale/sd-serve';
const DOWN = 'gpuops(prod): scale sd-serve from 5 to 3 replicas';
const UP = 'gpuops(prod): scale sd-serve from 4 to 6 replicas';
const open = (title: string) => new Map([[BRANCH, title]]);

function decision(action: ScalingDecision['action'], reason: ScalingReason): ScalingDecision {
  return {
    algorithm: 'sd-serve',
    action,
    replicas: { from: 4, to: action === 'hold' ? 4 : 6 },
    utilization: 60,
    nodes: [],
    reason,
    message: `sd-serve: ${reason}`,
  };
}

/** The standby part of a decision (`planStandby`). */
const split = (claimed: number, claim: number, giveBack: number, deployment: number) => ({
  set: 'llm',
  claimed,
  claim,
  giveBack,
  deployment,
});

async function withOpenScalePr(fn: (host: GitPullRequestHost, read: () => Promise<string>) => Promise<void>) {
  const store = await openStore(`sqlite:${path.join(dir, `${Math.random().toString(36).slice(2)}.db`)}`);
  try {
    const now = () => new Date('2026-12-01T00:00:00Z');
    await store.upsertPullRequest({
      cluster: 'prod',
      branch: BRANCH,
      kind: 'scale',
      subject: 'sd-serve',
      title: DOWN,
      body: 'body',
      desiredHash: 'h6',
      number: null,
      url: null,
      state: 'open',
      updatedAt: now().toISOString(),
    });
    const host = new GitPullRequestHost({ store, cluster: 'prod', base: 'main', now });
    await fn(host, async () => (await store.pullRequests('prod')).find((r) => r.branch === BRANCH)!.state);
  } finally {
    await store.close();
  }
}

/**
 * With the scale PR of `title` open, one pass's close on decision `d`: the PR is then `state`
 * (`open` or `closed`), and the branch is in what the close returns only when it closed it.
 */
async function expectAfterClose(title: string, d: ScalingDecision, state: string): Promise<void> {
  await withOpenScalePr(async (host, read) => {
    const closed = await closeSupersededScalePullRequests([d], {
      host,
      cluster: 'prod',
      openBranches: open(title),
      dryRun: false,
    });
    expect(await read()).toBe(state);
    expect(closed).toEqual(state === 'closed' ? [BRANCH] : []);
  });
}

describe('closeSupersededScalePullRequests', () => {
  it.each<[string, string, ScalingDecision['action'], ScalingReason, string]>([
    ['InBandWithMoreReplicasThanTheDownPrClosesIt', DOWN, 'hold', 'WithinRange', 'closed'],
    ['PodsStartingCarryItClosesTheDownPr', DOWN, 'hold', 'PodsStarting', 'closed'],
    [
      'DownPrToJustBelowGitClosesIt',
      'gpuops(prod): scale sd-serve from 5 to 3 replicas',
      'hold',
      'WithinRange',
      'closed',
    ],
    [
      'PrToExactlyGitsReplicasStays',
      'gpuops(prod): scale sd-serve from 5 to 4 replicas',
      'hold',
      'WithinRange',
      'open',
    ],
    ['UpPrStaysOnADipIntoTheBand', UP, 'hold', 'WithinRange', 'open'],
    [
      'MoveOnlyTitleStays',
      'gpuops(prod): move gpu-1 into short-task so the Pending replica of sd-serve can start',
      'hold',
      'WithinRange',
      'open',
    ],
    ['CooldownOnlyWaitsKeepsIt', DOWN, 'hold', 'CooldownActive', 'open'],
    ['StabilisationOnlyWaitsKeepsIt', DOWN, 'hold', 'StabilizationWindow', 'open'],
    ['MissingDataKeepsIt', DOWN, 'hold', 'NoData', 'open'],
    ['StillScalingKeepsIt', DOWN, 'scale-up', 'AboveMax', 'open'],
  ])('%s', async (_name, title, action, reason, state) => {
    await expectAfterClose(title, decision(action, reason), state);
  });

  // With standby pods the decision's `from` counts claimed pods: the PR's title proposes the
  // Deployment's replicas in Git, compared with Git's part (`gitReplicas`).
  it.each<[string, string, ScalingDecision['action'], ScalingReason, ScalingDecision['standby'], string]>([
    ['ClaimsAloneCarryAScaleUpCloseTheOpenUpPr', UP, 'scale-up', 'AboveMax', split(0, 2, 0, 0), 'closed'],
    ['AScaleUpTheDeploymentTakesPartOfKeepsIt', UP, 'scale-up', 'AboveMax', split(0, 1, 0, 1), 'open'],
    [
      'GiveBacksAloneCarryAScaleDownCloseTheOpenUpPr',
      UP,
      'scale-down',
      'BelowMin',
      split(2, 0, 2, 0),
      'closed',
    ],
    [
      'ClaimsAloneAndAPrProposingGitsOwnCountStays',
      'gpuops(prod): scale sd-serve from 5 to 4 replicas',
      'scale-up',
      'AboveMax',
      split(0, 2, 0, 0),
      'open',
    ],
    // A settled hold at 4 = Git 3 + 1 claimed: a PR down to 3 takes nothing Git holds.
    [
      'SettledHoldWithAClaimedPodKeepsADownPrToGitsCount',
      DOWN,
      'hold',
      'WithinRange',
      split(1, 0, 0, 0),
      'open',
    ],
    [
      'SettledHoldWithAClaimedPodClosesADownPrBelowGit',
      'gpuops(prod): scale sd-serve from 3 to 2 replicas',
      'hold',
      'WithinRange',
      split(1, 0, 0, 0),
      'closed',
    ],
    ['AHoldThatOnlyWaitsKeepsItWithClaimsToo', UP, 'hold', 'CooldownActive', split(1, 0, 0, 0), 'open'],
  ])('%s', async (_name, title, action, reason, standby, state) => {
    await expectAfterClose(title, { ...decision(action, reason), standby }, state);
  });

  it('dry-run closes nothing; a branch without an open PR is left alone', async () => {
    await withOpenScalePr(async (host, read) => {
      const deps = { host, cluster: 'prod', openBranches: open(DOWN), dryRun: true };
      expect(await closeSupersededScalePullRequests([decision('hold', 'WithinRange')], deps)).toEqual([
        BRANCH,
      ]);
      expect(await read()).toBe('open');
      const none = { ...deps, dryRun: false, openBranches: new Map<string, string>() };
      expect(await closeSupersededScalePullRequests([decision('hold', 'WithinRange')], none)).toEqual([]);
      expect(await read()).toBe('open');
    });
  });

  it('the same desired state later opens a new PR: gpuops’ close is not a person’s', async () => {
    await withOpenScalePr(async (host) => {
      expect(await host.closeSuperseded(BRANCH, 'no longer needed')).toBe(true);
      expect(await host.closeSuperseded(BRANCH, 'no longer needed')).toBe(false);
      const found = await host.findPullRequest(BRANCH, 'main');
      expect(found?.state).toBe('closed');
      const cs = {
        branch: BRANCH,
        desiredHash: 'h6',
        title: 't',
        body: 'b',
        kind: 'scale',
        subject: 'sd-serve',
      };
      expect(decidePullRequest(found, cs as unknown as ChangeSet, false).action).toBe('create');
      // A person's close with the same hash stays closed (the neighbour case).
      expect(
        decidePullRequest({ ...found!, desiredHash: 'h6' }, cs as unknown as ChangeSet, false).action,
      ).toBe('closed-by-person');
    });
  });
});
