/**
 * The Git hosts: where pull requests go, behind one interface (`PullRequestHost`, after Renovate's
 * `Platform`). GitHub through octokit; GitLab through gitbeaker; Gitea and Forgejo over their REST
 * API; plain git, where the branch is the pull request and its title and body are kept in the
 * Store. Each host reads first and writes only the difference, retries what the host says is worth
 * another try (rate limits, failing gateways) and reports the rest as a `PrHostError`. The
 * "ensure pull request" decision and the retry waits are pure (under the purity lint by file).
 */
// Re-exports written by scripts/faces.ts from what the other folders import (run it; do not edit the list).
export { decidePullRequest } from './ensure-pull-request.js';
export { GitPullRequestHost } from './git-host.js';
export { GiteaHost } from './gitea-host.js';
export { originOf, parseGiteaRepo } from './gitea-rest.js';
export { GitHubHost } from './github-host.js';
export { parseGitHubRepo } from './github-rest.js';
export { GitLabHost } from './gitlab-host.js';
export { parseGitLabProject } from './gitlab-rest.js';
export type { PullRequestHost } from './pr-host.js';
