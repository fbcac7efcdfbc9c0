/**
 * The Store's records of a cluster's pull requests during one write-back: read once, written only
 * when a record differs (so a pass that changes nothing writes nothing to the database).
 */
import type { PullRequestRecord } from '../store/index.js';
import type { ChangeSet } from '../change-sets/index.js';
import type { WriteBackDeps } from './write-back-types.js';

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

/** Records the pull request of one change set (no-op with dry-run or a host that records itself). */
export type RecordPullRequest = (
  cs: ChangeSet,
  pr: Pick<PullRequestRecord, 'number' | 'url' | 'state' | 'title' | 'body' | 'desiredHash'>,
) => Promise<void>;

/**
 * Reads the cluster's records once (`store.pullRequests`) and returns the function that upserts a
 * change set's record when any of its kept fields differ; `updatedAt` is `deps.now()`.
 */
export async function pullRequestRecorder(
  deps: Pick<WriteBackDeps, 'store' | 'cluster' | 'dryRun' | 'host' | 'now'>,
): Promise<RecordPullRequest> {
  const { dryRun, host } = deps;
  const records = new Map((await deps.store.pullRequests(deps.cluster)).map((r) => [r.branch, r]));
  return async (cs, pr) => {
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
}
