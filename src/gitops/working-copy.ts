/**
 * The git working copy of the GitOps repo: the only module that runs git. It clones (without a
 * checkout) or fetches into a cache folder, reads the base branch, and writes change sets as
 * commits on gpuops branches (or, in patch mode, on the base branch) following the rules people
 * rely on (Renovate, Flux image automation, Argo CD Image Updater): no commit when nothing changed,
 * never a force-push over a commit gpuops did not author, a rejected push is fetched, decided again
 * and pushed again.
 *
 * Writing needs no working tree: every branch's commit is built from its start commit's tree in
 * one `git fast-import` per pass, and every changed branch goes out in ONE `git push` with one
 * refspec and one `--force-with-lease=<ref>:<expected>` per branch. A pass that commits N subjects
 * spawns about five git processes, not ~8·N.
 *
 * Where a process per call is fine, simple-git's typed commands run git (`clone`, `remote`,
 * `fetch`, `listRemote`, `log`); the batch plumbing (`fast-import`, `cat-file --batch`, the
 * multi-refspec `push --porcelain` with a lease per ref) and the two reads simple-git has no
 * command for (`for-each-ref`, `ls-tree -z`) stay behind this class.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { simpleGit, type SimpleGit } from 'simple-git';
import { backoffDelay, retry, sleep, type Backoff } from '../util/retry.js';
import { withCloneLock } from './clone-lock.js';
import { localRemoteHeads } from './local-remote-heads.js';
import { GitOpsError, classifyGitError, parsePushPorcelain, redact } from './git-errors.js';
import { splitRemoteUrl } from './remote-url.js';
import type { ApplyOptions, ApplyOutcome, ChangeSet, FileChange } from './types.js';
import { makeDirs } from '../util/make-dirs.js';
import {
  applyOutcome,
  commitMessage,
  branchWrites,
  patchWrites,
  validatePath,
  type ApplyItem,
  type ApplyResult,
  type DecidedWrites,
  type LoggedCommit,
} from './branch-writes.js';

export { commitMessage, type ApplyItem, type ApplyResult } from './branch-writes.js';

/** Name and e-mail gpuops commits with; commits by anyone else on a gpuops branch are a person's. */
export interface GitAuthor {
  name: string;
  email: string;
}

/** The default gpuops author. */
export const DEFAULT_AUTHOR: GitAuthor = { name: 'gpuops', email: 'gpuops@users.noreply.local' };

/** Options of {@link WorkingCopy.open}. */
export interface WorkingCopyOptions {
  /**
   * `file://…`, a path, `https://…` or `ssh://…`. Credentials inside an https URL
   * (`https://user:token@host/…`) are split off before git sees the URL and sent like `token`.
   */
  repoUrl: string;
  /** Base branch, e.g. `main`. */
  baseBranch: string;
  /** Cache folder of the clone; created when absent, fetched when present; locked while in use. */
  dir: string;
  /**
   * Token for HTTPS remotes (`GITHUB_TOKEN`). Sent as an `http.<origin>/.extraHeader` through
   * git's `GIT_CONFIG_*` environment, scoped to the remote's origin; never in the URL, the argv,
   * `.git/config` or any message. Credentials in `repoUrl` take its place for git.
   */
  token?: string;
  author?: GitAuthor;
  /** Attempts of a push (and of a fetch) before giving up; default 4. */
  maxAttempts?: number;
  /** Exponential backoff with jitter between attempts (milliseconds); default 500..8000. */
  backoff?: Backoff;
  /** Injected for tests (milliseconds). */
  sleep?: (ms: number) => Promise<void>;
  /** Injected for tests; 0..1. */
  random?: () => number;
  /** Longest wait for another process's lock on the clone cache, milliseconds; default 120,000. */
  lockTimeoutMs?: number;
}

/** Counters of what the working copy did (for metrics, logs, the bench and tests). */
export interface WorkingCopyCounters {
  fetches: number;
  commits: number;
  /** `git push` processes (one per pass and attempt, however many branches it carries). */
  pushes: number;
  /** Every git process spawned. */
  processes: number;
}

/** A submodule entry of a tree: its path and the commit of the other repository it pins. */
export interface GitlinkEntry {
  path: string;
  commit: string;
}

