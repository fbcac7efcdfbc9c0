/**
 * One attempt of `WorkingCopy.applyAll` (`working-copy.ts`): read what the decision needs on the
 * heads as last fetched, decide each pending change set (`branch-writes.ts`, pure), build the
 * commits in one fast-import and push them in one push. `applyAll` retries the refs this returns
 * as retryable.
 */
import {
  applyOutcome,
  commitMessage,
  patchWrites,
  type ApplyItem,
  type ApplyResult,
} from './branch-writes.js';
import { GitOpsError } from './git-errors.js';
import type { ApplyOptions } from '../change-sets/index.js';
import { decideBranchWrites, type DecideContext } from './working-copy-decide.js';
import type { CommitSpec } from './working-copy-options.js';
import type { PushRef, RefPushResult } from './working-copy-push.js';

/** What an attempt uses of the working copy. */
export interface ApplyPassContext extends DecideContext {
  baseBranch: string;
  /** Remote heads as last fetched, branch → sha. */
  heads(): Promise<Map<string, string>>;
  /** The base branch's head among `heads`. @throws GitOpsError when the remote has no base branch */
  baseOf(heads: Map<string, string>): string;
  buildCommits(specs: readonly CommitSpec[]): Promise<string[]>;
  pushRefs(refs: readonly PushRef[]): Promise<Map<string, RefPushResult>>;
}

/**
 * One attempt over the pending items: decide on the heads as last fetched, build the commits in
 * one fast-import, push them in one push. Returns the items that are final and those to retry
 * (a ref rejected as `non-fast-forward` or `transient`). Dry-run, or nothing to write: no commit,
 * no push, each write reported as `would-push`.
 */
export async function applyPass(
  wc: ApplyPassContext,
  items: readonly ApplyItem[],
  pending: readonly number[],
  options: Omit<ApplyOptions, 'fresh'>,
  attempt: number,
): Promise<{ done: [number, ApplyResult][]; retry: [number, GitOpsError][] }> {
  const heads = await wc.heads();
  const base = wc.baseOf(heads);
  const { done, writes } =
    options.mode === 'patch'
      ? patchWrites(items, pending, {
          base,
          baseBranch: wc.baseBranch,
          current: await wc.objects.readObjects(
            pending.flatMap((i) => items[i]!.changeSet.files.map((f) => `${base}:${f.path}`)),
          ),
        })
      : await decideBranchWrites(wc, items, pending, heads, base);

  if (options.dryRun || writes.length === 0) {
    for (const w of writes)
      done.push([
        w.index,
        applyOutcome(w.ref, 'would-push', w.files, { startedAfresh: w.startedAfresh, forced: w.forced }),
      ]);
    return { done, retry: [] };
  }

  const chained = options.mode === 'patch';
  const commits = await wc.buildCommits(
    writes.map((w, k) => ({
      parent: chained && k > 0 ? { previous: k - 1 } : w.start,
      message: commitMessage(w.cs, w.files),
      files: w.cs.files,
    })),
  );
  // Patch mode pushes only the last commit of the chain: the others are its ancestors.
  const pushed = chained
    ? [{ ref: wc.baseBranch, sha: commits.at(-1)!, expected: base }]
    : writes.map((w, k) => ({ ref: w.ref, sha: commits[k]!, expected: w.expected }));
  // gpuops's own commits are known by their ids, recorded before they leave (commit-ledger.ts).
  if (!chained) await recordPushed(wc, pushed);
  const refResults = await wc.pushRefs(pushed);
  const retry: [number, GitOpsError][] = [];
  writes.forEach((w, k) => {
    const r = refResults.get(w.ref)!;
    if (r === true) {
      done.push([
        w.index,
        applyOutcome(w.ref, 'pushed', w.files, {
          commit: commits[k]!,
          attempts: attempt,
          startedAfresh: w.startedAfresh,
          forced: w.forced,
        }),
      ]);
    } else if (r === 'up-to-date') {
      // Another writer pushed this very commit first (same head, files and second): the branch
      // already holds the change set and this write added nothing, so it is not `pushed`.
      done.push([w.index, applyOutcome(w.ref, 'unchanged', [], { attempts: attempt })]);
    } else if (r.kind === 'non-fast-forward' || r.kind === 'transient') {
      retry.push([w.index, r]);
    } else {
      done.push([w.index, r]);
    }
  });
  return { done, retry };
}

/** Records the commits about to be pushed; a ledger that cannot record stops the push (the branch would read as a person's). */
async function recordPushed(
  wc: ApplyPassContext,
  pushed: readonly { ref: string; sha: string }[],
): Promise<void> {
  try {
    await wc.ledger.record(
      pushed.map((p) => ({ sha: p.sha, branch: p.ref })),
      new Date(),
    );
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new GitOpsError(
      'transient',
      'push',
      `not pushed: the ids of gpuops's commits could not be recorded (${why})`,
    );
  }
}
