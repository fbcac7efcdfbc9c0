import { describe, expect, it } from 'vitest';
import { decidePullRequest } from '../../src/git-hosts/ensure-pull-request.js';
import { GIT_ERROR_RULES, classifyGitError, parsePushPorcelain } from '../../src/working-copy/git-errors.js';
import { rateLimitResetAt, utcClock } from '../../src/git-hosts/github-host.js';
import { desiredHash, withHashMarker } from '../../src/change-sets/pr-body.js';
import { splitRemoteUrl } from '../../src/working-copy/remote-url.js';
import type { ChangeSet, PullRequestInfo } from '../../src/change-sets/types.js';
import { backoffDelay } from '../../src/retry/retry.js';

describe('classifyGitError: push races are the same race as a non-fast-forward', () => {
  it.each([
    [
      'another writer holds the ref lock',
      " ! [remote rejected] HEAD -> gpuops/prod/pools (cannot lock ref 'refs/heads/gpuops/prod/pools': is at 1111111111111111111111111111111111111111 but expected 2222222222222222222222222222222222222222)",
      'non-fast-forward',
    ],
    [
      'the receiving side could not move the ref',
      ' ! [remote rejected] HEAD -> x (failed to update ref)',
      'non-fast-forward',
    ],
    [
      'another writer created the branch first',
      " ! [remote rejected] HEAD -> x (cannot lock ref 'refs/heads/x': reference already exists)",
      'non-fast-forward',
    ],
    ['reference already exists alone', 'error: reference already exists', 'non-fast-forward'],
    // Neighbours across the boundary: a remote rejection that is not a race stays refused.
    ['a hook refuses', ' ! [remote rejected] HEAD -> x (pre-receive hook declined)', 'refused'],
    ['an update hook refuses one ref', ' ! [remote rejected] HEAD -> x (hook declined)', 'refused'],
    ['an unknown remote rejection', ' ! [remote rejected] HEAD -> x (shallow update not allowed)', 'refused'],
    [
      'a local index lock is transient',
      "fatal: Unable to create '/c/.git/index.lock': File exists.",
      'transient',
    ],
  ])('%s', (_name, text, kind) => {
    expect(classifyGitError(text)).toBe(kind);
  });

  it('has a row for every message it names, and each row is reached by its own message', () => {
    const samples: Record<string, string> = {
      'pre-receive hook declined': 'remote: pre-receive hook declined',
      'protected branch': 'GH006: Protected branch update failed',
      '\\(hook declined\\)': '(hook declined)',
      'non-fast-forward': '! [rejected] main -> main (non-fast-forward)',
      '\\(fetch first\\)': '(fetch first)',
      'stale info': '(stale info)',
      'cannot lock ref': "cannot lock ref 'refs/heads/a'",
      'failed to update ref': 'failed to update ref',
      'reference already exists': 'reference already exists',
      '\\[rejected\\]': '! [rejected] main -> main (would clobber existing tag)',
      'authentication failed': 'fatal: Authentication failed for x',
      'could not read (username|password)': 'could not read Username for https://h',
      'permission denied': 'Permission denied (publickey).',
      'invalid username or password': 'remote: Invalid username or password.',
      'the requested url returned error: 40[13]': 'The requested URL returned error: 401',
      'terminal prompts disabled': 'fatal: terminal prompts disabled',
      'write access to repository not granted': 'remote: Write access to repository not granted.',
      'could not resolve host': 'Could not resolve host: h',
      'connection (refused|reset|timed out)': 'Connection reset by peer',
      'timed out': 'Operation timed out after 30000 ms',
      'early eof': 'fatal: early EOF',
      'the remote end hung up unexpectedly': 'fatal: the remote end hung up unexpectedly',
      'the requested url returned error: (5\\d\\d|429)': 'The requested URL returned error: 503',
      'rpc failed': 'error: RPC failed; curl 56',
      'temporary failure': 'Temporary failure in name resolution',
      'failed to connect': 'Failed to connect to h port 443',
      'unable to access': "fatal: unable to access 'https://h/': SSL certificate problem",
      "index\\.lock': file exists": "Unable to create '/c/.git/index.lock': File exists.",
    };
    for (const rule of GIT_ERROR_RULES) {
      const text = samples[rule.pattern.source];
      expect(text, rule.pattern.source).toBeDefined();
      expect(
        GIT_ERROR_RULES.find((r) => r.pattern.test(text!)),
        rule.pattern.source,
      ).toBe(rule);
      expect(classifyGitError(text!)).toBe(rule.kind);
    }
  });
});

