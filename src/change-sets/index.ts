/**
 * Change sets and the words of a pull request (pure): which files one subject wants on its branch
 * (`pools`, `placement/<name>`, `scale/<name>`), the branch it goes on, and the title, body,
 * sections and comments that tell a reviewer why. Data in, text out; no git, network, disk, clock
 * or environment (the purity lint holds the whole folder to it). The working copy, the Git hosts
 * and the write-back (`working-copy/`, `git-hosts/`, `write-back/`) take what is made here.
 */
export { branchName, branchPrefix, MAX_BRANCH_LENGTH } from './branch-name.js';
export {
  buildChangeSet,
  groupChangeSets,
  planFiles,
  type ChangeSetConflict,
  type ChangeSetInput,
} from './change-set.js';
export { createdObjects, type CreatedObject } from './created-objects.js';
export { fitText, fitTitle, GITHUB_BODY_MAX, GITHUB_TITLE_MAX } from './host-limits.js';
export { personChangesSection, personCommitsComment, withPersonChanges } from './person-commits-comment.js';
export {
  DESIRED_HASH_MARKER,
  desiredHash,
  fitPrBody,
  FULL_TEXT_AT,
  hashMarker,
  parseDesiredHash,
  renderPrBody,
  stripHashMarker,
  withHashMarker,
  type PrBodyInput,
} from './pr-body.js';
export type { PlacementEvidence, ScalingEvidence, StandbyEvidence } from './pr-evidence.js';
export { pullRequestRef } from './pr-ref.js';
export { placementSection } from './pr-sections.js';
export { inert } from './pr-text.js';
export { prTitle, titleReplicas, type TitleInput } from './pr-title.js';
export { removedMetadata, type RemovedMetadata } from './removed-metadata.js';
export { describeRemoved, removedObjects, type RemovedObject } from './removed-objects.js';
export type * from './types.js';
