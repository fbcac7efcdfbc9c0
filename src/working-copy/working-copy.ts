/**
 * The git working copy of the GitOps repo: with its parts (`working-copy-*.ts`), the only module
 * that runs git. It clones (without a checkout) or fetches into a cache folder, reads the base
 * branch, and writes change sets as commits on gpuops branches (or, in patch mode, on the base branch) following the rules people
 * rely on (Renovate, Flux image automation, Argo CD Image Updater): no commit when nothing changed,
 * never a force-push over a commit gpuops did not author, a rejected push is fetched, decided again
 * and pushed again. gpuops knows its own commits by the ids it recorded before pushing them (the
 * ledger, `commit-ledger.ts`), never by an author e-mail anyone can type.
 *
 * Writing needs no working tree: every branch's commit is built from its start commit's tree in
 * one `git fast-import` per pass, and every changed branch goes out in ONE `git push` with one
 * refspec and one `--force-with-lease=<ref>:<expected>` per branch. A pass that commits N subjects
 * spawns about five git processes, not ~8·N.
 *
 * Where a process per call is fine, simple-git's typed commands run git (`clone`, `remote`,
 * `fetch`, `listRemote`, `log`); the batch plumbing (`fast-import`, `cat-file --batch`, the
 * multi-refspec `push --porcelain` with a lease per ref) and the two reads simple-git has no
 * command for (`for-each-ref`, `ls-tree -z`) stay behind this class and its parts.
 */
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { makeDirs } from '../disk/index.js';
import { backoffDelay, retry, sleep } from '../retry/index.js';
import { validatePath, type ApplyItem, type ApplyResult } from './branch-writes.js';
import { withCloneLock } from './clone-lock.js';
import { memoryLedger, type CommitLedger } from './commit-ledger.js';
import { GitOpsError } from './git-errors.js';
import type { ApplyOptions, ApplyOutcome, ChangeSet } from '../change-sets/index.js';
import { applyPass, type ApplyPassContext } from './working-copy-apply.js';
import { GitRunner } from './working-copy-git.js';
import { DiffReader } from './working-copy-diffs.js';
import { BoundedCache, ObjectReader, type TreeEntry } from './working-copy-objects.js';
import {
  DEFAULT_AUTHOR,
  type CommitSpec,
  type GitAuthor,
  type GitlinkEntry,
  type WorkingCopyCounters,
  type WorkingCopyOptions,
} from './working-copy-options.js';
import { buildCommits, pushRefs, type PushRef, type RefPushResult } from './working-copy-push.js';

export { commitMessage, type ApplyItem, type ApplyResult } from './branch-writes.js';
export {
  DEFAULT_AUTHOR,
  type CommitSpec,
  type GitAuthor,
  type GitlinkEntry,
  type WorkingCopyCounters,
  type WorkingCopyOptions,
} from './working-copy-options.js';

/**
 * A git working copy of the GitOps repo. Calls are serialised: one writer per repository. How git
 * runs is `working-copy-git.ts`; what is read of objects, `working-copy-objects.ts`; one attempt
 * of a write, `working-copy-apply.ts`; commits and pushes, `working-copy-push.ts`.
 */
export class WorkingCopy {
  readonly baseBranch: string;
  readonly author: GitAuthor;
  readonly counters: WorkingCopyCounters = { fetches: 0, commits: 0, pushes: 0, processes: 0 };
  private readonly opts: WorkingCopyOptions;
  private readonly git: GitRunner;
  private readonly objects: ObjectReader;
  private readonly diffs: DiffReader;
  /** The ids of the commits gpuops pushed: how it knows its own commits (`commit-ledger.ts`). */
  private readonly ledger: CommitLedger;
  private synced = false;
  /** `origin` points at `url` (set once per instance: the URL may change between runs, not within one). */
  private originSet = false;
  /** Remote heads as last fetched (one `for-each-ref`), until the next fetch or push. */
  private heads: Map<string, string> | null = null;
  /** Remote branches whose heads the base branch contains, for the same heads. */
  private merged: Set<string> | null = null;
  /** `<head> <base>` → whether `base` contains `head` (see `branchStatus`); commits never change. */
  private readonly mergedCache = new BoundedCache<string, boolean>(1024);
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(opts: WorkingCopyOptions) {
    this.opts = opts;
    this.baseBranch = opts.baseBranch;
    this.author = opts.author ?? DEFAULT_AUTHOR;
    this.git = new GitRunner(opts, this.author, this.counters);
    this.objects = new ObjectReader(this.git);
    this.diffs = new DiffReader(this.git);
    this.ledger = opts.ledger ?? memoryLedger();
  }

