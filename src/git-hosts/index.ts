/**
 * The Git hosts: where pull requests go, behind one interface (`PullRequestHost`, after Renovate's
 * `Platform`). GitHub through octokit; GitLab through gitbeaker; Gitea and Forgejo over their REST
 * API; plain git, where the branch is the pull request and its title and body are kept in the
 * Store. Each host reads first and writes only the difference, retries what the host says is worth
 * another try (rate limits, failing gateways) and reports the rest as a `PrHostError`. The
 * "ensure pull request" decision and the retry waits are pure (under the purity lint by file).
 */
export { decidePullRequest, type EnsureDecision } from './ensure-pull-request.js';
export { GitPullRequestHost, type GitHostOptions } from './git-host.js';
export { GiteaHost } from './gitea-host.js';
export { originOf, parseGiteaRepo } from './gitea-rest.js';
export {
  GitHubHost,
  parseGitHubRepo,
  rateLimitResetAt,
  utcClock,
  type GitHubHostOptions,
  type RateLimitWait,
} from './github-host.js';
export { fromThisRepo } from './github-rest.js';
export { GitLabHost, type GitLabHostOptions } from './gitlab-host.js';
export { fitLabel, parseGitLabProject } from './gitlab-rest.js';
export { answerError } from './host-fetch.js';
export { rateLimitEndsAt, retryAfterSeconds, retryWait } from './host-retry.js';
export {
  commentMarker,
  PrHostError,
  pullRequestLabels,
  type CommentAction,
  type EnsureAction,
  type EnsureResult,
  type PrHostErrorKind,
  type PullRequestHost,
} from './pr-host.js';
