/** Git write-back: working copy, PR hosts, PR bodies, change sets and the orchestrator. */
export { branchName, branchPrefix, MAX_BRANCH_LENGTH } from './branch-name.js';
export {
  buildChangeSet,
  groupChangeSets,
  planFiles,
  type ChangeSetInput,
  type ChangeSetConflict,
} from './change-set.js';
export { GitOpsError, classifyGitError, redact, type GitErrorKind } from './git-errors.js';
export { GitHubHost, parseGitHubRepo, type GitHubHostOptions, type RateLimitWait } from './github-host.js';
export { GitPullRequestHost, type GitHostOptions } from './git-host.js';
export { openGitOps, type GitOpsSettings } from './open.js';
export * from './pr-body.js';
export * from './pr-host.js';
export type * from './types.js';
export { WorkingCopy, DEFAULT_AUTHOR, type GitAuthor, type WorkingCopyOptions } from './working-copy.js';
export {
  writeBack,
  personCommitsComment,
  type WriteBackDeps,
  type WriteBackLimits,
  type WorkingCopyPort,
} from './write-back.js';
export { reportInvalidSpecs, specErrorsComment } from './spec-errors.js';
