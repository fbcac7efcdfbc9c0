/**
 * The pure half of the GitLab host (`gitlab-host.ts`): the merge-request fields gpuops reads, the
 * mapping to `PullRequestInfo`, GitLab's limits and the cuts that keep a request inside them, and
 * the project of a remote URL.
 *
 * GitLab's limits (GitLab answers `400 Bad Request` with `{"message":{"<field>":["is too long
 * (maximum is N characters)"]}}` past them): a merge request's title 255 characters, its
 * description 1,048,576 (`Issuable::DESCRIPTION_LENGTH_MAX`, 1 MiB), a note 1,000,000, a label's
 * title 255 and no comma (labels travel comma-separated: `labels=a,b`).
 */
import { fitTitle, parseDesiredHash } from '../change-sets/index.js';
import type { PullRequestInfo } from '../change-sets/index.js';

/** GitLab's longest merge-request title, characters. */
export const GITLAB_TITLE_MAX = 255;
/** GitLab's longest merge-request description, characters (1 MiB). */
export const GITLAB_DESCRIPTION_MAX = 1_048_576;
/** GitLab's longest note (comment), characters. */
export const GITLAB_NOTE_MAX = 1_000_000;
/** GitLab's longest label title, characters. */
export const GITLAB_LABEL_MAX = 255;

/** The fields of a merge request gpuops reads (GitLab's answer carries many more). */
export interface RestMergeRequest {
  iid: number;
  web_url: string;
  /** `opened`, `closed`, `locked` (being merged) or `merged`. */
  state: string;
  title: string;
  description?: string | null;
  source_branch: string;
  target_branch: string;
  source_project_id: number;
  target_project_id: number;
  labels: (string | { name?: string })[];
}

/** A merge request as gpuops's `PullRequestInfo`; `locked` (a merge in progress) counts as open. */
export function mergeRequestInfo(mr: RestMergeRequest): PullRequestInfo {
  const state = mr.state === 'merged' ? 'merged' : mr.state === 'closed' ? 'closed' : 'open';
  return {
    number: mr.iid,
    url: mr.web_url,
    head: mr.source_branch,
    base: mr.target_branch,
    state,
    title: mr.title,
    body: mr.description ?? '',
    labels: mr.labels.map((l) => (typeof l === 'string' ? l : (l.name ?? ''))).filter(Boolean),
    desiredHash: parseDesiredHash(mr.description ?? null),
  };
}

/**
 * Whether a merge request's source branch is in the project it targets: one from a fork whose
 * branch is named like gpuops's is a person's, never gpuops's, and never counts toward `maxOpen`.
 */
export function fromThisProject(
  mr: Pick<RestMergeRequest, 'source_project_id' | 'target_project_id'>,
): boolean {
  return mr.source_project_id === mr.target_project_id;
}

/**
 * A label as GitLab takes it: commas (GitLab's list separator) become spaces, and a title over 255
 * characters is cut with `…`. Returns the label and, when it changed, why (for the result's warnings).
 */
export function fitLabel(label: string): { label: string; note: string | null } {
  const noComma = label.replace(/,/g, ' ');
  const fitted = fitTitle(noComma, GITLAB_LABEL_MAX);
  if (fitted === label) return { label, note: null };
  return {
    label: fitted,
    note: `label ${JSON.stringify(label.slice(0, 80))} changed to fit GitLab (no comma, at most ${GITLAB_LABEL_MAX} characters)`,
  };
}

/**
 * The project of `--gitlab-project` (a numeric id, or a full path `group/sub/name`), else the path
 * of an https/ssh remote URL (`https://gitlab.example.com/group/sub/name.git` → `group/sub/name`).
 * Null when neither tells.
 */
export function parseGitLabProject(
  project: string | undefined,
  repoUrl: string | undefined,
): string | number | null {
  const given = (project ?? '').trim();
  if (/^\d+$/.test(given)) return Number(given);
  if (/^[\w.-]+(\/[\w.-]+)+$/.test(given)) return given;
  if (!repoUrl) return null;
  const m =
    /^(?:https?|ssh):\/\/[^/]+\/(.+?)(?:\.git)?\/?$/.exec(repoUrl) ??
    /^[\w.-]+@[\w.-]+:(.+?)(?:\.git)?\/?$/.exec(repoUrl);
  const path = m?.[1]?.replace(/^\/+/, '');
  return path && /^[\w.-]+(\/[\w.-]+)+$/.test(path) ? path : null;
}
