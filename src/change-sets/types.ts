import type { FileChange } from '../manifests/index.js';
import type { CreatedObject } from './created-objects.js';

export type { FileChange };

/** Subjects get one branch and one pull request each. */
export type ChangeKind = 'pools' | 'placement' | 'scale' | 'standby';

/**
 * Everything one pull request (or one patch-mode commit) carries. `desiredHash` is a hash of
 * the desired state; it goes into the PR body as a hidden marker so gpuops can tell whether a PR
 * is current.
 */
export interface ChangeSet {
  kind: ChangeKind;
  /** `pools`, the algorithm name, or the standby set's name. */
  subject: string;
  /** `gpuops/<cluster>/<kind>/<subject>` (pools: `gpuops/<cluster>/pools`). */
  branch: string;
  title: string;
  /**
   * Markdown, with the evidence tables and the desired-hash marker; at most 65,536 characters
   * (GitHub's limit), its tables cut to their first rows when the whole text is longer.
   */
  body: string;
  /** The whole body when `body` was cut: what gpuops records (`gpuops prs show`). Absent otherwise. */
  fullBody?: string;
  files: FileChange[];
  desiredHash: string;
  /** Extra labels for the pull request (the host adds `gpuops` and `gpuops/<kind>`). */
  labels?: string[];
}

/** A commit of the remote's history as `git log` printed it. */
export interface LoggedCommit {
  sha: string;
  parents: string[];
  author: string;
  email: string;
}

/** One `files[]` entry of `plan`. */
export interface PlannedFile {
  path: string;
  change: 'create' | 'update' | 'delete';
}

/** One file of a pull request's diff, and whether it is what gpuops wants there (`branch-owner.ts`). */
export interface BranchFile extends PlannedFile {
  /** `gpuops`: the change set writes this path with this content; `person`: anything else. */
  writtenBy: 'gpuops' | 'person';
}

/**
 * What a branch holding a person's commits carries, read from its diff (merge base → head): every
 * file, and the access objects (Namespaces, bindings) the person's files create or change.
 */
export interface PersonChanges {
  files: BranchFile[];
  grants: CreatedObject[];
}

/** A pull request as a host reports it (`number`/`url` null with the plain git provider). */
export interface PullRequestInfo {
  number: number | null;
  url: string | null;
  /** Head branch name (no `owner:` prefix). */
  head: string;
  base: string;
  state: 'open' | 'closed' | 'merged';
  title: string;
  body: string;
  labels: string[];
  /** From the body's hidden `<!-- gpuops:desired-hash=… -->` marker; null without one. */
  desiredHash: string | null;
}

/**
 * What write-back did (or, with dry-run, would do) for one change set:
 * - `created` / `updated` / `unchanged`: the pull request (or plain-git branch record) after the pass;
 * - `committed`: patch mode pushed a commit to the base branch;
 * - `closed-by-person`: a person closed the PR without merging and the desired state is the same;
 * - `deferred`: over `maxOpenedPerPass` or `maxOpen`; tried again next pass;
 * - `person-commits`: a person added commits to the gpuops branch; left alone, said so on the PR;
 * - `in-base`: the base branch already holds the desired files; nothing to propose;
 * - `failed`: a git or host error; `reason` and `message` say which (`ProtectedBranch` /
 *   `PushDeclined`: the remote refuses the write permanently, see `write-refusal.ts`);
 * - `stalled`: an earlier pass's permanent refusal still stands; nothing written or patched;
 * - `would-create` / `would-update` / `would-commit`: dry-run.
 */
export type WriteBackAction =
  | 'created'
  | 'updated'
  | 'unchanged'
  | 'committed'
  | 'closed-by-person'
  | 'deferred'
  | 'person-commits'
  | 'in-base'
  | 'failed'
  | 'stalled'
  | 'would-create'
  | 'would-update'
  | 'would-commit';

/** One result of `writeBack`, with a machine reason and a human message. */
export interface WriteBackResult {
  kind: ChangeKind;
  subject: string;
  branch: string;
  action: WriteBackAction;
  /** `Created`, `Updated`, `UpToDate`, `Committed`, `ClosedByPerson`, `MaxOpenedPerPass`, `MaxOpen`, `PersonCommits`, `AlreadyInBase`, `DryRun`, `GitAuth`, `GitRefused`, `GitTransient`, `GitNonFastForward`, `ProtectedBranch`, `PushDeclined`, `HostPermission`, `RateLimited` (message `RateLimited until HH:MM:SS UTC …`), `HostError`, `ConflictingChangeSets`. */
  reason: string;
  message: string;
  /** Commit pushed in this pass, else null. */
  commit: string | null;
  pullRequest: { number: number | null; url: string | null } | null;
  /** Files that differ from the branch's start point (the plan). */
  files: PlannedFile[];
  /** What went wrong beside the change without failing it (labels the host refused); absent when none. */
  warnings?: string[];
}

/** How a change set is written: a branch and pull request each, or commits straight to the base branch. */
export type WriteMode = 'pull-request' | 'patch';

/** Options of one `WorkingCopy.apply`. */
export interface ApplyOptions {
  mode: WriteMode;
  /**
   * Start the branch afresh from the base branch (the PR host says the branch's last PR was
   * merged or closed). Existing commits are replaced only when every one is gpuops's.
   */
  fresh?: boolean;
  /** Decide and report, but commit and push nothing. */
  dryRun?: boolean;
}

/**
 * A commit on a gpuops branch that gpuops did not push, and that the base branch does not hold by
 * content; author and e-mail as the commit states them (anyone can type them).
 */
export interface ForeignCommit {
  sha: string;
  author: string;
  email: string;
}

/**
 * What `WorkingCopy.apply` did:
 * - `pushed`: a commit was pushed to `ref` (the gpuops branch, or the base branch in patch mode);
 * - `unchanged`: the ref already holds the desired files; no commit, no push;
 * - `in-base`: the base branch already holds them; there is nothing to propose;
 * - `person-commits`: someone else committed to the gpuops branch; left alone;
 * - `would-push`: dry-run; a commit would be pushed.
 */
export interface ApplyOutcome {
  status: 'pushed' | 'unchanged' | 'in-base' | 'person-commits' | 'would-push';
  /** Branch written (or that would be): the gpuops branch, or the base branch in patch mode. */
  ref: string;
  /** The commit pushed, else null. */
  commit: string | null;
  /** Push attempts made (0 when nothing was pushed). */
  attempts: number;
  /** The branch was (or would be) rebuilt from the base branch head. */
  startedAfresh: boolean;
  /** The push replaced commits (always with a lease on the commit gpuops saw). */
  forced: boolean;
  /** Files that differ from the start point. */
  files: PlannedFile[];
  /** Set with `person-commits`. */
  personCommits: ForeignCommit[];
  /** With `person-commits`: what the branch's diff carries (absent when it could not be read). */
  personChanges?: PersonChanges;
}

/** The logger gitops modules accept (pino-compatible: metadata first, then a static message). */
export interface GitOpsLogger {
  info(obj: Record<string, unknown>, msg: string): void;
  warn(obj: Record<string, unknown>, msg: string): void;
}
