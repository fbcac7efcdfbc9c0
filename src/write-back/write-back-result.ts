/**
 * The results of one write-back, collected in one list and logged as they come (a metadata-first
 * log line per result).
 */
import type { ChangeSet, GitOpsLogger, WriteBackResult } from '../change-sets/index.js';

/** What a step of write-back reports for one change set; the rest defaults from the change set. */
export type ResultFields = Partial<WriteBackResult> & Pick<WriteBackResult, 'action' | 'reason' | 'message'>;

/** Adds one result for `cs` (kind, subject, branch from the change set unless given) and returns it. */
export type AddResult = (cs: ChangeSet, r: ResultFields) => WriteBackResult;

/** A sink that appends to `results` and logs `Write-back` with branch, action and reason. */
export function resultSink(results: WriteBackResult[], log?: GitOpsLogger): AddResult {
  return (cs, r) => {
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
}
