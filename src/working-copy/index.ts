/**
 * The working copy: gpuops's clone of the GitOps repository. It takes the clone-cache lock, reads
 * the specs and the files on each branch, writes a change set as a commit on its branch, pushes
 * with a lease, and keeps the ledger of the commits gpuops pushed (a commit is gpuops's by its id,
 * never by its author). Git's failures are classified here (`GitOpsError`) and their text redacted,
 * so every room above reports them the same way. The pure helpers (git errors, remote URLs, lock
 * holders, unreadable specs) are under the purity lint file by file.
 */
// Re-exports written by scripts/faces.ts from what the other folders import (run it; do not edit the list).
export { releaseCloneLocksNow } from './clone-lock.js';
export { storeLedger } from './commit-ledger.js';
export type { CommitLedger } from './commit-ledger.js';
export { redact } from './git-errors.js';
export type { GitOpsError } from './git-errors.js';
export { splitRemoteUrl } from './remote-url.js';
export { notRead, separateUnreadable, withUnreadable } from './unreadable-specs.js';
export type { Gitlink, UnreadableSpec } from './unreadable-specs.js';
export type { GitAuthor } from './working-copy-options.js';
export { WorkingCopy } from './working-copy.js';
