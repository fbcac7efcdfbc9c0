/**
 * Write-back: change sets → branches, commits and pull requests (or patch-mode commits), with one
 * PR per subject and the policy limits. Level-triggered: it reads the host and the branches every
 * time and writes only the difference, so a second run with the same input writes nothing.
 */
import type { PullRequestRecord, Store } from '../store/types.js';
import { GitOpsError } from './git-errors.js';
import { groupChangeSets } from './change-set.js';
import { decidePullRequest } from './ensure-pull-request.js';
import { withHashMarker } from './pr-body.js';
import { permanentRefusal } from './write-refusal.js';
import { PrHostError, type PullRequestHost } from './pr-host.js';
import type {
  ApplyOptions,
  ApplyOutcome,
  ChangeSet,
  ForeignCommit,
  GitOpsLogger,
  PullRequestInfo,
  WriteBackResult,
  WriteMode,
} from './types.js';

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

function reasonOf(err: unknown): { reason: string; message: string } {
  const message = err instanceof Error ? err.message : String(err);
  // A protected branch or a declining hook: its own reason (see write-refusal.ts).
  const permanent = permanentRefusal(err);
  if (permanent) return { reason: permanent.reason, message };
  if (err instanceof GitOpsError) {
    const reason = {
      auth: 'GitAuth',
      refused: 'GitRefused',
      transient: 'GitTransient',
      'non-fast-forward': 'GitNonFastForward',
    }[err.kind];
    return { reason, message };
  }
  if (err instanceof PrHostError) {
    const reason =
      err.kind === 'permission'
        ? 'HostPermission'
        : err.kind === 'rate-limited'
          ? 'RateLimited'
          : 'HostError';
    return { reason, message };
  }
  return { reason: 'Error', message };
}

/** The comment left on a PR whose branch a person committed to; its marker makes it post once per head. */
export function personCommitsComment(
  branch: string,
  base: string,
  commits: readonly ForeignCommit[],
): string {
  const list = commits.map((c) => `- \`${c.sha.slice(0, 12)}\` by ${c.author} <${c.email}>`).join('\n');
  return [
    `gpuops did not update \`${branch}\`: it holds commits gpuops did not author, and gpuops never force-pushes over a person's work.`,
    '',
    list,
    '',
    `Merge or close this pull request and delete the branch to let gpuops start afresh from \`${base}\`.`,
    '',
    `<!-- gpuops:person-commits=${commits[0]?.sha ?? ''} -->`,
  ].join('\n');
}

const SAME_RECORD_KEYS: (keyof PullRequestRecord)[] = [
  'kind',
  'subject',
  'title',
  'body',
  'desiredHash',
  'number',
  'url',
  'state',
];

/**
 * Writes change sets back to Git, one result per subject (after grouping), in the order pools →
 * placement → scale.
 *
 * Pull-request mode, per change set: find the subject's PR; a PR a person closed with the same
 * desired hash → `closed-by-person`; a new PR over `maxOpenedPerPass` or `maxOpen` → `deferred`
 * (nothing pushed); else apply on the branch (fresh after a merged or closed PR), then ensure the
 * PR and record it in the Store (only when the record differs). A person's commits on the branch →
 * `person-commits` and one comment on its PR. Patch mode: one commit per change set on the base
 * branch; no PRs, no limits. One failing change set never stops the others; its result says why.
 * With `dryRun` every write is skipped where it would happen and the results say `would-…`.
 */
