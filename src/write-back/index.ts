/**
 * The write-back: change sets become pull requests (or, in patch mode, patches and one commit).
 * It applies each change set on its branch through the working copy, ensures the pull request on
 * the host, records what it did, comments on a branch that holds a person's commits, posts spec
 * errors on the pull requests they hold up, closes a scale-down the load no longer wants, and
 * remembers a push the remote refuses for good (a protected branch, a declining hook) instead of
 * retrying it every pass. Refusals and failure reasons are pure (under the purity lint by file).
 */
export { closeSupersededScalePullRequests, type CloseSupersededDeps } from './close-superseded.js';
export { reportInvalidSpecs, specErrorsComment } from './spec-errors.js';
export {
  personCommitsComment,
  writeBack,
  type WorkingCopyPort,
  type WriteBackDeps,
  type WriteBackLimits,
} from './write-back.js';
export {
  nextRefusals,
  permanentRefusal,
  pullRequestRefusals,
  REFUSAL_RECHECK_SECONDS,
  REFUSAL_RULES,
  refusalMessage,
  refusalOfResult,
  sameRefusals,
  standingRefusal,
  type RefusalReason,
  type RefusalRule,
} from './write-refusal.js';
export { writeFailure } from './write-back-reason.js';
