/** Git write-back: working copy, PR hosts, PR bodies, change sets and the orchestrator. */
export { branchName, branchPrefix, MAX_BRANCH_LENGTH } from '../change-sets/branch-name.js';
export {
  buildChangeSet,
  groupChangeSets,
  planFiles,
  type ChangeSetInput,
  type ChangeSetConflict,
} from '../change-sets/change-set.js';
export {
  GitOpsError,
  GIT_ERROR_RULES,
  classifyGitError,
  parsePushPorcelain,
  redact,
  type GitErrorKind,
  type GitErrorRule,
  type PushRefResult,
} from '../working-copy/git-errors.js';
export { decidePullRequest, type EnsureDecision } from '../git-hosts/ensure-pull-request.js';
export { splitRemoteUrl, type SplitRemoteUrl } from '../working-copy/remote-url.js';
export { releaseCloneLocksNow, withCloneLock, type CloneLockOptions } from '../working-copy/clone-lock.js';
export {
  GitHubHost,
  parseGitHubRepo,
  rateLimitResetAt,
  utcClock,
  type GitHubHostOptions,
  type RateLimitWait,
} from '../git-hosts/github-host.js';
export { GitPullRequestHost, type GitHostOptions } from '../git-hosts/git-host.js';
export * from '../change-sets/pr-body.js';
export * from '../git-hosts/pr-host.js';
export type * from '../change-sets/types.js';
export {
  WorkingCopy,
  DEFAULT_AUTHOR,
  commitMessage,
  type ApplyItem,
  type ApplyResult,
  type CommitSpec,
  type GitAuthor,
  type WorkingCopyCounters,
  type WorkingCopyOptions,
} from '../working-copy/working-copy.js';
export {
  writeBack,
  personCommitsComment,
  type WriteBackDeps,
  type WriteBackLimits,
  type WorkingCopyPort,
} from './write-back.js';
export { reportInvalidSpecs, specErrorsComment } from './spec-errors.js';