describe('parsePushPorcelain', () => {
  it('gives one result per ref, accepted or rejected with its kind', () => {
    const out = [
      'To file:///r/remote.git',
      '*\t1111111:refs/heads/gpuops/prod/placement/a\t[new branch]',
      ' \t2222222:refs/heads/gpuops/prod/placement/b\tabc..def',
      '+\t3333333:refs/heads/gpuops/prod/placement/c\tabc...def (forced update)',
      '!\t4444444:refs/heads/gpuops/prod/placement/d\t[rejected] (stale info)',
      "!\t5555555:refs/heads/gpuops/prod/placement/e\t[remote rejected] (cannot lock ref 'refs/heads/gpuops/prod/placement/e': reference already exists)",
      '!\t6666666:refs/heads/main\t[remote rejected] (pre-receive hook declined)',
      '=\t7777777:refs/heads/gpuops/prod/pools\t[up to date]',
      'Done',
    ].join('\n');
    expect(
      parsePushPorcelain(out).map((r) => [r.ref.replace('refs/heads/', ''), r.ok, r.upToDate, r.kind]),
    ).toEqual([
      ['gpuops/prod/placement/a', true, false, null],
      ['gpuops/prod/placement/b', true, false, null],
      ['gpuops/prod/placement/c', true, false, null],
      ['gpuops/prod/placement/d', false, false, 'non-fast-forward'],
      ['gpuops/prod/placement/e', false, false, 'non-fast-forward'],
      ['main', false, false, 'refused'],
      // Accepted, but the push wrote nothing: the ref already held the commit.
      ['gpuops/prod/pools', true, true, null],
    ]);
  });
});

describe('splitRemoteUrl', () => {
  it.each([
    [
      'user and token',
      'https://bot:ghp_s3cret@github.com/acme/gitops.git',
      'https://github.com/acme/gitops.git',
      { username: 'bot', password: 'ghp_s3cret' },
    ],
    [
      'a token as user name',
      'https://ghp_s3cret@github.com/acme/gitops.git',
      'https://github.com/acme/gitops.git',
      { username: 'ghp_s3cret', password: '' },
    ],
    [
      'percent-encoded',
      'http://a%40b:p%2Fw@127.0.0.1:8080/r.git',
      'http://127.0.0.1:8080/r.git',
      { username: 'a@b', password: 'p/w' },
    ],
    ['no credentials', 'https://github.com/acme/gitops.git', 'https://github.com/acme/gitops.git', null],
    [
      'ssh keeps its user',
      'ssh://git@github.com/acme/gitops.git',
      'ssh://git@github.com/acme/gitops.git',
      null,
    ],
    ['scp-like keeps its user', 'git@github.com:acme/gitops.git', 'git@github.com:acme/gitops.git', null],
    ['a path', '/srv/git/gitops.git', '/srv/git/gitops.git', null],
  ])('%s', (_name, input, url, credentials) => {
    expect(splitRemoteUrl(input)).toEqual({ url, credentials });
  });
});

function cs(over: Partial<ChangeSet> = {}): ChangeSet {
  const files = [{ path: 'clusters/prod/algorithms/a/deployment.yaml', content: 'replicas: 1\n' }];
  return {
    kind: 'placement',
    subject: 'a',
    branch: 'gpuops/prod/placement/a',
    title: 'gpuops(prod): place a on short-task',
    body: 'evidence',
    files,
    desiredHash: desiredHash(files),
    ...over,
  };
}

function pr(c: ChangeSet, over: Partial<PullRequestInfo> = {}): PullRequestInfo {
  return {
    number: 7,
    url: 'https://github.com/acme/gitops/pull/7',
    head: c.branch,
    base: 'main',
    state: 'open',
    title: c.title,
    body: withHashMarker(c.body, c.desiredHash),
    labels: ['gpuops', 'gpuops/placement'],
    desiredHash: c.desiredHash,
    ...over,
  };
}

