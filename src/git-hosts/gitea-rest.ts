/**
 * The pure half of the Gitea/Forgejo host (`gitea-host.ts`): the pull-request fields gpuops reads
 * (Gitea's API v1, which Forgejo keeps: `/api/v1/repos/{owner}/{repo}/pulls`), the mapping to
 * `PullRequestInfo`, the limits, and the repository of a remote URL.
 *
 * Where Gitea differs from GitHub, and so from the GitHub host: the API root is `/api/v1`, the
 * token travels as `Authorization: token …`, pull-request lists have no `head` filter, pages are
 * `page` / `limit` (at most `MAX_RESPONSE_ITEMS`, 50 by default) with the total in `X-Total-Count`,
 * labels are added by id and must exist first (no label is created on the fly), an existing open
 * pull request of the same branches is `409 Conflict`, and an edit answers `201`. A title over 255
 * characters is `422` (`binding:"MaxSize(255)"`); Gitea documents no limit on a body or a comment.
 */
import { parseDesiredHash } from '../change-sets/index.js';
import type { PullRequestInfo } from '../change-sets/index.js';

/** Gitea's and Forgejo's longest pull-request title, characters. */
export const GITEA_TITLE_MAX = 255;
/** Items per page gpuops asks for: Gitea's default `MAX_RESPONSE_ITEMS` (a larger `limit` is cut to it). */
export const GITEA_PAGE_SIZE = 50;

/** The fields of a pull request gpuops reads. */
export interface RestGiteaPull {
  number: number;
  html_url: string;
  state: string;
  merged?: boolean;
  title: string;
  body?: string | null;
  head: { ref: string; repo?: { full_name?: string } | null };
  base: { ref: string; repo?: { full_name?: string } | null };
  labels?: { id: number; name: string }[] | null;
}

/** A Gitea pull request as gpuops's `PullRequestInfo`. */
export function giteaPullInfo(p: RestGiteaPull): PullRequestInfo {
  return {
    number: p.number,
    url: p.html_url,
    head: p.head.ref,
    base: p.base.ref,
    state: p.state === 'open' ? 'open' : p.merged ? 'merged' : 'closed',
    title: p.title,
    body: p.body ?? '',
    labels: (p.labels ?? []).map((l) => l.name),
    desiredHash: parseDesiredHash(p.body ?? null),
  };
}

/** Whether a pull request's head branch is in the repository it targets (not a fork's, not a deleted one's). */
export function giteaFromThisRepo(p: Pick<RestGiteaPull, 'head' | 'base'>): boolean {
  const head = p.head.repo?.full_name;
  return head !== undefined && head.toLowerCase() === (p.base.repo?.full_name ?? '').toLowerCase();
}

/**
 * `OWNER/NAME` from `--gitea-repo`, or from an https/ssh remote URL; null when neither tells.
 * The API base is `--gitea-url`, or the remote's scheme and host (`https://git.example.com`).
 */
export function parseGiteaRepo(
  giteaRepo: string | undefined,
  repoUrl: string | undefined,
): { owner: string; repo: string } | null {
  let m = /^([\w.-]+)\/([\w.-]+)$/.exec(giteaRepo ?? '');
  if (!m && repoUrl && /^(https?:\/\/|ssh:\/\/|[\w.-]+@[\w.-]+:)/.test(repoUrl))
    m = /[/:]([\w.-]+)\/([\w.-]+?)(?:\.git)?\/?$/.exec(repoUrl);
  return m ? { owner: m[1]!, repo: m[2]! } : null;
}

/** The web origin of an https remote URL (`https://git.example.com[:port]`), or null. */
export function originOf(repoUrl: string | undefined): string | null {
  const m = /^(https?:\/\/)(?:[^@/]*@)?([^/]+)/.exec(repoUrl ?? '');
  return m ? `${m[1]}${m[2]}` : null;
}