  /**
   * Clones (or fetches, when the cache folder already holds a clone) and returns the working copy.
   * @throws GitOpsError (`auth`, `refused`, or `transient` after the last attempt)
   */
  static async open(opts: WorkingCopyOptions): Promise<WorkingCopy> {
    makeDirs(dirname(opts.dir));
    const wc = new WorkingCopy(opts);
    await wc.sync();
    return wc;
  }

  /** The repo URL with any userinfo removed, safe to log. */
  get displayUrl(): string {
    return this.git.redact(this.git.url);
  }

  /** Serialises calls in this process and holds the clone cache's file lock across processes. */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const locked = () => withCloneLock(this.opts.dir, fn, { timeoutMs: this.opts.lockTimeoutMs });
    const run = this.queue.then(locked, locked);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private get maxAttempts(): number {
    return Math.max(1, this.opts.maxAttempts ?? 4);
  }

  private retry<T>(fn: (attempt: number) => Promise<T>, retryable: (err: unknown) => boolean): Promise<T> {
    return retry(fn, {
      attempts: this.maxAttempts,
      backoff: this.opts.backoff,
      sleep: this.opts.sleep,
      random: this.opts.random,
      retryable,
    });
  }

  /**
   * Clones when the cache folder is empty, else points `origin` at the URL and fetches every
   * branch (pruning deleted ones). Transient failures are retried with backoff.
   */
  sync(): Promise<void> {
    return this.serial(() => this.syncNow());
  }

  private syncNow(): Promise<void> {
    return this.retry(
      async () => {
        if (!existsSync(join(this.opts.dir, '.git'))) {
          await rm(this.opts.dir, { recursive: true, force: true });
          try {
            await this.git.parent.clone(this.git.url, this.opts.dir, ['-q', '--no-tags', '--no-checkout']);
          } catch (err) {
            throw this.git.fail('clone', err);
          }
        } else {
          // The remote stands still (one `ls-remote`, lighter than a fetch and its maintenance):
          // the fetch is skipped. The replay makes thousands of passes where nothing moved.
          if (this.originSet && (await this.git.remoteUnmoved(await this.remoteHeads()))) {
            this.synced = true;
            return;
          }
          try {
            if (!this.originSet) await this.git.repo.remote(['set-url', 'origin', this.git.url]);
            await this.git.repo.fetch([
              '-q',
              '--prune',
              '--no-tags',
              'origin',
              '+refs/heads/*:refs/remotes/origin/*',
            ]);
          } catch (err) {
            throw this.git.fail('fetch', err);
          }
        }
        this.counters.fetches++;
        this.synced = true;
        this.originSet = true;
        this.forgetHeads();
      },
      (err) => err instanceof GitOpsError && err.kind === 'transient',
    );
  }

  private async ensureSynced(): Promise<void> {
    if (!this.synced) await this.syncNow();
  }

  private forgetHeads(): void {
    this.heads = null;
    this.merged = null;
  }

  /** Heads of the remote's branches as last fetched (one `for-each-ref`, kept until a fetch or push). */
  private async remoteHeads(): Promise<Map<string, string>> {
    this.heads ??= await this.git.trackingHeads();
    return this.heads;
  }

  private baseOf(heads: Map<string, string>): string {
    const sha = heads.get(this.baseBranch);
    if (!sha) {
      throw new GitOpsError(
        'refused',
        'fetch',
        `base branch ${this.baseBranch} does not exist on ${this.displayUrl}`,
      );
    }
    return sha;
  }

  /**
   * `read` of the base branch's head commit as last fetched, in the queue, after the first sync
   * when the working copy never fetched.
   */
  private atBase<T>(read: (base: string) => T | Promise<T>): Promise<T> {
    return this.serial(async () => {
      await this.ensureSynced();
      return read(this.baseOf(await this.remoteHeads()));
    });
  }

  /** The commit at the head of the base branch as last fetched. */
  baseHead(): Promise<string> {
    return this.atBase((base) => base);
  }