describe('decidePullRequest', () => {
  const c = cs();
  const other = 'f'.repeat(c.desiredHash.length);
  it.each<[string, PullRequestInfo | null, string, Record<string, unknown>?]>([
    ['no PR: create', null, 'create'],
    ['merged PR: create afresh', pr(c, { state: 'merged' }), 'create'],
    ['closed by a person, same desired state: leave closed', pr(c, { state: 'closed' }), 'closed-by-person'],
    [
      'closed by a person, desired state changed: create',
      pr(c, { state: 'closed', desiredHash: other }),
      'create',
    ],
    ['open and current: nothing', pr(c), 'nothing'],
    [
      'open, CRLF and trailing blanks only: nothing',
      pr(c, { body: withHashMarker(c.body, c.desiredHash).replace(/\n/g, '\r\n') + '\n\n' }),
      'nothing',
    ],
    [
      'open, other title: update the title only',
      pr(c, { title: 'old' }),
      'update',
      { title: c.title, body: undefined, addLabels: [] },
    ],
    [
      'open, other body: update the body only',
      pr(c, { body: 'old' }),
      'update',
      { title: undefined, body: withHashMarker(c.body, c.desiredHash), addLabels: [] },
    ],
    [
      'open, a label missing: add it',
      pr(c, { labels: ['gpuops'] }),
      'update',
      { title: undefined, body: undefined, addLabels: ['gpuops/placement'] },
    ],
  ])('%s', (_name, found, action, extra) => {
    const d = decidePullRequest(found, c);
    expect(d.action).toBe(action);
    if (extra) expect(d).toEqual({ action, ...extra });
  });

  it('keeps the body of an open scale pull request that proposes the same files (utilisation moves every pass)', () => {
    const scale = cs({ kind: 'scale', branch: 'gpuops/prod/scale/a', body: 'utilisation 93.4%' });
    const opened = pr(scale, {
      body: withHashMarker('utilisation 92.1%', scale.desiredHash),
      labels: ['gpuops', 'gpuops/scale'],
    });
    expect(decidePullRequest(opened, scale)).toEqual({ action: 'nothing' });
    // Other files (another replica count): the body says what is now proposed.
    expect(decidePullRequest({ ...opened, desiredHash: other }, scale)).toEqual({
      action: 'update',
      body: withHashMarker(scale.body, scale.desiredHash),
      addLabels: [],
    });
    // A placement pull request's evidence is not a moving figure: its body is rewritten.
    expect(decidePullRequest(pr(c, { body: 'old' }), c).action).toBe('update');
  });

  it('ignores labels for a host without them', () => {
    expect(decidePullRequest(pr(c, { labels: [] }), c, false).action).toBe('nothing');
    expect(decidePullRequest(pr(c, { labels: [] }), c, true).action).toBe('update');
  });
});

describe('rate-limit reset time', () => {
  const now = new Date('2026-11-30T19:00:00Z');
  it.each([
    [
      'primary: x-ratelimit-reset',
      {
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(Date.parse('2026-11-30T19:42:05Z') / 1000),
      },
      '19:42:05',
    ],
    ['429: retry-after seconds from now', { 'retry-after': '90' }, '19:01:30'],
    ['secondary without a header: 60 s', {}, '19:01:00'],
    [
      'remaining not 0: reset ignored, retry-after used',
      { 'x-ratelimit-remaining': '5', 'x-ratelimit-reset': '1', 'retry-after': '5' },
      '19:00:05',
    ],
  ])('%s', (_name, headers, clock) => {
    expect(utcClock(rateLimitResetAt({ status: 403, response: { headers } }, now))).toBe(clock);
  });
});

describe('backoffDelay', () => {
  it.each([
    [1, 0, 250],
    [1, 1, 500],
    [2, 1, 1000],
    [4, 1, 4000],
    [5, 1, 8000],
    [6, 1, 8000], // capped at maxMs
    [6, 0, 4000],
  ])('attempt %i, random %f → %i ms', (attempt, random, ms) => {
    expect(backoffDelay(attempt, { baseMs: 500, maxMs: 8000 }, () => random)).toBe(ms);
  });
});
