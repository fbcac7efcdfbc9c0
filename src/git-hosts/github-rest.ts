/**
 * The pure half of the GitHub host (`github-host.ts`): the REST shapes it reads, rate-limit
 * arithmetic from GitHub's headers, which pull requests are from this repository, and the
 * OWNER/NAME of a remote URL.
 */
import { parseDesiredHash } from '../change-sets/index.js';
import type { PullRequestInfo } from '../change-sets/index.js';

/** The fields of a pull request gpuops reads (octokit's typed responses carry more). */
export interface RestPull {
  number: number;
  html_url: string;
  state: string;
  merged_at?: string | null;
  title: string;
  body?: string | null;
  head: { ref: string; repo?: { full_name?: string } | null };
  base: { ref: string; repo?: { full_name?: string } | null };
  labels: ({ name?: string } | string)[];
}

/**
 * What gpuops reads of an error Octokit throws (`RequestError`): the HTTP status, its message, and
 * the response's headers (`retry-after`, `x-ratelimit-remaining`) and body. Every field may be
 * absent (a network error has no response).
 */
export interface ErrorLike {
  status?: number;
  message?: string;
  response?: { headers?: Record<string, string | number | undefined>; data?: unknown };
}

/**
 * A GitHub pull request (REST `GET /repos/{owner}/{repo}/pulls/{n}`) as gpuops reads it: `merged`
 * when closed with `merged_at`, the labels by name, and the desired-state hash its body carries
 * (null when the body has none).
 */
export function toInfo(pr: RestPull): PullRequestInfo {
  return {
    number: pr.number,
    url: pr.html_url,
    head: pr.head.ref,
    base: pr.base.ref,
    state: pr.state === 'open' ? 'open' : pr.merged_at ? 'merged' : 'closed',
    title: pr.title,
    body: pr.body ?? '',
    labels: pr.labels.map((l) => (typeof l === 'string' ? l : (l.name ?? ''))).filter(Boolean),
    desiredHash: parseDesiredHash(pr.body ?? null),
  };
}

/** Response header `name` (lower case, as Octokit gives them) of `e` as text; undefined when absent. */
export function header(e: ErrorLike, name: string): string | undefined {
  const v = e.response?.headers?.[name];
  return v === undefined ? undefined : String(v);
}

/**
 * Seconds of `retry-after` of a 429 that neither the throttling plugin's primary nor its secondary
 * limit handles, else null (not such a 429, or no number in the header).
 */
export function plainRetryAfterSeconds(e: ErrorLike): number | null {
  if (e?.status !== 429) return null;
  if (/secondary rate/i.test(e.message ?? '') || header(e, 'x-ratelimit-remaining') === '0') return null;
  const seconds = Number(header(e, 'retry-after'));
  return Number.isFinite(seconds) ? seconds : null;
}

/**
 * Whether GitHub refused `e` for a rate limit (GitHub REST docs, "Rate limits for the REST API"):
 * a 429, or a 403 whose message names a (secondary) rate limit or with
 * `x-ratelimit-remaining: 0`.
 */
export function isRateLimited(e: ErrorLike): boolean {
  return (
    e.status === 429 ||
    (e.status === 403 &&
      (/secondary rate|rate limit/i.test(e.message ?? '') || header(e, 'x-ratelimit-remaining') === '0'))
  );
}

/** `HH:MM:SS` of a time in UTC. */
export function utcClock(at: Date): string {
  return at.toISOString().slice(11, 19);
}

/**
 * When a rate limit of this error ends: `x-ratelimit-reset` (epoch seconds) when the primary
 * limit is used up, else `now + retry-after`, else (secondary limit without a header) now + 60 s.
 */
export function rateLimitResetAt(e: ErrorLike, now: Date): Date {
  const reset = Number(header(e, 'x-ratelimit-reset'));
  if (header(e, 'x-ratelimit-remaining') === '0' && Number.isFinite(reset) && reset > 0)
    return new Date(reset * 1000);
  const after = Number(header(e, 'retry-after'));
  return new Date(now.getTime() + (Number.isFinite(after) && after > 0 ? after : 60) * 1000);
}

/**
 * Whether a pull request's head branch is in the repository it targets (not a fork's). GitHub
 * always sends `head.repo` (null when the fork was deleted: not this repository); an answer that
 * names neither repository (a minimal stand-in of the API) leaves only the `owner:branch` query,
 * and is taken as this repository's.
 */
export function fromThisRepo(p: {
  head: { repo?: { full_name?: string } | null };
  base: { repo?: { full_name?: string } | null };
}): boolean {
  if (p.head.repo === undefined && p.base.repo === undefined) return true;
  const head = p.head.repo?.full_name;
  return head !== undefined && head.toLowerCase() === (p.base.repo?.full_name ?? '').toLowerCase();
}

/** `OWNER/NAME` from `--github-repo`, or from an https/ssh GitHub remote URL. Null when neither tells. */
export function parseGitHubRepo(
  githubRepo: string | undefined,
  repoUrl: string | undefined,
): { owner: string; repo: string } | null {
  const src = githubRepo ?? '';
  let m = /^([\w.-]+)\/([\w.-]+)$/.exec(src);
  if (!m && repoUrl && /^(https?:\/\/|ssh:\/\/|[\w.-]+@[\w.-]+:)/.test(repoUrl)) {
    m = /[/:]([\w.-]+)\/([\w.-]+?)(?:\.git)?\/?$/.exec(repoUrl);
  }
  return m ? { owner: m[1]!, repo: m[2]! } : null;
}
