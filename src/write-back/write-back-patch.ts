/**
 * Write-back in patch mode: one commit per change set on the base branch, all pushed at once; no
 * pull requests, no limits. One failing change set never stops the others.
 */
import type { AddResult } from './write-back-result.js';
import { writeFailure } from './write-back-reason.js';
import type { WorkingCopyPort } from './write-back-types.js';
import type { ChangeSet } from '../change-sets/index.js';

/**
 * Commits `grouped` to the base branch (`committed`, `would-commit` with dry-run, `unchanged`
 * when the base holds the files already, `failed` with the reason) and adds one result per change
 * set through `result`.
 */
export async function writePatches(
  grouped: readonly ChangeSet[],
  wc: WorkingCopyPort,
  dryRun: boolean,
  result: AddResult,
): Promise<void> {
  const base = wc.baseBranch;
  const outcomes = await wc.applyAll(
    grouped.map((changeSet) => ({ changeSet })),
    { mode: 'patch', dryRun },
  );
  grouped.forEach((cs, k) => {
    const o = outcomes[k]!;
    if (o instanceof Error) {
      result(cs, { action: 'failed', ...writeFailure(o), branch: base });
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
}