export async function writeBack(
  changeSets: readonly ChangeSet[],
  deps: WriteBackDeps,
): Promise<WriteBackResult[]> {
  const { workingCopy: wc, host, dryRun, log } = deps;
  const base = wc.baseBranch;
  // Nothing to write: no fetch either (a pass with nothing changed stays read-only and cheap).
  if (changeSets.length === 0) return [];
  if (!deps.syncedThisPass) await wc.sync();
  const { changeSets: grouped, conflicts } = groupChangeSets(changeSets);
  const results: WriteBackResult[] = conflicts.map((c) => ({
    kind: c.kind,
    subject: c.subject,
    branch: c.branch,
    action: 'failed',
    reason: 'ConflictingChangeSets',
    message: c.message,
    commit: null,
    pullRequest: null,
    files: [],
  }));
  const result = (
    cs: ChangeSet,
    r: Partial<WriteBackResult> & Pick<WriteBackResult, 'action' | 'reason' | 'message'>,
  ) => {
    const full: WriteBackResult = {
      kind: cs.kind,
      subject: cs.subject,
      branch: cs.branch,
      commit: null,
      pullRequest: null,
      files: [],
      ...r,
    };
    results.push(full);
    log?.info({ branch: full.branch, action: full.action, reason: full.reason }, 'Write-back');
    return full;
  };

  if (deps.mode === 'patch') {
    const outcomes = await wc.applyAll(
      grouped.map((changeSet) => ({ changeSet })),
      { mode: 'patch', dryRun },
    );
    grouped.forEach((cs, k) => {
      const o = outcomes[k]!;
      if (o instanceof Error) {
        result(cs, { action: 'failed', ...reasonOf(o), branch: base });
      } else if (o.status === 'pushed') {
        result(cs, {
          action: 'committed',
          reason: 'Committed',
          message: `committed ${o.commit?.slice(0, 12)} to ${base}`,
          commit: o.commit,
          files: o.files,
          branch: base,
        });
      } else if (o.status === 'would-push') {
        result(cs, {
          action: 'would-commit',
          reason: 'DryRun',
          message: `would commit ${o.files.length} file(s) to ${base}`,
          files: o.files,
          branch: base,
        });
      } else {
        result(cs, {
          action: 'unchanged',
          reason: 'UpToDate',
          message: `${base} already holds the desired files`,
          files: o.files,
          branch: base,
        });
      }
    });
    return results;
  }

  const records = new Map((await deps.store.pullRequests(deps.cluster)).map((r) => [r.branch, r]));
  const record = async (
    cs: ChangeSet,
    pr: Pick<PullRequestRecord, 'number' | 'url' | 'state' | 'title' | 'body' | 'desiredHash'>,
  ) => {
    // The plain git host keeps its records in the Store itself.
    if (dryRun || host.recordsPullRequests) return;
    const next: PullRequestRecord = {
      cluster: deps.cluster,
      branch: cs.branch,
      kind: cs.kind,
      subject: cs.subject,
      ...pr,
      updatedAt: deps.now().toISOString(),
    };
    const prev = records.get(cs.branch);
    if (prev && SAME_RECORD_KEYS.every((k) => prev[k] === next[k])) return;
    await deps.store.upsertPullRequest(next);
    records.set(cs.branch, next);
  };

  let openCount: number;
  try {
    openCount = (await host.listOpen()).length;
  } catch (err) {
    // Without the list the open-PR limit cannot be judged: every branch says why, none is written.
    for (const cs of grouped) result(cs, { action: 'failed', ...reasonOf(err) });
    return results;
  }

  // 1. Per subject, from the host alone: left closed by a person, deferred by a limit, or to write.
  let opened = 0;
  const toWrite: { cs: ChangeSet; found: PullRequestInfo | null; isNew: boolean }[] = [];
  for (const cs of grouped) {
    try {
      const found: PullRequestInfo | null = await host.findPullRequest(cs.branch, base);
      if (found && decidePullRequest(found, cs).action === 'closed-by-person') {
        const { number, url, title, body } = found;
        await record(cs, { number, url, title, body, state: 'closed', desiredHash: cs.desiredHash });
        result(cs, {
          action: 'closed-by-person',
          reason: 'ClosedByPerson',
          message: `pull request ${found.number ?? cs.branch} was closed without merging; not reopened until the desired state changes`,
          pullRequest: { number: found.number, url: found.url },
        });
        continue;
      }
      const isNew = found?.state !== 'open';
      if (isNew && opened >= deps.limits.maxOpenedPerPass) {
        result(cs, {
          action: 'deferred',
          reason: 'MaxOpenedPerPass',
          message: `already opened ${opened} pull request(s) this pass (limit ${deps.limits.maxOpenedPerPass})`,
        });
        continue;
      }
      if (isNew && openCount >= deps.limits.maxOpen) {
        result(cs, {
          action: 'deferred',
          reason: 'MaxOpen',
          message: `${openCount} gpuops pull request(s) open (limit ${deps.limits.maxOpen})`,
        });
        continue;
      }
      // A new PR takes its place under the limits now (before the push that makes it): a branch
      // that then turns out to need no PR still counts for this pass, never the other way round.
      if (isNew) {
        opened++;
        openCount++;
      }
      toWrite.push({ cs, found, isNew });
    } catch (err) {
      result(cs, { action: 'failed', ...reasonOf(err) });
    }
  }

  // 2. Every branch at once: one commit stream, one push.
  const outcomes = await wc.applyAll(
    toWrite.map(({ cs, found }) => ({ changeSet: cs, fresh: found !== null && found.state !== 'open' })),
    { mode: 'pull-request', dryRun },
  );

  // 3. Per subject again: the pull request that goes with the branch.
  for (const [k, { cs, found, isNew }] of toWrite.entries()) {
    const o = outcomes[k]!;
    try {
      if (o instanceof Error) throw o;
      const pullRequest = found?.state === 'open' ? { number: found.number, url: found.url } : null;
      if (o.status === 'person-commits') {
        if (found?.state === 'open' && found.number !== null && !dryRun) {
          await host.comment(found.number, personCommitsComment(cs.branch, base, o.personCommits));
        }
        result(cs, {
          action: 'person-commits',
          reason: 'PersonCommits',
          message: `${cs.branch} holds ${o.personCommits.length} commit(s) gpuops did not author; left alone`,
          pullRequest,
        });
        continue;
      }
      if (o.status === 'in-base') {
        result(cs, {
          action: 'in-base',
          reason: 'AlreadyInBase',
          message: `${base} already holds the desired files`,
          pullRequest,
        });
        continue;
      }
      if (dryRun) {
        const differs = decidePullRequest(found, cs).action !== 'nothing';
        const action = isNew
          ? 'would-create'
          : o.status === 'would-push' || differs
            ? 'would-update'
            : 'unchanged';
        result(cs, {
          action,
          reason: action === 'unchanged' ? 'UpToDate' : 'DryRun',
          message: `${action} ${cs.branch}`,
          files: o.files,
          pullRequest,
        });
        continue;
      }
      const ensured = await host.ensurePullRequest(cs, found);
      const pr = { number: ensured.number, url: ensured.url };
      if (ensured.action !== 'closed-by-person') {
        // The whole body: the host's may be cut to its limit; `gpuops prs show` reads this one.
        const body = withHashMarker(cs.fullBody ?? cs.body, cs.desiredHash);
        await record(cs, { ...pr, state: 'open', title: cs.title, body, desiredHash: cs.desiredHash });
      }
      const action = ensured.action === 'unchanged' && o.status === 'pushed' ? 'updated' : ensured.action;
      const reason = {
        created: 'Created',
        updated: 'Updated',
        unchanged: 'UpToDate',
        'closed-by-person': 'ClosedByPerson',
      }[action];
      result(cs, {
        action,
        reason,
        message:
          o.status === 'pushed'
            ? `pushed ${o.commit?.slice(0, 12)} to ${cs.branch}${o.startedAfresh ? ` (started afresh from ${base})` : ''}; pull request ${action}`
            : `${cs.branch} already holds the desired files; pull request ${action}`,
        commit: o.commit,
        pullRequest: pr,
        files: o.files,
        ...(ensured.warnings ? { warnings: ensured.warnings } : {}),
      });
    } catch (err) {
      result(cs, { action: 'failed', ...reasonOf(err) });
    }
  }
  // Results in the order of the change sets (pools → placement → scale), as before.
  const order = new Map(grouped.map((cs, k) => [cs.branch, k]));
  results.sort((a, b) => (order.get(a.branch) ?? -1) - (order.get(b.branch) ?? -1));
  return results;
}
