/**
 * Write-back in pull-request mode, step 1 (from the host alone, before anything is pushed): per
 * change set, a pull request a person closed stays closed, a new one over a limit is deferred,
 * and the others are to be written.
 */
import { decidePullRequest } from '../git-hosts/index.js';
import type { ChangeSet, PullRequestInfo } from '../change-sets/index.js';
import type { WriteBackLimits, WriteBackDeps } from './write-back-types.js';
import { writeFailure } from './write-back-reason.js';
import type { RecordPullRequest } from './write-back-records.js';
import type { AddResult } from './write-back-result.js';

/** A change set to write on its branch, with the PR the host has for it (or null) and whether a new PR will be needed. */
export interface ToWrite {
  cs: ChangeSet;
  found: PullRequestInfo | null;
  isNew: boolean;
}

/**
 * Sorts `grouped` by what the host says: `closed-by-person` (recorded, not written), `deferred`
 * (`MaxOpenedPerPass` over `limits.maxOpenedPerPass` new PRs this pass, `MaxOpen` at
 * `limits.maxOpen` open PRs counting `openCount` and this pass's), `failed` when the host cannot
 * be asked; returns the rest, in order. A new PR takes its place under the limits before its push.
 */
export async function triageByHost(
  grouped: readonly ChangeSet[],
  o: {
    host: WriteBackDeps['host'];
    base: string;
    limits: WriteBackLimits;
    openCount: number;
    record: RecordPullRequest;
    result: AddResult;
  },
): Promise<ToWrite[]> {
  const { host, base, record, result } = o;
  let openCount = o.openCount;
  let opened = 0;
  const toWrite: ToWrite[] = [];
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
      if (isNew && opened >= o.limits.maxOpenedPerPass) {
        result(cs, {
          action: 'deferred',
          reason: 'MaxOpenedPerPass',
          message: `already opened ${opened} pull request(s) this pass (limit ${o.limits.maxOpenedPerPass})`,
        });
        continue;
      }
      if (isNew && openCount >= o.limits.maxOpen) {
        result(cs, {
          action: 'deferred',
          reason: 'MaxOpen',
          message: `${openCount} gpuops pull request(s) open (limit ${o.limits.maxOpen})`,
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
      result(cs, { action: 'failed', ...writeFailure(err) });
    }
  }
  return toWrite;
}