  /**
   * Where a branch of the remote stands, as last fetched: `absent` (no such branch), `merged` (its
   * head is contained in the base branch, e.g. a person merged it), or `ahead` (it holds commits
   * the base branch does not). The plain git provider has no PR API: this is how it sees a merge.
   */
  branchStatus(branch: string): Promise<'absent' | 'merged' | 'ahead'> {
    return this.serial(async () => {
      await this.ensureSynced();
      const heads = await this.remoteHeads();
      const head = heads.get(branch);
      if (head === undefined) return 'absent';
      const base = this.baseOf(heads);
      // Whether a commit contains another never changes: known pairs need no git.
      const known = this.mergedCache.get(`${head} ${base}`);
      if (known !== undefined) return known ? 'merged' : 'ahead';
      // Every branch the base contains, in one `for-each-ref --merged` for all branches.
      if (!this.merged) {
        this.merged = await this.git.trackingMergedInto(base);
        for (const [b, sha] of heads) this.mergedCache.set(`${sha} ${base}`, this.merged.has(b));
      }
      return this.merged.has(branch) ? 'merged' : 'ahead';
    });
  }

  /**
   * Every file under `prefix` (e.g. `clusters/prod/`, or `''` for the whole repo) at the head of the
   * base branch, as path → UTF-8 content. Syncs first when the working copy never fetched.
   */
  readTree(prefix = ''): Promise<Map<string, string>> {
    return this.atBase((base) => this.objects.tree(base, prefix));
  }

  /** The paths of the files under `prefix` at the head of the base branch, sorted; no content is read. */
  listPaths(prefix = ''): Promise<string[]> {
    return this.atBase((base) => this.objects.paths(base, prefix));
  }

  /**
   * The files at the head of the base branch that `choose` picks from the tree's listing (path,
   * blob and the size git reports, from one `ls-tree -r -l`): only the picked blobs are read, so
   * a caller filters by name and size before anything large is in memory.
   */
  readSelected(
    choose: (entries: readonly TreeEntry[]) => readonly TreeEntry[],
  ): Promise<Map<string, string>> {
    return this.atBase((base) => this.objects.select(base, choose));
  }

  /**
   * The submodules (gitlinks, mode 160000) under `prefix` at the head of the base branch. The
   * listing {@link readTree} made of that commit answers it; else one `ls-tree`. `readTree` holds
   * blobs only: a submodule has no content in this repository.
   */
  gitlinks(prefix = ''): Promise<GitlinkEntry[]> {
    return this.atBase((base) => this.objects.gitlinks(base, prefix));
  }

  /**
   * Writes one change set and pushes it; {@link applyAll} with one item.
   * @throws GitOpsError for `auth`/`refused` errors, and for any error after the last attempt
   * @throws Error for a file path that is not a normalised repo-relative path
   */
  apply(changeSet: ChangeSet, options: ApplyOptions): Promise<ApplyOutcome> {
    // applyAll validates paths before it returns its promise: a bad path throws here, at once.
    return this.applyAll([{ changeSet, fresh: options.fresh }], options).then(([r]) => {
      if (r instanceof GitOpsError) throw r;
      return r!;
    });
  }

