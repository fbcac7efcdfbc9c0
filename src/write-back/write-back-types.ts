/** The shapes write-back works with (pure types): its ports, limits and dependencies. */
import type { Store } from '../store/index.js';
import type { GitOpsError } from '../working-copy/index.js';
import type { PullRequestHost } from '../git-hosts/index.js';
import type { ApplyOptions, ApplyOutcome, ChangeSet, GitOpsLogger, WriteMode } from '../change-sets/index.js';

/** The part of `WorkingCopy` write-back uses (a fake can stand in). */
export interface WorkingCopyPort {
  readonly baseBranch: string;
  /** Fetches the remote's branches (level-triggered: every pass starts from the remote's state). */
  sync(): Promise<void>;
  /**
   * Writes every change set and pushes every changed branch in one push (see
   * `WorkingCopy.applyAll`); one result per item, in order: an outcome or the error of that item.
   */
  applyAll(
    items: readonly { changeSet: ChangeSet; fresh?: boolean }[],
    options: Omit<ApplyOptions, 'fresh'>,
  ): Promise<(ApplyOutcome | GitOpsError)[]>;
}

/** Policy limits on pull requests (pull-request mode only). */
export interface WriteBackLimits {
  /** New pull requests opened in one pass. Updates of open ones are not limited. */
  maxOpenedPerPass: number;
  /** Open gpuops pull requests of the cluster at once, counting those opened in this pass. */
  maxOpen: number;
}

/** What `writeBack` works with; the CLI builds these adapters. */
export interface WriteBackDeps {
  workingCopy: WorkingCopyPort;
  host: PullRequestHost;
  store: Pick<Store, 'pullRequests' | 'upsertPullRequest'>;
  cluster: string;
  mode: WriteMode;
  /** Decide and report; commit, push, comment, create, update and record nothing. */
  dryRun: boolean;
  limits: WriteBackLimits;
  /** Clock for the records' `updatedAt`. */
  now: () => Date;
  log?: GitOpsLogger;
  /**
   * The caller synced the working copy at the start of this pass (a reconcile pass reads Git's
   * model from that sync): no second fetch before writing. Safe because every push carries a
   * lease on the head it was decided on; a ref that moved since is rejected, fetched and decided
   * again (`WorkingCopy.applyAll`), so a person's commit is still never overwritten. Default false.
   */
  syncedThisPass?: boolean;
}