/** The https origin (`https://host[:port]/`) a token may be sent to, or null for other schemes. */
function httpsOrigin(url: string): string | null {
  if (!/^https?:\/\//i.test(url)) return null;
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}/`;
  } catch {
    return null;
  }
}

/** A commit to build: its parent (a sha, or the index of an earlier commit of the same stream). */
export interface CommitSpec {
  parent: string | { previous: number };
  message: string;
  files: readonly FileChange[];
}

/** An object name that always means the same content: a full object id, or `<id>:<path>`. */
const IMMUTABLE_NAME = /^[0-9a-f]{40}(?:[0-9a-f]{24})?(?::.*)?$/s;

/** A map of at most `limit` entries; the oldest entry goes first. */
class BoundedCache<K, V> {
  private readonly map = new Map<K, V>();
  constructor(private readonly limit: number) {}
  get(key: K): V | undefined {
    return this.map.get(key);
  }
  set(key: K, value: V): void {
    this.map.delete(key);
    if (this.map.size >= this.limit) this.map.delete(this.map.keys().next().value!);
    this.map.set(key, value);
  }
}

/** A git working copy of the GitOps repo. Calls are serialised: one writer per repository. */
export class WorkingCopy {
  readonly baseBranch: string;
  readonly author: GitAuthor;
  readonly counters: WorkingCopyCounters = { fetches: 0, commits: 0, pushes: 0, processes: 0 };
  private readonly opts: WorkingCopyOptions;
  /** The remote URL without credentials: the only form git ever sees. */
  private readonly url: string;
  private readonly secrets: string[];
  private readonly extraHeader: string | null;
  private readonly parentGit: SimpleGit;
  private cloneGit: SimpleGit | null = null;
  private synced = false;
  /** `origin` points at `url` (set once per instance: the URL may change between runs, not within one). */
  private originSet = false;
  /** Remote heads as last fetched (one `for-each-ref`), until the next fetch or push. */
  private heads: Map<string, string> | null = null;
  /** Remote branches whose heads the base branch contains, for the same heads. */
  private merged: Set<string> | null = null;
  /** Files under a prefix at a base commit (`sha:prefix`), at most 16. */
  private readonly treeCache = new Map<string, Map<string, string>>();
  /**
   * Git objects never change, so what was read of them is kept (bounded, oldest out): the
   * contents of `<sha>` and `<commit>:<path>` names (null: missing), the path → blob listing of a
   * commit's tree, and `git log tips ^base`. A pass whose heads did not move spawns no git.
   */
  private readonly objectCache = new BoundedCache<string, string | null>(16384);
  private readonly listingCache = new BoundedCache<string, Map<string, string>>(8);
  /** The gitlinks (submodules) of the same listings. */
  private readonly gitlinkCache = new BoundedCache<string, GitlinkEntry[]>(8);
  private readonly logCache = new BoundedCache<string, LoggedCommit[]>(64);
  /** `<head> <base>` → whether `base` contains `head` (see `branchStatus`). */
  private readonly mergedCache = new BoundedCache<string, boolean>(1024);
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(opts: WorkingCopyOptions) {
    this.opts = opts;
    this.baseBranch = opts.baseBranch;
    this.author = opts.author ?? DEFAULT_AUTHOR;
    const { url, credentials } = splitRemoteUrl(opts.repoUrl);
    this.url = url;
    const basic = credentials
      ? `${credentials.username}:${credentials.password}`
      : opts.token
        ? `x-access-token:${opts.token}`
        : null;
    const origin = httpsOrigin(url);
    this.extraHeader =
      basic && origin ? `AUTHORIZATION: basic ${Buffer.from(basic).toString('base64')}` : null;
    // A user name alone in an https URL is a token (`https://TOKEN@host/…`); with a password it is not.
    const userSecret = credentials && credentials.password === '' ? credentials.username : undefined;
    this.secrets = [opts.token, credentials?.password, userSecret, basic ?? undefined].filter(
      (x): x is string => !!x,
    );
    this.parentGit = this.simpleGit(dirname(opts.dir));
  }

  private simpleGit(baseDir: string): SimpleGit {
    return simpleGit({ baseDir, maxConcurrentProcesses: 1, unsafe: { allowUnsafeConfigEnvCount: true } })
      .env(this.env())
      .outputHandler(() => void this.counters.processes++);
  }

  private get repoGit(): SimpleGit {
    return (this.cloneGit ??= this.simpleGit(this.opts.dir));
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
    return this.redact(this.url);
  }

  private env(): Record<string, string> {
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/tmp',
      LANG: 'C',
      LC_ALL: 'C',
      GIT_TERMINAL_PROMPT: '0',
      GIT_AUTHOR_NAME: this.author.name,
      GIT_AUTHOR_EMAIL: this.author.email,
      GIT_COMMITTER_NAME: this.author.name,
      GIT_COMMITTER_EMAIL: this.author.email,
    };
    if (process.env.SSH_AUTH_SOCK) env.SSH_AUTH_SOCK = process.env.SSH_AUTH_SOCK;
    const config: [string, string][] = [['core.autocrlf', 'false']];
    const origin = httpsOrigin(this.url);
    if (this.extraHeader && origin) config.push([`http.${origin}.extraheader`, this.extraHeader]);
    env.GIT_CONFIG_COUNT = String(config.length);
    config.forEach(([k, v], i) => {
      env[`GIT_CONFIG_KEY_${i}`] = k;
      env[`GIT_CONFIG_VALUE_${i}`] = v;
    });
    return env;
  }

  private redact(text: string): string {
    return redact(text, this.secrets);
  }

  /** Serialises calls in this process and holds the clone cache's file lock across processes. */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const locked = () => withCloneLock(this.opts.dir, fn, { timeoutMs: this.opts.lockTimeoutMs });
    const run = this.queue.then(locked, locked);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private fail(operation: string, err: unknown): GitOpsError {
    const text = this.redact(err instanceof Error ? err.message : String(err)).trim();
    return new GitOpsError(classifyGitError(text), operation, text);
  }

  /** Runs a plumbing read simple-git has no typed command for (`for-each-ref`, `ls-tree`); failures become GitOpsError. */
  private async run(operation: string, args: string[]): Promise<string> {
    try {
      return await this.repoGit.raw(args);
    } catch (err) {
      throw this.fail(operation, err);
    }
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
            await this.parentGit.clone(this.url, this.opts.dir, ['-q', '--no-tags', '--no-checkout']);
          } catch (err) {
            throw this.fail('clone', err);
          }
        } else {
          // The remote stands still (one `ls-remote`, lighter than a fetch and its maintenance):
          // the fetch is skipped. The replay makes thousands of passes where nothing moved.
          if (this.originSet && (await this.remoteUnmoved(await this.remoteHeads()))) {
            this.synced = true;
            return;
          }
          try {
            if (!this.originSet) await this.repoGit.remote(['set-url', 'origin', this.url]);
            await this.repoGit.fetch([
              '-q',
              '--prune',
              '--no-tags',
              'origin',
              '+refs/heads/*:refs/remotes/origin/*',
            ]);
          } catch (err) {
            throw this.fail('fetch', err);
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

  /** True when every branch of the remote points where the last fetch or push left it. */
  private async remoteUnmoved(known: Map<string, string>): Promise<boolean> {
    // A remote on this machine: its ref files, read without a process (see local-remote-heads.ts).
    const local = await localRemoteHeads(this.url);
    if (local) return local.size === known.size && [...known].every(([b, sha]) => local.get(b) === sha);
    let out: string;
    try {
      out = await this.repoGit.listRemote(['--heads', 'origin']);
    } catch (err) {
      throw this.fail('ls-remote', err);
    }
    const heads = new Map<string, string>();
    for (const line of out.split('\n')) {
      const [sha, ref] = line.split('\t');
      if (sha && ref?.startsWith('refs/heads/')) heads.set(ref.slice('refs/heads/'.length), sha);
    }
    return heads.size === known.size && [...known].every(([branch, sha]) => heads.get(branch) === sha);
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
    if (this.heads) return this.heads;
    const out = await this.run('for-each-ref', [
      'for-each-ref',
      '--format=%(objectname) %(refname)',
      'refs/remotes/origin/',
    ]);
    const heads = new Map<string, string>();
    for (const line of out.split('\n')) {
      const m = /^([0-9a-f]+) refs\/remotes\/origin\/(.+)$/.exec(line);
      if (m && m[2] !== 'HEAD') heads.set(m[2]!, m[1]!);
    }
    this.heads = heads;
    return heads;
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

  /** The commit at the head of the base branch as last fetched. */
  baseHead(): Promise<string> {
    return this.serial(async () => {
      await this.ensureSynced();
      return this.baseOf(await this.remoteHeads());
    });
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
        const out = await this.run('for-each-ref', [
          'for-each-ref',
          `--merged=${this.baseOf(heads)}`,
          '--format=%(refname)',
          'refs/remotes/origin/',
        ]);
        this.merged = new Set(
          out
            .split('\n')
            .filter(Boolean)
            .map((r) => r.replace(/^refs\/remotes\/origin\//, '')),
        );
        for (const [b, sha] of heads) this.mergedCache.set(`${sha} ${base}`, this.merged.has(b));
      }
      return this.merged.has(branch) ? 'merged' : 'ahead';
    });
  }

  /** Spawns git with `input` on stdin; resolves with its exit code and output (never rejects on a non-zero exit). */
  private spawnGit(
    operation: string,
    args: string[],
    input: string | Buffer,
  ): Promise<{ code: number; stdout: Buffer; stderr: string }> {
    this.counters.processes++;
    return new Promise((resolve, reject) => {
      const child = spawn('git', ['-C', this.opts.dir, ...args], {
        env: this.env(),
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      const chunks: Buffer[] = [];
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => chunks.push(c));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      child.on('error', (err) => reject(this.fail(operation, err)));
      child.on('close', (code) => resolve({ code: code ?? 1, stdout: Buffer.concat(chunks), stderr }));
      child.stdin.on('error', () => undefined); // a git that died early is reported on close
      child.stdin.end(input);
    });
  }

  /** Runs git with `input` on its standard input and returns its standard output; failures become GitOpsError. */
  private async batch(operation: string, args: string[], input: string | Buffer): Promise<Buffer> {
    const r = await this.spawnGit(operation, args, input);
    if (r.code !== 0) {
      const text = this.redact(r.stderr.trim() || `git exited with ${r.code}`);
      throw new GitOpsError(classifyGitError(text), operation, text);
    }
    return r.stdout;
  }

  /**
   * Contents of `<rev>:<path>` names, read through ONE `git cat-file --batch` process; a name that
   * is missing (or not a file) is absent from the result.
   */
  private async readObjects(names: readonly string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    const unique = [...new Set(names)];
    // Names are `<sha>` or `<sha>:<path>` (immutable): an object read before is answered from memory.
    const unread: string[] = [];
    for (const name of unique) {
      const known = this.objectCache.get(name);
      if (known === undefined) unread.push(name);
      else if (known !== null) out.set(name, known);
    }
    if (unread.length === 0) return out;
    const data = await this.batch('cat-file', ['cat-file', '--batch'], unread.join('\n') + '\n');
    let at = 0;
    for (const name of unread) {
      const eol = data.indexOf(10, at);
      if (eol < 0) throw new GitOpsError('refused', 'cat-file', `no answer for ${name}`);
      const header = data.toString('utf8', at, eol);
      at = eol + 1;
      const m = /^[0-9a-f]+ (\w+) (\d+)$/.exec(header);
      if (!m) {
        // `<name> missing` or `ambiguous`
        if (IMMUTABLE_NAME.test(name)) this.objectCache.set(name, null);
        continue;
      }
      const size = Number(m[2]);
      const text = m[1] === 'blob' ? data.toString('utf8', at, at + size) : null;
      if (text !== null) out.set(name, text);
      if (IMMUTABLE_NAME.test(name)) this.objectCache.set(name, text);
      at += size + 1;
    }
    return out;
  }

  /**
   * Every file under `prefix` (e.g. `clusters/prod/`, or `''` for the whole repo) at the head of the
   * base branch, as path → UTF-8 content. Syncs first when the working copy never fetched.
   */
  readTree(prefix = ''): Promise<Map<string, string>> {
    return this.serial(async () => {
      await this.ensureSynced();
      const base = this.baseOf(await this.remoteHeads());
      // Commits never change: a tree read at the same base commit is answered from memory.
      const key = `${base}:${prefix}`;
      const cached = this.treeCache.get(key);
      if (cached) return new Map(cached);
      // One listing of the whole tree per base commit serves every prefix.
      let listing = this.listingCache.get(base);
      if (!listing) {
        const out = await this.run('ls-tree', ['ls-tree', '-r', '-z', '--full-tree', base]);
        listing = new Map<string, string>();
        const gitlinks: GitlinkEntry[] = [];
        for (const entry of out.split('\0')) {
          const m = /^\d+ blob ([0-9a-f]+)\t(.*)$/s.exec(entry);
          if (m) listing.set(m[2]!, m[1]!);
          // A submodule: a commit of another repository, no content here (see unreadable-specs.ts).
          const g = /^160000 commit ([0-9a-f]+)\t(.*)$/s.exec(entry);
          if (g) gitlinks.push({ path: g[2]!, commit: g[1]! });
        }
        this.listingCache.set(base, listing);
        this.gitlinkCache.set(base, gitlinks);
      }
      const under = prefix === '' ? '' : prefix.endsWith('/') ? prefix : `${prefix}/`;
      const blobs = [...listing].filter(([p]) => p === prefix || p.startsWith(under));
      const sorted = blobs.sort(([a], [b]) => (a < b ? -1 : 1));
      const contents = await this.readObjects(sorted.map(([, sha]) => sha));
      const tree = new Map<string, string>();
      for (const [path, sha] of sorted) {
        const text = contents.get(sha);
        if (text === undefined)
          throw new GitOpsError('refused', 'cat-file', `blob ${sha} of ${path} not read`);
        tree.set(path, text);
      }
      if (this.treeCache.size >= 16) this.treeCache.delete(this.treeCache.keys().next().value!);
      this.treeCache.set(key, tree);
      return new Map(tree);
    });
  }

  /**
   * The submodules (gitlinks, mode 160000) under `prefix` at the head of the base branch. The
   * listing {@link readTree} made of that commit answers it; else one `ls-tree`. `readTree` holds
   * blobs only: a submodule has no content in this repository.
   */
  gitlinks(prefix = ''): Promise<GitlinkEntry[]> {
    return this.serial(async () => {
      await this.ensureSynced();
      const base = this.baseOf(await this.remoteHeads());
      let all = this.gitlinkCache.get(base);
      if (!all) {
        const out = await this.run('ls-tree', ['ls-tree', '-r', '-z', '--full-tree', base]);
        all = [];
        for (const entry of out.split('\0')) {
          const g = /^160000 commit ([0-9a-f]+)\t(.*)$/s.exec(entry);
          if (g) all.push({ path: g[2]!, commit: g[1]! });
        }
        this.gitlinkCache.set(base, all);
      }
      const under = prefix === '' ? '' : prefix.endsWith('/') ? prefix : `${prefix}/`;
      return all.filter((g) => g.path === prefix || g.path.startsWith(under));
    });
  }

  /** Commits reachable from `tips` but not from `base`, newest first, with parents (one typed `git log`). */
  private async logAhead(base: string, tips: readonly string[]): Promise<LoggedCommit[]> {
    if (tips.length === 0) return [];
    const key = `${base} ${[...new Set(tips)].join(' ')}`;
    const cached = this.logCache.get(key);
    if (cached) return cached;
    try {
      // Revisions as option keys with no value: `git log <tips…> ^<base> --` (simple-git keeps their order).
      const revs = Object.fromEntries([...new Set(tips), `^${base}`, '--'].map((r) => [r, null]));
      const log = await this.repoGit.log<{ sha: string; parents: string; author: string; email: string }>({
        ...revs,
        format: { sha: '%H', parents: '%P', author: '%an', email: '%ae' },
      });
      const logged = log.all.map((c) => ({ ...c, parents: c.parents.split(' ').filter(Boolean) }));
      this.logCache.set(key, logged);
      return logged;
    } catch (err) {
      throw this.fail('log', err);
    }
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
   * 1. the gpuops branch holds a commit by another author → `person-commits`, nothing written;
   * 2. the branch was merged (its head is in the base branch) or `fresh` → rebuilt from the base
   *    branch head (a force-push, with a lease, only when the old commits are all gpuops's);
   * 3. the branch already has the desired files → `unchanged`, no commit, no push;
   * 4. else commit on the branch (or, when the branch is behind the base branch, on the base head).
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
          const r = await this.applyPass(items, pending, options, attempt);
          for (const [i, result] of r.done) results[i] = result;
          retryable = r.retry.map(([i]) => i);
          for (const [i, err] of r.retry) if (attempt >= this.maxAttempts) results[i] = err;
        } catch (err) {
          const e = err instanceof GitOpsError ? err : this.fail('push', err);
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

  /**
   * One attempt over the pending items: decide on the heads as last fetched, build the commits in
   * one fast-import, push them in one push. Returns the items that are final and those to retry.
   */
  private async applyPass(
    items: readonly ApplyItem[],
    pending: readonly number[],
    options: Omit<ApplyOptions, 'fresh'>,
    attempt: number,
  ): Promise<{ done: [number, ApplyResult][]; retry: [number, GitOpsError][] }> {
    const heads = await this.remoteHeads();
    const base = this.baseOf(heads);
    const { done, writes } =
      options.mode === 'patch'
        ? patchWrites(items, pending, {
            base,
            baseBranch: this.baseBranch,
            current: await this.readObjects(
              pending.flatMap((i) => items[i]!.changeSet.files.map((f) => `${base}:${f.path}`)),
            ),
          })
        : await this.branchWritesOn(items, pending, heads, base);

    if (options.dryRun || writes.length === 0) {
      for (const w of writes)
        done.push([
          w.index,
          applyOutcome(w.ref, 'would-push', w.files, { startedAfresh: w.startedAfresh, forced: w.forced }),
        ]);
      return { done, retry: [] };
    }

    const chained = options.mode === 'patch';
    const commits = await this.buildCommits(
      writes.map((w, k) => ({
        parent: chained && k > 0 ? { previous: k - 1 } : w.start,
        message: commitMessage(w.cs, w.files),
        files: w.cs.files,
      })),
    );
    // Patch mode pushes only the last commit of the chain: the others are its ancestors.
    const pushed = chained
      ? [{ ref: this.baseBranch, sha: commits.at(-1)!, expected: base }]
      : writes.map((w, k) => ({ ref: w.ref, sha: commits[k]!, expected: w.expected }));
    const refResults = await this.pushRefs(pushed);
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
      } else if (r.kind === 'non-fast-forward' || r.kind === 'transient') {
        retry.push([w.index, r]);
      } else {
        done.push([w.index, r]);
      }
    });
    return { done, retry };
  }

  /** Reads what {@link branchWrites} decides on (the log ahead of base, the files at base and at each head) and decides. */
  private async branchWritesOn(
    items: readonly ApplyItem[],
    pending: readonly number[],
    heads: Map<string, string>,
    base: string,
  ): Promise<DecidedWrites> {
    const remoteOf = (i: number) => heads.get(items[i]!.changeSet.branch);
    const logged = await this.logAhead(
      base,
      pending.map(remoteOf).filter((s): s is string => s !== undefined),
    );
    const names = pending.flatMap((i) => {
      const remote = remoteOf(i);
      return items[i]!.changeSet.files.flatMap((f) => [
        `${base}:${f.path}`,
        ...(remote ? [`${remote}:${f.path}`] : []),
      ]);
    });
    const contents = await this.readObjects(names);
    return branchWrites(items, pending, { base, heads, logged, contents, authorEmail: this.author.email });
  }

  /**
   * Builds commits without a working tree: ONE `git fast-import` writes every blob, tree and
   * commit (each from its parent's tree plus the change set's files) and reports each commit's id.
   * Reusable by the bench's plain-plumbing floor. Returns the commit ids in order.
   */
  async buildCommits(specs: readonly CommitSpec[], when = new Date()): Promise<string[]> {
    if (specs.length === 0) return [];
    const seconds = Math.floor(when.getTime() / 1000);
    const who = `${this.author.name} <${this.author.email}> ${seconds} +0000`;
    const parts: Buffer[] = [];
    const text = (s: string) => parts.push(Buffer.from(s, 'utf8'));
    const data = (s: string) => {
      const b = Buffer.from(s, 'utf8');
      text(`data ${b.length}\n`);
      parts.push(b);
      text('\n');
    };
    text('feature done\n');
    specs.forEach((spec, k) => {
      text(`commit refs/gpuops/staging\nmark :${k + 1}\nauthor ${who}\ncommitter ${who}\n`);
      data(spec.message);
      text(`from ${typeof spec.parent === 'string' ? spec.parent : `:${spec.parent.previous + 1}`}\n`);
      for (const f of spec.files) {
        if (f.content === null) text(`D ${f.path}\n`);
        else {
          text(`M 100644 inline ${f.path}\n`);
          data(f.content);
        }
      }
      text(`\nget-mark :${k + 1}\n`);
    });
    text('done\n');
    const out = await this.batch(
      'fast-import',
      ['fast-import', '--quiet', '--force', '--date-format=raw'],
      Buffer.concat(parts),
    );
    const ids = out
      .toString('utf8')
      .split('\n')
      .filter((l) => /^[0-9a-f]{40,64}$/.test(l));
    if (ids.length !== specs.length) {
      throw new GitOpsError(
        'refused',
        'fast-import',
        `expected ${specs.length} commit ids, got ${ids.length}`,
      );
    }
    this.counters.commits += ids.length;
    return ids;
  }

  /**
   * Pushes every `sha` to `refs/heads/<ref>` in ONE `git push --porcelain`, each refspec with its
   * own lease (`expected`, or empty: the branch must not exist). Returns per ref `true` or the
   * rejection as a GitOpsError. Reusable by the bench's plain-plumbing floor.
   * @throws GitOpsError when the push failed as a whole (network, auth) rather than per ref
   */
  async pushRefs(
    refs: readonly { ref: string; sha: string; expected: string | null }[],
  ): Promise<Map<string, true | GitOpsError>> {
    const args = ['push', '--porcelain', '--no-verify'];
    for (const r of refs) args.push(`--force-with-lease=refs/heads/${r.ref}:${r.expected ?? ''}`);
    args.push('origin', ...refs.map((r) => `${r.sha}:refs/heads/${r.ref}`));
    this.counters.pushes++;
    const before = this.heads;
    this.forgetHeads(); // the push moves the remote-tracking refs of the refs it updated
    const res = await this.spawnGit('push', args, '');
    const stdout = res.stdout.toString('utf8');
    const lines = new Map(parsePushPorcelain(stdout).map((l) => [l.ref, l]));
    const out = new Map<string, true | GitOpsError>();
    const whole = this.redact(`${res.stderr}\n${stdout}`.trim());
    // What the server's hooks said (`remote: error: GH006: Protected branch update failed …`):
    // a declined ref's message carries it, so the reason of the refusal can be told.
    const said = remoteLines(res.stderr);
    for (const r of refs) {
      const line = lines.get(`refs/heads/${r.ref}`);
      if (line?.ok) out.set(r.ref, true);
      else if (line)
        out.set(
          r.ref,
          new GitOpsError(
            line.kind!,
            'push',
            this.redact(
              `${r.ref}: ${line.summary}${/declined/i.test(line.summary) && said ? `: ${said}` : ''}`,
            ),
          ),
        );
      else if (res.code === 0) out.set(r.ref, true);
      else throw new GitOpsError(classifyGitError(whole), 'push', whole || `git exited with ${res.code}`);
    }
    // Every ref taken: the remote-tracking refs now point where this push put them (git updates
    // them on a successful push), so the heads are known without another `for-each-ref`.
    if (before && [...out.values()].every((r) => r === true)) {
      const heads = new Map(before);
      for (const r of refs) heads.set(r.ref, r.sha);
      this.heads = heads;
    }
    return out;
  }
}

/** The `remote: …` lines of git's stderr (what the server printed), joined with `; `; '' when none. */
function remoteLines(stderr: string): string {
  return stderr
    .split('\n')
    .map((l) => /^remote:\s*(.*\S)\s*$/.exec(l)?.[1])
    .filter((l): l is string => !!l)
    .join('; ');
}
