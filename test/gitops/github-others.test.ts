/**
 * Pull requests and comments by others on GitHub are not gpuops's. A pull request from a fork
 * whose branch is named like gpuops's (`gpuops/prod/…`) never fills `maxOpen` nor stands for
 * gpuops's own; a comment by anyone but gpuops's account that carries gpuops's hidden marker never
 * silences gpuops. The fake GitHub models head repositories, comment authors and `GET /user`
 * (403 for a GitHub App installation token, whose comments are by a Bot account).
 */
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GitHubHost } from '../../src/git-hosts/github-host.js';
import { fromThisRepo } from '../../src/git-hosts/github-rest.js';
import { desiredHash } from '../../src/change-sets/pr-body.js';
import type { ChangeSet } from '../../src/change-sets/types.js';
import { WorkingCopy } from '../../src/working-copy/working-copy.js';
import { writeBack } from '../../src/write-back/write-back.js';
import { openStore } from '../../src/store/index.js';
import { FakeGitHub } from '../support/github-server.js';
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

const host = (login?: string) =>
  new GitHubHost({
    owner: 'acme',
    repo: 'gitops',
    base: 'main',
    cluster: 'prod',
    token: gh.token,
    baseUrl: gh.url,
    msPerSecond: 1,
    pacing: false,
    ...(login ? { login } : {}),
  });

function scale(subject: string): ChangeSet {
  const files = [{ path: `clusters/prod/algorithms/${subject}/deployment.yaml`, content: 'replicas: 2\n' }];
  return {
    kind: 'scale',
    subject,
    branch: `gpuops/prod/scale/${subject}`,
    title: `scale ${subject}`,
    body: 'body',
    files,
    desiredHash: desiredHash(files),
  };
}

describe('pull requests from forks', () => {
  it.each([
    ['a fork’s pull request named like gpuops’s does not fill maxOpen', 'mallory/gitops', 'created'],
    ['the neighbour: gpuops’s own open pull request does', 'acme/gitops', 'deferred'],
  ])('%s', async (_, headRepo, action) => {
    const repo = makeRemote();
    repos.push(repo);
    const wc = await WorkingCopy.open({
      repoUrl: repo.url,
      baseBranch: 'main',
      dir: join(repo.root, 'cache'),
    });
    gh.addPull({ head: 'gpuops/prod/scale/other', headRepo, title: 'scale other' });
    const [r] = await writeBack([scale('resnet')], {
      workingCopy: wc,
      host: host(),
      store: await openStore('sqlite::memory:'),
      cluster: 'prod',
      mode: 'pull-request',
      dryRun: false,
      limits: { maxOpenedPerPass: 5, maxOpen: 1 },
      now: () => new Date('2026-01-01T00:00:00Z'),
    });
    // Before: the fork's pull request counted, so gpuops's was deferred (MaxOpen).
    expect(r?.action).toBe(action);
  });

  it('a fork’s pull request of the same branch name is not gpuops’s pull request', async () => {
    gh.addPull({ head: 'gpuops/prod/pools', headRepo: 'mallory/gitops', title: 'pools?' });
    expect(await host().findPullRequest('gpuops/prod/pools', 'main')).toBeNull();
    expect(await host().listOpen()).toEqual([]);
  });
});

describe('comments with gpuops’s marker', () => {
  const marker = '<!-- gpuops:person-commits=abc -->';
  const body = `gpuops did not update the branch.\n\n${marker}`;

  it.each([
    [
      'a person’s comment carrying the marker does not silence gpuops',
      { login: 'mallory', type: 'User' as const },
      'created',
    ],
    ['gpuops’s own earlier comment does', { login: 'gpuops-bot', type: 'User' as const }, 'unchanged'],
    [
      'another account’s Bot comment does not, when gpuops knows its account',
      { login: 'renovate[bot]', type: 'Bot' as const },
      'created',
    ],
  ])('%s', async (_, user, action) => {
    const pr = gh.addPull({ head: 'gpuops/prod/pools' });
    gh.addComment(pr.number, `quoting gpuops: ${marker}`, user);
    expect(await host().comment(pr.number, body)).toBe(action);
  });

  it('a GitHub App token (GET /user is 403): a Bot’s comment counts, a person’s does not; then gpuops’s own login', async () => {
    gh.user = 'integration';
    const pr = gh.addPull({ head: 'gpuops/prod/pools' });
    gh.addComment(pr.number, `me too ${marker}`, { login: 'mallory', type: 'User' });
    const h = host();
    expect(await h.comment(pr.number, body)).toBe('created');
    expect(await h.comment(pr.number, body)).toBe('unchanged');
    expect(gh.comments.get(pr.number)!.map((c) => c.user.login)).toEqual(['mallory', 'gpuops-app[bot]']);
    // A second marker: after its own comment the host knows its login; another Bot does not count.
    const other = '<!-- gpuops:person-commits=def -->';
    gh.addComment(pr.number, other, { login: 'renovate[bot]', type: 'Bot' });
    expect(await h.comment(pr.number, `again\n\n${other}`)).toBe('created');
  });

  it('the login option names gpuops’s account without asking GitHub', async () => {
    const pr = gh.addPull({ head: 'gpuops/prod/pools' });
    gh.addComment(pr.number, marker, { login: 'gpuops-app[bot]', type: 'Bot' });
    expect(await host('gpuops-app[bot]').comment(pr.number, body)).toBe('unchanged');
    expect(gh.requests.some((r) => r.path === '/user')).toBe(false);
  });
});

describe('fromThisRepo', () => {
  it.each([
    [
      'the same repository',
      { repo: { full_name: 'acme/gitops' } },
      { repo: { full_name: 'acme/gitops' } },
      true,
    ],
    [
      'the same, another case',
      { repo: { full_name: 'ACME/GitOps' } },
      { repo: { full_name: 'acme/gitops' } },
      true,
    ],
    ['a fork', { repo: { full_name: 'mallory/gitops' } }, { repo: { full_name: 'acme/gitops' } }, false],
    ['a deleted fork (head.repo null)', { repo: null }, { repo: { full_name: 'acme/gitops' } }, false],
    ['an answer naming no repository (a minimal stand-in)', {}, {}, true],
  ])('%s', (_, head, base, expected) => {
    expect(fromThisRepo({ head, base })).toBe(expected);
  });
});
