/**
 * The pure rules of the GitLab and Gitea/Forgejo hosts: when a failed answer is retried and how
 * long to wait (each edge with its neighbour), the project or repository of a remote URL, GitLab's
 * label rule, and how `gpuops prs` writes a merge request's number.
 */
import { describe, expect, it } from 'vitest';
import { pullRequestRef } from '../../src/change-sets/pr-ref.js';
import { answerError } from '../../src/git-hosts/host-fetch.js';
import { rateLimitEndsAt, retryAfterSeconds, retryWait } from '../../src/git-hosts/host-retry.js';
import { originOf, parseGiteaRepo } from '../../src/git-hosts/gitea-rest.js';
import { fitLabel, parseGitLabProject } from '../../src/git-hosts/gitlab-rest.js';

const NOW = new Date('2025-06-01T12:00:00Z');
const headers = (h: Record<string, string>) => (name: string) => h[name] ?? null;

describe('retryWait', () => {
  it.each([
    ['429 with Retry-After seconds', 429, { 'retry-after': '7' }, 0, { seconds: 7, source: 'retry-after' }],
    [
      '429 with Retry-After as an HTTP date',
      429,
      { 'retry-after': 'Sun, 01 Jun 2025 12:00:30 GMT' },
      0,
      { seconds: 30, source: 'retry-after' },
    ],
    [
      '429 with a Retry-After date already past',
      429,
      { 'retry-after': 'Sun, 01 Jun 2025 11:00:00 GMT' },
      0,
      { seconds: 0, source: 'retry-after' },
    ],
    [
      "429 with GitLab's RateLimit-Reset only",
      429,
      { 'ratelimit-reset': String(NOW.getTime() / 1000 + 42) },
      0,
      { seconds: 42, source: 'ratelimit-reset' },
    ],
    [
      '429 with Retry-After beside the reset: Retry-After wins',
      429,
      { 'retry-after': '5', 'ratelimit-reset': String(NOW.getTime() / 1000 + 42) },
      0,
      { seconds: 5, source: 'retry-after' },
    ],
    ['429 without a header: backoff, first retry', 429, {}, 0, { seconds: 1, source: 'backoff' }],
    ['502: backoff, third retry', 502, {}, 2, { seconds: 4, source: 'backoff' }],
    ['503 with Retry-After', 503, { 'retry-after': '3' }, 0, { seconds: 3, source: 'retry-after' }],
    ['500', 500, {}, 0, { seconds: 1, source: 'backoff' }],
    ['504', 504, {}, 1, { seconds: 2, source: 'backoff' }],
    [
      'a 5xx never reads the rate-limit reset',
      502,
      { 'ratelimit-reset': String(NOW.getTime() / 1000 + 42) },
      0,
      { seconds: 1, source: 'backoff' },
    ],
  ])('%s', (_name, status, h, retry, expected) => {
    expect(retryWait(status, headers(h), retry, NOW)).toEqual(expected);
  });

  it.each([400, 401, 403, 404, 409, 422, 501, 505])('never retries %i', (status) => {
    expect(retryWait(status, headers({ 'retry-after': '1' }), 0, NOW)).toBeNull();
  });

  it('reads no number from a Retry-After that is neither seconds nor a date', () => {
    expect(retryAfterSeconds('soon', NOW)).toBeNull();
    expect(retryAfterSeconds('', NOW)).toBeNull();
    expect(retryAfterSeconds(' 12 ', NOW)).toBe(12);
  });

  it('a rate limit with no word of its end is taken to end in a minute', () => {
    expect(rateLimitEndsAt(headers({}), NOW).toISOString()).toBe('2025-06-01T12:01:00.000Z');
  });
});

describe('answerError', () => {
  it.each([
    [429, 'rate-limited'],
    [401, 'permission'],
    [403, 'permission'],
    [404, 'not-found'],
    [400, 'validation'],
    [409, 'validation'],
    [422, 'validation'],
    [500, 'other'],
  ])('%i is %s, and the token never shows', (status, kind) => {
    const e = answerError(
      'create merge request',
      status,
      headers({}),
      { message: 'token glpat-secret-1 refused' },
      ['glpat-secret-1'],
      NOW,
    );
    expect(e.kind).toBe(kind);
    expect(e.message).toContain('create merge request');
    expect(e.message).not.toContain('glpat-secret-1');
  });

  it("names GitLab's field errors", () => {
    const e = answerError(
      'create merge request',
      400,
      headers({}),
      { message: { title: ['is too long (maximum is 255 characters)'] } },
      [],
      NOW,
    );
    expect(e.message).toBe('create merge request: 400 {"title":["is too long (maximum is 255 characters)"]}');
  });
});

describe('parseGitLabProject', () => {
  it.each([
    ['a numeric id', '42', undefined, 42],
    ['a full path', 'acme/platform/gitops', undefined, 'acme/platform/gitops'],
    [
      'the path of an https remote',
      undefined,
      'https://gitlab.example.com/acme/platform/gitops.git',
      'acme/platform/gitops',
    ],
    [
      'the path of an https remote with credentials and port',
      undefined,
      'https://oauth2:t@gitlab.example.com:8443/acme/gitops',
      'acme/gitops',
    ],
    [
      'the path of an scp-like ssh remote',
      undefined,
      'git@gitlab.example.com:acme/gitops.git',
      'acme/gitops',
    ],
    [
      'the path of an ssh:// remote',
      undefined,
      'ssh://git@gitlab.example.com:2222/acme/gitops.git',
      'acme/gitops',
    ],
    ['a file remote names none', undefined, 'file:///srv/gitops.git', null],
    ['a bare name is no project', 'gitops', undefined, null],
  ])('%s', (_name, project, url, expected) => {
    expect(parseGitLabProject(project, url)).toEqual(expected);
  });
});

describe('parseGiteaRepo and originOf', () => {
  it('takes OWNER/NAME given or from the remote, and the web origin without credentials', () => {
    expect(parseGiteaRepo('acme/gitops', undefined)).toEqual({ owner: 'acme', repo: 'gitops' });
    expect(parseGiteaRepo(undefined, 'https://codeberg.org/acme/gitops.git')).toEqual({
      owner: 'acme',
      repo: 'gitops',
    });
    expect(parseGiteaRepo(undefined, '/srv/gitops.git')).toBeNull();
    expect(originOf('https://user:token@git.example.com:3000/acme/gitops.git')).toBe(
      'https://git.example.com:3000',
    );
    expect(originOf('git@git.example.com:acme/gitops.git')).toBeNull();
  });
});

describe('fitLabel', () => {
  it.each([
    ['a label that fits', 'gpuops/placement', 'gpuops/placement', false],
    ['a comma (GitLab splits labels on it)', 'team,ml', 'team ml', true],
    ['255 characters', 'x'.repeat(255), 'x'.repeat(255), false],
    ['256 characters', 'x'.repeat(256), `${'x'.repeat(254)}…`, true],
  ])('%s', (_name, label, expected, noted) => {
    const r = fitLabel(label);
    expect(r.label).toBe(expected);
    expect(r.note !== null).toBe(noted);
  });
});

describe('pullRequestRef', () => {
  it.each([
    [7, 'https://gitlab.example.com/acme/gitops/-/merge_requests/7', '!7'],
    [7, 'https://github.com/acme/gitops/pull/7', '#7'],
    [7, 'https://codeberg.org/acme/gitops/pulls/7', '#7'],
    [7, null, '#7'],
    [null, null, '(branch)'],
  ])('%s %s → %s', (number, url, expected) => {
    expect(pullRequestRef({ number, url })).toBe(expected);
  });
});
