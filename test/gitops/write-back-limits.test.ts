/**
 * Write-back against the fake GitHub with GitHub's limits (title 256, body and comment 65,536
 * characters: 422 Validation Failed) and labels refused (403): a 10,000-node pools change goes in
 * as one pull request, its whole text in gpuops's records (`gpuops prs show`), and nothing is
 * sent again on the next pass. The plain git host records the whole text too.
 */
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { formatPullRequestCycle } from '../../src/cli/commands/prs.js';
import { buildChangeSet } from '../../src/change-sets/change-set.js';
import { GitHubHost } from '../../src/git-hosts/github-host.js';
import { GitPullRequestHost } from '../../src/git-hosts/git-host.js';
import { GITHUB_BODY_MAX } from '../../src/change-sets/host-limits.js';
import { parseDesiredHash } from '../../src/change-sets/pr-body.js';
import type { ChangeSet } from '../../src/change-sets/types.js';
import { WorkingCopy } from '../../src/working-copy/working-copy.js';
import { writeBack, type WriteBackDeps } from '../../src/write-back/write-back.js';
import type { PoolAssignment } from '../../src/pools/types.js';
import { openStore, statusStoreOf } from '../../src/store/index.js';
import { FakeGitHub, GITHUB_LIMITS } from '../support/github-server.js';
import { makeRemote, type TempRepo } from './helpers.js';

let gh: FakeGitHub;
const repos: TempRepo[] = [];
beforeAll(async () => {
  gh = await FakeGitHub.start();
});
afterAll(async () => {
  await gh.close();
});
afterEach(() => {
  for (const r of repos.splice(0)) r.cleanup();
  try {
    gh.verify();
  } finally {
    gh.reset();
  }
});

const node = (i: number) => `ip-10-${String(i).padStart(5, '0')}.us-west-2.compute.internal`;

/** A first pools pass over `n` nodes (one node file, so the push stays small). */
function poolsChange(n: number): ChangeSet {
  const pools: PoolAssignment[] = Array.from({ length: n }, (_, i) => ({
    node: node(i),
    from: null,
    to: i === 0 ? 'test' : 'unused',
    reason: i === 0 ? 'TestPool' : 'Unused',
    message: 'GPU node, Ready, schedulable: unused',
  }));
  return buildChangeSet({
    cluster: 'prod',
    kind: 'pools',
    subject: 'pools',
    files: [{ path: `clusters/prod/nodes/${node(0)}.yaml`, content: 'kind: Node\n' }],
    current: new Map(),
    pools,
  })!;
}

async function setup(provider: 'github' | 'git') {
  const repo = makeRemote();
  repos.push(repo);
  const wc = await WorkingCopy.open({ repoUrl: repo.url, baseBranch: 'main', dir: join(repo.root, 'cache') });
  const store = await openStore('sqlite::memory:');
  const now = () => new Date('2025-06-01T12:00:00Z');
  const host =
    provider === 'github'
      ? new GitHubHost({
          owner: 'acme',
          repo: 'gitops',
          base: 'main',
          cluster: 'prod',
          token: gh.token,
          baseUrl: gh.url,
          msPerSecond: 1,
          pacing: false,
        })
      : new GitPullRequestHost({ store, cluster: 'prod', base: 'main', now });
  const deps: WriteBackDeps = {
    workingCopy: wc,
    host,
    store,
    cluster: 'prod',
    mode: 'pull-request',
    dryRun: false,
    limits: { maxOpenedPerPass: 5, maxOpen: 10 },
    now,
  };
  return { deps, store: statusStoreOf(store)!, host };
}

describe('a 10,000-node pools pull request on GitHub', () => {
  it('is created within the limits; the records hold the whole text; pass 2 sends nothing', async () => {
    const { deps, store } = await setup('github');
    const cs = poolsChange(10_000);
    const [r] = await writeBack([cs], deps);
    expect(r).toMatchObject({ action: 'created', pullRequest: { number: 1 } });
    const pr = gh.pulls[0]!;
    expect(pr.body.length).toBeLessThanOrEqual(GITHUB_LIMITS.body);
    expect(pr.title.length).toBeLessThanOrEqual(GITHUB_LIMITS.title);
    expect(parseDesiredHash(pr.body)).toBe(cs.desiredHash);
    expect(pr.body).toMatch(/^… and 9,\d{3} more nodes$/m);

    const [cycle] = await store.pullRequestHistory('prod');
    const shown = formatPullRequestCycle(cycle!);
    for (const i of [0, 5_000, 9_999]) expect(shown).toContain(`| ${node(i)} | none |`);
    expect(cycle!.body.length).toBeGreaterThan(GITHUB_BODY_MAX);

    const writes = gh.writes().length;
    const [again] = await writeBack([poolsChange(10_000)], deps);
    expect(again!.action).toBe('unchanged');
    expect(gh.writes().length).toBe(writes);
  });

  it('the neighbour below the limit: sent whole, the record the same text', async () => {
    const { deps, store } = await setup('github');
    const cs = poolsChange(100);
    expect(cs.fullBody).toBeUndefined();
    await writeBack([cs], deps);
    expect(gh.pulls[0]!.body).toBe(cs.body);
    expect((await store.pullRequests('prod'))[0]!.body).toBe(cs.body);
  });
});

describe('the fake GitHub answers as GitHub does over the limits', () => {
  it('a title of 257 characters is 422; 256 is taken', async () => {
    const res = async (title: string) =>
      fetch(`${gh.url}/repos/acme/gitops/pulls`, {
        method: 'POST',
        headers: { authorization: `token ${gh.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title, head: `h-${title.length}`, base: 'main', body: '' }),
      });
    const over = await res('t'.repeat(257));
    expect(over.status).toBe(422);
    expect(await over.json()).toMatchObject({
      message: 'Validation Failed',
      errors: [{ field: 'title', message: 'title is too long (maximum is 256 characters)' }],
    });
    expect((await res('t'.repeat(256))).status).toBe(201);
  });

  it('a comment over 65,536 characters is cut by the host, its marker kept', async () => {
    const { host } = await setup('github');
    gh.addPull({ head: 'gpuops/prod/pools' });
    const marker = '<!-- gpuops:spec-errors=abc -->';
    expect(await host.comment(1, `${'error line\n'.repeat(10_000)}\n${marker}\n`)).toBe('created');
    const [c] = gh.comments.get(1)!;
    expect(c!.body.length).toBeLessThanOrEqual(GITHUB_LIMITS.comment);
    expect(c!.body.trimEnd().endsWith(marker)).toBe(true);
    expect(await host.comment(1, `${'error line\n'.repeat(10_000)}\n${marker}\n`)).toBe('unchanged');
  });
});

describe('the plain git host', () => {
  it('records the whole text of a cut body, and finds it unchanged next pass', async () => {
    const { deps, store } = await setup('git');
    const cs = poolsChange(2_000);
    expect(cs.fullBody).toBeDefined();
    expect((await writeBack([cs], deps))[0]!.action).toBe('created');
    const [rec] = await store.pullRequests('prod');
    expect(rec!.body).toContain(`| ${node(1_999)} | none |`);
    expect((await writeBack([poolsChange(2_000)], deps))[0]!.action).toBe('unchanged');
  });
});
