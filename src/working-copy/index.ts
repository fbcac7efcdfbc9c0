/**
 * The working copy: gpuops's clone of the GitOps repository. It takes the clone-cache lock, reads
 * the specs and the files on each branch, writes a change set as a commit on its branch, pushes
 * with a lease, and keeps the ledger of the commits gpuops pushed (a commit is gpuops's by its id,
 * never by its author). Git's failures are classified here (`GitOpsError`) and their text redacted,
 * so every room above reports them the same way. The pure helpers (git errors, remote URLs, lock
 * holders, unreadable specs) are under the purity lint file by file.
 */
export { branchFileList, containedInBase, recordedClosure } from './branch-owner.js';
export { releaseCloneLocksNow, withCloneLock, type CloneLockOptions } from './clone-lock.js';
export { memoryLedger, storeLedger, type CommitLedger } from './commit-ledger.js';
export {
  classifyGitError,
  GIT_ERROR_RULES,
  GitOpsError,
  parsePushPorcelain,
  redact,
  type GitErrorKind,
  type GitErrorRule,
  type PushRefResult,
} from './git-errors.js';
export { localRemoteHeads } from './local-remote-heads.js';
export { formatHolder } from './lock-holder.js';
export { splitRemoteUrl, type SplitRemoteUrl } from './remote-url.js';
export {
  isLfsPointer,
  notRead,
  separateUnreadable,
  unreadableErrors,
  withUnreadable,
  type Gitlink,
  type UnreadableSpec,
} from './unreadable-specs.js';
export {
  commitMessage,
  DEFAULT_AUTHOR,
  WorkingCopy,
  type ApplyItem,
  type ApplyResult,
  type CommitSpec,
  type GitAuthor,
  type WorkingCopyCounters,
  type WorkingCopyOptions,
} from './working-copy.js';
