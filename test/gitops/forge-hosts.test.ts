/**
 * What only the GitLab and Gitea/Forgejo hosts do, against their stand-ins: every page of a long
 * list (GitLab's `Link`/`x-next-page`, Gitea's `X-Total-Count`), GitLab's description and label
 * limits kept by cutting, labels GitLab leaves off, gpuops's account asked once, a wrong token, and
 * the project by id or path. `verify()` after each test fails on any request the host does not
 * document (a merge or an approval among them).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildChangeSet } from '../../src/change-sets/change-set.js';
import { GiteaHost } from '../../src/git-hosts/gitea-host.js';
import { GitLabHost, type GitLabHostOptions } from '../../src/git-hosts/gitlab-host.js';
import { FULL_TEXT_AT, parseDesiredHash } from '../../src/change-sets/pr-body.js';
import { PrHostError } from '../../src/git-hosts/pr-host.js';
import type { ChangeSet } from '../../src/change-sets/types.js';
import { GiteaStandIn } from '../../src/sim/forges/gitea.js';
import { GITLAB_STAND_IN_LIMITS, GitLabStandIn } from '../../src/sim/forges/gitlab.js';

function changeSet(subject: string, over: Partial<ChangeSet> = {}): ChangeSet {
  const cs = buildChangeSet({
    cluster: 'prod',
    kind: 'scale',
    subject,
    files: [{ path: `clusters/prod/algorithms/${subject}/deployment.yaml`, content: 'replicas: 2\n' }],
  })!;
  return { ...cs, ...over };
}

describe('the GitLab host', () => {
  let gl: GitLabStandIn;
  beforeAll(async () => {
    gl = await GitLabStandIn.start({ projectId: 42, projectPath: 'acme/platform/gitops' });
  });
  afterAll(() => gl.close());
  afterEach(() => {
    try {
      gl.verify();
    } finally {
      gl.reset();
    }
  });
  const host = (o: Partial<GitLabHostOptions> = {}) =>
    new GitLabHost({
      url: gl.url,
      project: 'acme/platform/gitops',
      base: 'main',
      cluster: 'prod',
      token: gl.token,
      msPerSecond: 1,
      ...o,
    });

  it('lists every page of open merge requests (130 over two pages of 100), leaving other clusters out', async () => {
    for (let i = 0; i < 130; i++) gl.addPull({ head: `gpuops/prod/scale/a${i}` });
    gl.addPull({ head: 'gpuops/staging/scale/a' });
    const open = await host().listOpen();
    expect(open).toHaveLength(130);
    const lists = gl.requests.filter((r) => r.path.endsWith('/merge_requests'));
    expect(lists.map((r) => r.query.page ?? '1')).toEqual(['1', '2']);
  });

  it('finds the project by numeric id as by path', async () => {
    gl.addPull({ head: 'gpuops/prod/scale/x' });
    expect((await host({ project: 42 }).listOpen()).map((p) => p.number)).toEqual([1]);
    expect(gl.requests[0]!.path).toBe('/api/v4/projects/42/merge_requests');
  });

  it('cuts a description over 1,048,576 characters with a note and keeps its desired hash, stably', async () => {
    const cs = changeSet('big');
    const big = {
      ...cs,
      body: `${'| row |\n'.repeat(140_000)}\n<!-- gpuops:desired-hash=${cs.desiredHash} -->\n`,
    };
    expect(big.body.length).toBeGreaterThan(GITLAB_STAND_IN_LIMITS.description);
    const h = host();
    expect((await h.ensurePullRequest(big)).action).toBe('created');
    const body = gl.pulls[0]!.body;
    expect(body.length).toBeLessThanOrEqual(GITLAB_STAND_IN_LIMITS.description);
    expect(body).toContain(`cut to fit`);
    expect(body).toContain(FULL_TEXT_AT);
    expect(parseDesiredHash(body)).toBe(cs.desiredHash);
    expect((await h.ensurePullRequest(big)).action).toBe('unchanged');
  });

  it('takes labels with a comma or over 255 characters as GitLab can, with a warning, and stays unchanged after', async () => {
    const cs = changeSet('labels', { labels: ['team,ml', 'y'.repeat(300)] });
    const h = host();
    const r = await h.ensurePullRequest(cs);
    expect(r.action).toBe('created');
    expect(r.warnings).toHaveLength(2);
    expect(gl.pulls[0]!.labels).toEqual(['gpuops', 'gpuops/scale', 'team ml', `${'y'.repeat(254)}…`]);
    const again = await h.ensurePullRequest(cs);
    expect(again.action).toBe('unchanged');
  });

  it('says so when GitLab leaves off labels the account may not create, and asks no more', async () => {
    gl.labelMode = 'left-off';
    gl.projectLabels.add('gpuops');
    const h = host();
    const r = await h.ensurePullRequest(changeSet('a'));
    expect(r.action).toBe('created');
    expect(r.warnings).toEqual([
      'labels gpuops/scale not added to !1: the host left them off (the token may not create labels in this repository)',
    ]);
    expect(gl.pulls[0]!.labels).toEqual(['gpuops']);
    const writes = gl.writes().length;
    const again = await h.ensurePullRequest(changeSet('a'));
    expect(again.action).toBe('unchanged');
    expect(again.warnings?.[0]).toContain('not tried again until restart');
    expect(gl.writes()).toHaveLength(writes);
  });

  it("asks GET /user once for gpuops's account, and reads notes across pages", async () => {
    const n = gl.addPull({ head: 'gpuops/prod/scale/a' }).number;
    for (let i = 0; i < 120; i++) gl.addComment(n, `note ${i}`, 'jane');
    const body = 'left alone\n\n<!-- gpuops:person-commits=abc -->';
    gl.addComment(n, body, gl.username);
    gl.addComment(n, body, 'jane', true);
    const h = host();
    expect(await h.comment(n, body)).toBe('unchanged');
    expect(await h.comment(n, 'other\n\n<!-- gpuops:person-commits=def -->')).toBe('created');
    expect(gl.requests.filter((r) => r.path === '/api/v4/user')).toHaveLength(1);
  });

  it('a wrong token is HostPermission, never a retry, and the token is never in the message', async () => {
    const err = await host({ token: 'glpat-wrong-token-99' })
      .listOpen()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PrHostError);
    expect(err).toMatchObject({ kind: 'permission', status: 401 });
    expect((err as Error).message).not.toContain('glpat-wrong-token-99');
    expect(gl.requests).toHaveLength(1);
  });

  it('gives up after the retries a failing server gets (3), with its status', async () => {
    for (let i = 0; i < 4; i++)
      gl.script({
        method: 'GET',
        path: '/api/v4/projects/acme%2Fplatform%2Fgitops/merge_requests',
        status: 503,
      });
    const waits: number[] = [];
    const err = await host({ onWait: (w) => waits.push(w.seconds) })
      .listOpen()
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'other', status: 503 });
    expect(waits).toEqual([1, 2, 4, 8]);
    expect(gl.requests.map((r) => r.status)).toEqual([503, 503, 503, 503]);
  });
});

describe('the Gitea host', () => {
  let gt: GiteaStandIn;
  beforeAll(async () => {
    gt = await GiteaStandIn.start();
  });
  afterAll(() => gt.close());
  afterEach(() => {
    try {
      gt.verify();
    } finally {
      gt.reset();
    }
  });
  const host = () =>
    new GiteaHost({
      url: gt.url,
      owner: 'acme',
      repo: 'gitops',
      base: 'main',
      cluster: 'prod',
      token: gt.token,
      msPerSecond: 1,
    });

  it('lists every page of open pull requests (120 over three pages of 50, X-Total-Count)', async () => {
    for (let i = 0; i < 120; i++) gt.addPull({ head: `gpuops/prod/scale/a${i}` });
    expect(await host().listOpen()).toHaveLength(120);
    expect(gt.requests.map((r) => [r.query.page, r.query.limit])).toEqual([
      ['1', '50'],
      ['2', '50'],
      ['3', '50'],
    ]);
  });

  it('finds a closed pull request of the branch behind a full page of open ones', async () => {
    const cs = changeSet('old');
    gt.addPull({
      head: cs.branch,
      state: 'closed',
      body: `x\n\n<!-- gpuops:desired-hash=${cs.desiredHash} -->`,
    });
    for (let i = 0; i < 60; i++) gt.addPull({ head: `gpuops/prod/scale/b${i}` });
    expect(await host().findPullRequest(cs.branch, 'main')).toMatchObject({
      number: 1,
      state: 'closed',
      desiredHash: cs.desiredHash,
    });
    expect((await host().ensurePullRequest(cs)).action).toBe('closed-by-person');
  });

  it('creates missing labels once and adds them by id', async () => {
    gt.repoLabels.set('gpuops', 900);
    const h = host();
    expect((await h.ensurePullRequest(changeSet('a'))).action).toBe('created');
    expect((await h.ensurePullRequest(changeSet('b'))).action).toBe('created');
    expect([...gt.repoLabels.keys()]).toEqual(['gpuops', 'gpuops/scale']);
    expect(gt.pulls.map((p) => p.labels)).toEqual([
      ['gpuops', 'gpuops/scale'],
      ['gpuops', 'gpuops/scale'],
    ]);
    const creates = gt.requests.filter(
      (r) => r.method === 'POST' && r.path.endsWith('/labels') && !r.path.includes('/issues/'),
    );
    expect(creates).toHaveLength(1);
  });

  it('reads an edit answered 201 as done (Gitea answers Created)', async () => {
    const cs = changeSet('a');
    gt.addPull({ head: cs.branch, title: 'stale' });
    gt.repoLabels.set('gpuops', 1).set('gpuops/scale', 2);
    gt.pulls[0]!.labels = ['gpuops', 'gpuops/scale'];
    expect((await host().ensurePullRequest(cs)).action).toBe('updated');
    expect(gt.requests.filter((r) => r.method === 'PATCH').map((r) => r.status)).toEqual([201]);
    expect(gt.pulls[0]!.title).toBe(cs.title);
  });
});
