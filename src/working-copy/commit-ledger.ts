/**
 * How gpuops knows its own commits: by the ids of the commits it pushed, recorded before each push
 * (`Store.recordPushedCommits`), never by the author e-mail — anyone who can push a branch can
 * commit as `gpuops <gpuops@…>`. A commit on a gpuops branch is gpuops's when it is recorded, or
 * is an ancestor of a recorded one (gpuops built on it after checking it; `branch-owner.ts`).
 */
import type { PushedCommit, Store } from '../store/index.js';

/** The record of pushed commits the working copy keeps. */
export interface CommitLedger {
  /** Of `shas`, those recorded as pushed by gpuops. @throws what the store throws */
  known(shas: readonly string[]): Promise<Set<string>>;
  /**
   * Records commits gpuops is about to push. Called before the push: a commit recorded and then
   * refused is harmless (no one else can make a commit with its id), one pushed and not recorded
   * would freeze its branch as a person's. @throws what the store throws
   */
  record(commits: readonly Omit<PushedCommit, 'at'>[], at: Date): Promise<void>;
}

/** A ledger in memory, for the working copy's lifetime (tests, the bench, a store without the table). */
export function memoryLedger(): CommitLedger {
  const shas = new Set<string>();
  return {
    known: (asked) => Promise.resolve(new Set(asked.filter((s) => shas.has(s)))),
    record: (commits) => {
      for (const c of commits) shas.add(c.sha);
      return Promise.resolve();
    },
  };
}

/**
 * The ledger in the Store (`pushed_commits`, migration 9): it outlives the clone cache (an
 * `emptyDir`) and is shared by every replica. A store without the methods gets a memory ledger.
 */
export function storeLedger(
  store: Partial<Pick<Store, 'pushedCommits' | 'recordPushedCommits'>>,
): CommitLedger {
  const { pushedCommits, recordPushedCommits } = store;
  if (!pushedCommits || !recordPushedCommits) return memoryLedger();
  return {
    known: async (shas) => (shas.length === 0 ? new Set() : new Set(await pushedCommits.call(store, shas))),
    record: (commits, at) =>
      commits.length === 0
        ? Promise.resolve()
        : recordPushedCommits.call(
            store,
            commits.map((c) => ({ ...c, at: at.toISOString() })),
          ),
  };
}
