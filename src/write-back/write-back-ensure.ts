/**
 * Write-back in pull-request mode, step 3 (after the one push): per branch, the pull request that
 * goes with it — created, updated or unchanged, `person-commits` (one comment on its PR),
 * `in-base`, or `would-…` with dry-run — and its record in the Store.
 */
import type { ApplyOutcome } from '../change-sets/index.js';
import type { GitOpsError } from '../working-copy/index.js';
import { decidePullRequest } from '../git-hosts/index.js';
import {
  personChangesSection,
  personCommitsComment,
  withPersonChanges,
  withHashMarker,
} from '../change-sets/index.js';
import type { WriteBackDeps } from './write-back-types.js';
import { writeFailure } from './write-back-reason.js';
import type { RecordPullRequest } from './write-back-records.js';
import type { AddResult } from './write-back-result.js';
import type { ToWrite } from './write-back-triage.js';

/** What ensuring the pull requests works with: the host, the base branch, dry-run, the Store records, the results. */
export interface EnsureContext {
  host: WriteBackDeps['host'];
  base: string;
  dryRun: boolean;
  record: RecordPullRequest;
  result: AddResult;
}

/**
 * Ensures the pull request of every written branch: `outcomes[k]` is the apply outcome (or the
 * error) of `toWrite[k]`. One result per branch through `result`; a failing one never stops the
 * others.
 */
export async function ensurePullRequests(
  toWrite: readonly ToWrite[],
  outcomes: readonly (ApplyOutcome | GitOpsError)[],
  o: EnsureContext,
): Promise<void> {
  const { host, base, dryRun, record, result } = o;
  const ctx = o;
  for (const [k, t] of toWrite.entries()) {
    const { cs, found } = t;
    const o = outcomes[k]!;
    try {
      if (o instanceof Error) throw o;
      const pullRequest = found?.state === 'open' ? { number: found.number, url: found.url } : null;
      if (o.status === 'person-commits') {
        await reportPersonCommits(t, o, { ...ctx, found });
        const theirs = (o.personChanges?.files ?? []).filter((f) => f.writtenBy === 'person');
        result(cs, {
          action: 'person-commits',
          reason: 'PersonCommits',
          message:
            `${cs.branch} holds ${o.personCommits.length} commit(s) gpuops did not push; left alone` +
            (theirs.length > 0 ? `; files not gpuops's: ${theirs.map((f) => f.path).join(', ')}` : ''),
          pullRequest,
          files: (o.personChanges?.files ?? []).map(({ path, change }) => ({ path, change })),
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
        const action = dryRunAction(t, o);
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
      result(cs, { action: 'failed', ...writeFailure(err) });
    }
  }
}

/**
 * A branch holding a person's commits, on its open pull request: one comment (once per head) and
 * the body's section listing the commits, every file of the diff and the access objects of the
 * person's files (`person-commits-comment.ts`), so the PR never shows only what gpuops wrote.
 * Nothing with dry-run, or without an open PR.
 */
async function reportPersonCommits(
  { cs }: ToWrite,
  o: ApplyOutcome,
  c: EnsureContext & { found: ToWrite['found'] },
): Promise<void> {
  const { found } = c;
  if (found?.state !== 'open' || found.number === null || c.dryRun) return;
  await c.host.comment(
    found.number,
    personCommitsComment(cs.branch, c.base, o.personCommits, o.personChanges),
  );
  const section = personChangesSection(o.personCommits, o.personChanges);
  const body = withPersonChanges(cs.body, section, cs.desiredHash);
  const fullBody =
    cs.fullBody === undefined ? {} : { fullBody: withPersonChanges(cs.fullBody, section, cs.desiredHash) };
  const ensured = await c.host.ensurePullRequest({ ...cs, body, ...fullBody }, found);
  const pr = { number: ensured.number, url: ensured.url };
  await c.record(cs, {
    ...pr,
    state: 'open',
    title: cs.title,
    body: fullBody.fullBody ?? body,
    desiredHash: cs.desiredHash,
  });
}

/** With dry-run: what the host would do with the branch's pull request. */
function dryRunAction(
  { cs, found, isNew }: ToWrite,
  o: ApplyOutcome,
): 'would-create' | 'would-update' | 'unchanged' {
  if (isNew) return 'would-create';
  return o.status === 'would-push' || decidePullRequest(found, cs).action !== 'nothing'
    ? 'would-update'
    : 'unchanged';
}
