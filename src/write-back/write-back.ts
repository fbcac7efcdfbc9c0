/**
 * Write-back: change sets → branches, commits and pull requests (or patch-mode commits), with one
 * PR per subject and the policy limits. Level-triggered: it reads the host and the branches every
 * time and writes only the difference, so a second run with the same input writes nothing. The
 * steps are files of their own: `write-back-patch.ts` (patch mode), `write-back-triage.ts`,
 * `write-back-ensure.ts` (pull-request mode), `write-back-records.ts`, `write-back-reason.ts`.
 */
import { groupChangeSets } from '../change-sets/index.js';
import type { ChangeSet, WriteBackResult } from '../change-sets/index.js';
import { ensurePullRequests } from './write-back-ensure.js';
import { writePatches } from './write-back-patch.js';
import { writeFailure } from './write-back-reason.js';
import { pullRequestRecorder } from './write-back-records.js';
import { resultSink, type AddResult } from './write-back-result.js';
import { triageByHost } from './write-back-triage.js';
import type { WriteBackDeps } from './write-back-types.js';

export { personCommitsComment } from '../change-sets/index.js';

export type { WorkingCopyPort, WriteBackDeps, WriteBackLimits } from './write-back-types.js';

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
  const wc = deps.workingCopy;
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
  const result = resultSink(results, deps.log);
  if (deps.mode === 'patch') {
    await writePatches(grouped, wc, deps.dryRun, result);
    return results;
  }
  if (!(await writePullRequests(grouped, deps, result))) return results;
  // Results in the order of the change sets (pools → placement → scale), as before.
  const order = new Map(grouped.map((cs, k) => [cs.branch, k]));
  results.sort((a, b) => (order.get(a.branch) ?? -1) - (order.get(b.branch) ?? -1));
  return results;
}

/**
 * Pull-request mode: triage by the host, one push of every branch, then the pull requests.
 * Returns false when the open pull requests cannot be listed (every change set then failed with
 * the reason, nothing written).
 */
async function writePullRequests(
  grouped: readonly ChangeSet[],
  deps: WriteBackDeps,
  result: AddResult,
): Promise<boolean> {
  const { workingCopy: wc, host, dryRun } = deps;
  const base = wc.baseBranch;
  const record = await pullRequestRecorder(deps);
  let openCount: number;
  try {
    openCount = (await host.listOpen()).length;
  } catch (err) {
    // Without the list the open-PR limit cannot be judged: every branch says why, none is written.
    for (const cs of grouped) result(cs, { action: 'failed', ...writeFailure(err) });
    return false;
  }
  // 1. Per subject, from the host alone: closed by a person, deferred by a limit, or to write.
  const toWrite = await triageByHost(grouped, { host, base, limits: deps.limits, openCount, record, result });
  // 2. Every branch at once: one commit stream, one push.
  const outcomes = await wc.applyAll(
    toWrite.map(({ cs, found }) => ({ changeSet: cs, fresh: found !== null && found.state !== 'open' })),
    { mode: 'pull-request', dryRun },
  );
  // 3. Per subject again: the pull request that goes with the branch.
  await ensurePullRequests(toWrite, outcomes, { host, base, dryRun, record, result });
  return true;
}
