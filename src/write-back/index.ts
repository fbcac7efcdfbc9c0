/**
 * The write-back: change sets become pull requests (or, in patch mode, patches and one commit).
 * It applies each change set on its branch through the working copy, ensures the pull request on
 * the host, records what it did, comments on a branch that holds a person's commits, posts spec
 * errors on the pull requests they hold up, closes a scale-down the load no longer wants, and
 * remembers a push the remote refuses for good (a protected branch, a declining hook) instead of
 * retrying it every pass. Refusals and failure reasons are pure (under the purity lint by file).
 */
// Re-exports written by scripts/faces.ts from what the other folders import (run it; do not edit the list).
export { closeSupersededScalePullRequests } from './close-superseded.js';
export { reportInvalidSpecs } from './spec-errors.js';
export type { WriteBackDeps } from './write-back-types.js';
export { writeBack } from './write-back.js';
export {
  nextRefusals,
  pullRequestRefusals,
  refusalMessage,
  refusalOfResult,
  sameRefusals,
  standingRefusal,
} from './write-refusal.js';
