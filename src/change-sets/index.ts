/**
 * Change sets and the words of a pull request (pure): which files one subject wants on its branch
 * (`pools`, `placement/<name>`, `scale/<name>`), the branch it goes on, and the title, body,
 * sections and comments that tell a reviewer why. Data in, text out; no git, network, disk, clock
 * or environment (the purity lint holds the whole folder to it). The working copy, the Git hosts
 * and the write-back (`working-copy/`, `git-hosts/`, `write-back/`) take what is made here.
 */
// Re-exports written by scripts/faces.ts from what the other folders import (run it; do not edit the list).
export { branchName, branchPrefix } from './branch-name.js';
export { buildChangeSet, groupChangeSets, planFiles } from './change-set.js';
export type { ChangeSetInput } from './change-set.js';
export { createdObjects } from './created-objects.js';
export { fitText, fitTitle } from './host-limits.js';
export { personChangesSection, personCommitsComment, withPersonChanges } from './person-commits-comment.js';
export { FULL_TEXT_AT, parseDesiredHash, withHashMarker } from './pr-body.js';
export type { FillWait, StandbyEvidence } from './pr-evidence.js';
export { pullRequestRef } from './pr-ref.js';
export { inert } from './pr-text.js';
export { titleReplicas } from './pr-title.js';
export { describeRemoved, removedObjects } from './removed-objects.js';
export type { RemovedObject } from './removed-objects.js';
export type {
  ApplyOptions,
  ApplyOutcome,
  BranchFile,
  ChangeSet,
  FileChange,
  ForeignCommit,
  GitOpsLogger,
  LoggedCommit,
  PersonChanges,
  PlannedFile,
  PullRequestInfo,
  WriteBackResult,
  WriteMode,
} from './types.js';