  /**
   * Writes change sets and pushes every changed branch in one `git push`. Pull-request mode writes
   * each `changeSet.branch`; patch mode writes the base branch, one commit per change set, chained.
   * The decision per branch, in order:
   * 1. the gpuops branch holds a commit gpuops did not push (nor build on) and the base branch does
   *    not hold by content → `person-commits`, nothing written, with every file of the branch's
   *    diff (`personChanges`);
   * 2. the branch was merged (its head is in the base branch) or `fresh` → rebuilt from the base
   *    branch head (a force-push, with a lease, only when the old commits are all gpuops's);
   * 3. the branch's diff touches a path the change set does not write (gpuops's stale change) →
   *    rebuilt from the base branch head, forced;
   * 4. the branch already has the desired files → `unchanged`, no commit, no push;
   * 5. else commit on the branch (or, when the branch is behind the base branch or on a rewritten
   *    one, on the base head, forced).
   * Every refspec carries its own `--force-with-lease=<ref>:<head gpuops decided on>` (empty for a
   * new branch), so no push can replace a commit gpuops has not seen. A ref the remote rejects
   * because another writer moved it (non-fast-forward, stale lease, `cannot lock ref`, `failed to
   * update ref`, `reference already exists`) or a transient error: fetch, decide again from step 1
   * on the new heads (a person's commit is then left alone and reported), push again — at most
   * `maxAttempts` times, with backoff. Accepted refs are final after the attempt that pushed them.
   * @returns one result per item, in order: an outcome, or the GitOpsError that ended that item
   * @throws Error for a file path that is not a normalised repo-relative path
   */
  applyAll(items: readonly ApplyItem[], options: Omit<ApplyOptions, 'fresh'>): Promise<ApplyResult[]> {
    for (const { changeSet } of items) for (const f of changeSet.files) validatePath(f.path);
    return this.serial(async () => {
      await this.ensureSynced();
      const results: (ApplyResult | undefined)[] = items.map(() => undefined);
      let pending = items.map((_, i) => i);
      for (let attempt = 1; pending.length > 0; attempt++) {
        let retryable: number[] = [];
        try {
          const r = await applyPass(this.passContext, items, pending, options, attempt);
          for (const [i, result] of r.done) results[i] = result;
          retryable = r.retry.map(([i]) => i);
          for (const [i, err] of r.retry) if (attempt >= this.maxAttempts) results[i] = err;
        } catch (err) {
          const e = err instanceof GitOpsError ? err : this.git.fail('push', err);
          const again = e.kind === 'non-fast-forward' || e.kind === 'transient';
          if (!again || attempt >= this.maxAttempts) {
            for (const i of pending) results[i] = e;
            break;
          }
          retryable = pending;
        }
        if (attempt >= this.maxAttempts || retryable.length === 0) break;
        pending = retryable;
        await this.pauseAndSync(attempt);
      }
      return results.map((r) => r ?? new GitOpsError('refused', 'push', 'not attempted'));
    });
  }

  private async pauseAndSync(attempt: number): Promise<void> {
    await (this.opts.sleep ?? sleep)(backoffDelay(attempt, this.opts.backoff, this.opts.random));
    await this.syncNow();
  }

  /** What one attempt of {@link applyAll} uses of this working copy. */
  private get passContext(): ApplyPassContext {
    return {
      baseBranch: this.baseBranch,
      ledger: this.ledger,
      diffs: this.diffs,
      heads: () => this.remoteHeads(),
      baseOf: (heads) => this.baseOf(heads),
      objects: this.objects,
      buildCommits: (specs) => this.buildCommits(specs),
      pushRefs: (refs) => this.pushRefs(refs),
    };
  }

  /**
   * Builds commits without a working tree: ONE `git fast-import` writes every blob, tree and
   * commit (each from its parent's tree plus the change set's files) and reports each commit's id.
   * Reusable by the bench's plain-plumbing floor. Returns the commit ids in order. What each
   * commit holds is kept (`ObjectReader.rememberCommit`): the next read of it runs no git.
   */
  async buildCommits(specs: readonly CommitSpec[], when = new Date()): Promise<string[]> {
    const ids = await buildCommits(this.git, specs, when);
    specs.forEach((spec, k) => {
      const parent = typeof spec.parent === 'string' ? spec.parent : ids[spec.parent.previous]!;
      this.objects.rememberCommit(ids[k]!, parent, spec.files);
    });
    return ids;
  }

  /**
   * Pushes every `sha` to `refs/heads/<ref>` in ONE `git push --porcelain`, each refspec with its
   * own lease (`expected`, or empty: the branch must not exist). Returns per ref a
   * `RefPushResult` (`working-copy-push.ts`). Reusable by the bench's plain-plumbing floor.
   * @throws GitOpsError when the push failed as a whole (network, auth) rather than per ref
   */
  async pushRefs(refs: readonly PushRef[]): Promise<Map<string, RefPushResult>> {
    const before = this.heads;
    this.forgetHeads(); // the push moves the remote-tracking refs of the refs it updated
    const out = await pushRefs(this.git, refs);
    // Every ref taken: the remote-tracking refs now point where this push put them (git updates
    // them on a successful push), so the heads are known without another `for-each-ref`.
    if (before && [...out.values()].every((r) => !(r instanceof GitOpsError))) {
      const heads = new Map(before);
      for (const r of refs) heads.set(r.ref, r.sha);
      this.heads = heads;
    }
    return out;
  }
}
