/**
 * How a host writes a pull request's number (pure): GitLab calls it a merge request and writes
 * `!7`; GitHub, Gitea and Forgejo write `#7`; the plain git provider has none.
 */

/**
 * `!7` for a GitLab merge request (its web address holds `/-/merge_requests/`), `#7` for a
 * GitHub or Gitea pull request, `(branch)` with the plain git provider (no number).
 */
export function pullRequestRef(p: { number: number | null; url: string | null }): string {
  if (p.number === null) return '(branch)';
  return p.url?.includes('/-/merge_requests/') ? `!${p.number}` : `#${p.number}`;
}
