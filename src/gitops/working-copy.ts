/**
 * The git working copy of the GitOps repo: the only module that imports `simple-git`. It clones or
 * fetches into a cache folder, reads the base branch, and writes change sets as commits on gpuops
 * branches (or, in patch mode, on the base branch) following the rules people rely on (Renovate,
 * Flux image automation, Argo CD Image Updater): no commit when nothing changed, never a force-push
 * over a commit gpuops did not author, a rejected push is fetched, re-applied and pushed again.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join, posix } from 'node:path';
import { simpleGit, type SimpleGit } from 'simple-git';
import { GitOpsError, classifyGitError, redact } from './git-errors.js';
import type {
  ApplyOptions,
  ApplyOutcome,
  ChangeSet,
  FileChange,
  ForeignCommit,
  PlannedFile,
} from './types.js';

/** Name and e-mail gpuops commits with; commits by anyone else on a gpuops branch are a person's. */
export interface GitAuthor {
  name: string;
  email: string;
}

/** The default gpuops author. */
export const DEFAULT_AUTHOR: GitAuthor = { name: 'gpuops', email: 'gpuops@users.noreply.local' };

/** Options of {@link WorkingCopy.open}. */
export interface WorkingCopyOptions {
  /** `file://…`, a path, `https://…` or `ssh://…`. Never put a token in it: use `token`. */
  repoUrl: string;
  /** Base branch, e.g. `main`. */
  baseBranch: string;
  /** Cache folder of the clone; created when absent, fetched when present. */
  dir: string;
  /**
   * Token for HTTPS remotes (`GITHUB_TOKEN`). Sent as an `http.<origin>/.extraHeader` through
   * git's `GIT_CONFIG_*` environment, scoped to the remote's origin; never in the URL, the argv,
   * `.git/config` or any message.
   */
  token?: string;
  author?: GitAuthor;
  /** Attempts of a push (and of a fetch) before giving up; default 4. */
  maxAttempts?: number;
  /** Exponential backoff with jitter between attempts (milliseconds); default 500..8000. */
  backoff?: { baseMs: number; maxMs: number };
  /** Injected for tests. */
  sleep?: (ms: number) => Promise<void>;
  /** Injected for tests; 0..1. */
  random?: () => number;
}

/** Counters of what the working copy did (for metrics, logs and tests). */
export interface WorkingCopyCounters {
  fetches: number;
  commits: number;
  pushes: number;
}

const ZERO_SHA = /^0+$/;

function validatePath(path: string): void {
  const norm = posix.normalize(path);
  if (
    path === '' ||
    path.startsWith('/') ||
    path.includes('\\') ||
    norm !== path ||
    norm.startsWith('../') ||
    norm === '..' ||
    norm.split('/').includes('.git')
  ) {
    throw new Error(`change set file path ${JSON.stringify(path)}: must be a normalised repo-relative path`);
  }
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

/** A git working copy of the GitOps repo. Calls are serialised: one writer per repository. */
export class WorkingCopy {
  readonly baseBranch: string;
  readonly author: GitAuthor;
  readonly counters: WorkingCopyCounters = { fetches: 0, commits: 0, pushes: 0 };
  private readonly opts: WorkingCopyOptions;
  private readonly git: SimpleGit;
  private synced = false;
  /** The URL `origin` was last set to (skips `git remote set-url` when it did not change). */
  private originUrl: string | null = null;
  /**
   * Remote-tracking refs (`refs/remotes/origin/*` → commit) as one `for-each-ref` listed them after
   * the last fetch or push; null when they may have moved. Saves a process per ref read.
   */
  private remoteRefs: Map<string, string> | null = null;
  /** Files under a prefix at a commit: commits are immutable, so the answer never goes stale. */
  private readonly treeCache = new Map<string, Map<string, string>>();
  /** `ancestor..of` → whether `ancestor` is in the history of `of` (commit ids only). */
  private readonly ancestry = new Map<string, boolean>();
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(opts: WorkingCopyOptions) {
    this.opts = opts;
    this.baseBranch = opts.baseBranch;
    this.author = opts.author ?? DEFAULT_AUTHOR;
    this.git = simpleGit({
      baseDir: dirname(opts.dir),
      maxConcurrentProcesses: 1,
      unsafe: { allowUnsafeConfigEnvCount: true },
    }).env(this.env());
  }

  /**
   * Clones (or fetches, when the cache folder already holds a clone) and returns the working copy.
   * @throws GitOpsError (`auth`, `refused`, or `transient` after the last attempt)
   */
  static async open(opts: WorkingCopyOptions): Promise<WorkingCopy> {
    await mkdir(dirname(opts.dir), { recursive: true });
    const wc = new WorkingCopy(opts);
    await wc.sync();
    return wc;
  }

  /** The repo URL with any userinfo removed, safe to log. */
  get displayUrl(): string {
    return this.redact(this.opts.repoUrl);
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
    const origin = httpsOrigin(this.opts.repoUrl);
    if (this.opts.token && origin) {
      const basic = Buffer.from(`x-access-token:${this.opts.token}`).toString('base64');
      env.GIT_CONFIG_COUNT = '1';
      env.GIT_CONFIG_KEY_0 = `http.${origin}.extraheader`;
      env.GIT_CONFIG_VALUE_0 = `AUTHORIZATION: basic ${basic}`;
    }
    return env;
  }

  private redact(text: string): string {
    return redact(text, [this.opts.token]);
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Runs git in the clone (or, with `cwd: 'parent'`, next to it); failures become GitOpsError. */
  private async run(operation: string, args: string[], inParent = false): Promise<string> {
    const full = inParent ? args : ['-C', this.opts.dir, ...args];
    try {
      return await this.git.raw(full);
    } catch (err) {
      const text = this.redact(err instanceof Error ? err.message : String(err)).trim();
      throw new GitOpsError(classifyGitError(text), operation, text);
    }
  }

  private delay(attempt: number): number {
    const { baseMs, maxMs } = this.opts.backoff ?? { baseMs: 500, maxMs: 8000 };
    const capped = Math.min(maxMs, baseMs * 2 ** (attempt - 1));
    return Math.round(capped * (0.5 + 0.5 * (this.opts.random ?? Math.random)()));
  }

  private async pause(attempt: number): Promise<void> {
    const ms = this.delay(attempt);
    await (this.opts.sleep ?? ((t: number) => new Promise<void>((r) => setTimeout(r, t))))(ms);
  }

  private get maxAttempts(): number {
    return Math.max(1, this.opts.maxAttempts ?? 4);
  }

  /**
   * Clones when the cache folder is empty, else points `origin` at the URL and fetches every
   * branch (pruning deleted ones). Transient failures are retried with backoff.
   */
  sync(): Promise<void> {
    return this.serial(() => this.syncNow());
  }

  private async syncNow(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const known = this.remoteRefs;
      try {
        this.remoteRefs = null;
        if (!existsSync(join(this.opts.dir, '.git'))) {
          await rm(this.opts.dir, { recursive: true, force: true });
          await this.run(
            'clone',
            ['clone', '-q', '--no-tags', '-c', 'core.autocrlf=false', '--', this.opts.repoUrl, this.opts.dir],
            true,
          );
        } else {
          if (this.originUrl !== this.opts.repoUrl)
            await this.run('remote', ['remote', 'set-url', 'origin', this.opts.repoUrl]);
          this.originUrl = this.opts.repoUrl;
          if (known !== null && (await this.remoteUnmoved(known))) {
            this.remoteRefs = known;
            this.synced = true;
            return;
          }
          await this.run('fetch', [
            'fetch',
            '-q',
            '--prune',
            '--no-tags',
            'origin',
            '+refs/heads/*:refs/remotes/origin/*',
          ]);
        }
        this.counters.fetches++;
        this.synced = true;
        return;
      } catch (err) {
        if (!(err instanceof GitOpsError) || err.kind !== 'transient' || attempt >= this.maxAttempts)
          throw err;
        await this.pause(attempt);
      }
    }
  }

  /**
   * True when every branch of the remote points where the last fetch left it (one `ls-remote`, a
   * lighter process than a fetch and its maintenance): the fetch is then skipped.
   */
  private async remoteUnmoved(known: Map<string, string>): Promise<boolean> {
    const out = await this.run('ls-remote', ['ls-remote', '--heads', 'origin']);
    const heads = new Map<string, string>();
    for (const line of out.split('\n')) {
      const [sha, ref] = line.split('\t');
      if (sha && ref?.startsWith('refs/heads/')) heads.set(`refs/remotes/origin/${ref.slice(11)}`, sha);
    }
    const tracked = [...known].filter(([ref]) => ref !== 'refs/remotes/origin/HEAD');
    return tracked.length === heads.size && tracked.every(([ref, sha]) => heads.get(ref) === sha);
  }

  private async ensureSynced(): Promise<void> {
    if (!this.synced) await this.syncNow();
  }

  private async revParse(ref: string): Promise<string | null> {
    if (ref.startsWith('refs/remotes/origin/')) {
      if (this.remoteRefs === null) {
        const out = await this.run('for-each-ref', [
          'for-each-ref',
          '--format=%(objectname) %(refname)',
          'refs/remotes/origin/',
        ]);
        this.remoteRefs = new Map();
        for (const line of out.split('\n')) {
          const at = line.indexOf(' ');
          if (at > 0) this.remoteRefs.set(line.slice(at + 1), line.slice(0, at));
        }
      }
      return this.remoteRefs.get(ref) ?? null;
    }
    const out = (await this.run('rev-parse', ['for-each-ref', '--format=%(objectname)', ref])).trim();
    return out === '' ? null : (out.split('\n')[0] ?? null);
  }

  private async baseRef(): Promise<string> {
    const sha = await this.revParse(`refs/remotes/origin/${this.baseBranch}`);
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
  async baseHead(): Promise<string> {
    await this.ensureSynced();
    return this.baseRef();
  }

  /**
   * Where a branch of the remote stands, as last fetched: `absent` (no such branch), `merged` (its
   * head is contained in the base branch, e.g. a person merged it), or `ahead` (it holds commits
   * the base branch does not). The plain git provider has no PR API: this is how it sees a merge.
   */
  branchStatus(branch: string): Promise<'absent' | 'merged' | 'ahead'> {
    return this.serial(async () => {
      await this.ensureSynced();
      const head = await this.revParse(`refs/remotes/origin/${branch}`);
      if (head === null) return 'absent';
      return (await this.isAncestor(head, await this.baseRef())) ? 'merged' : 'ahead';
    });
  }

  /** Blob ids of the given paths (or of every file under `prefix`) at `ref`. */
  private async lsTree(ref: string, paths: string[]): Promise<Map<string, string>> {
    const out = await this.run('ls-tree', ['ls-tree', '-r', '-z', '--full-tree', ref, '--', ...paths]);
    const blobs = new Map<string, string>();
    for (const entry of out.split('\0')) {
      const m = /^\d+ blob ([0-9a-f]+)\t(.*)$/s.exec(entry);
      if (m) blobs.set(m[2]!, m[1]!);
    }
    return blobs;
  }

  /**
   * Contents of the given blobs (path → blob id), read through ONE `git cat-file --batch` process
   * (a process per blob cost ~10 ms each: 5,000 files took most of a pass).
   */
  private async readBlobs(blobs: Map<string, string>): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    if (blobs.size === 0) return out;
    const sorted = [...blobs].sort(([a], [b]) => (a < b ? -1 : 1));
    const data = await this.batch(
      'cat-file',
      ['-C', this.opts.dir, 'cat-file', '--batch'],
      [...new Set(blobs.values())].join('\n') + '\n',
    );
    const contents = new Map<string, string>();
    for (let at = 0; at < data.length;) {
      const eol = data.indexOf(10, at);
      if (eol < 0) break;
      const header = data.toString('latin1', at, eol).split(' ');
      if (header[1] !== 'blob')
        throw new GitOpsError('refused', 'cat-file', `cannot read ${header.join(' ')}`);
      const size = Number(header[2]);
      contents.set(header[0]!, data.toString('utf8', eol + 1, eol + 1 + size));
      at = eol + 1 + size + 1;
    }
    for (const [path, sha] of sorted) {
      const text = contents.get(sha);
      if (text === undefined) throw new GitOpsError('refused', 'cat-file', `blob ${sha} of ${path} not read`);
      out.set(path, text);
    }
    return out;
  }

  /** Runs git with `input` on its standard input and returns its standard output; failures become GitOpsError. */
  private batch(operation: string, args: string[], input: string): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const child = spawn('git', args, { env: this.env(), stdio: ['pipe', 'pipe', 'pipe'] });
      const chunks: Buffer[] = [];
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => chunks.push(c));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      child.on('error', (err) =>
        reject(new GitOpsError(classifyGitError(err.message), operation, this.redact(err.message))),
      );
      child.on('close', (code) => {
        if (code === 0) resolve(Buffer.concat(chunks));
        else {
          const text = this.redact(stderr.trim() || `git exited with ${code}`);
          reject(new GitOpsError(classifyGitError(text), operation, text));
        }
      });
      child.stdin.on('error', () => undefined); // a git that died early is reported on close
      child.stdin.end(input);
    });
  }

  /**
   * Every file under `prefix` (e.g. `clusters/prod/`, or `''` for the whole repo) at the head of the
   * base branch, as path → UTF-8 content. Syncs first when the working copy never fetched.
   */
  async readTree(prefix = ''): Promise<Map<string, string>> {
    await this.ensureSynced();
    const base = await this.baseRef();
    const key = `${base}:${prefix}`;
    const cached = this.treeCache.get(key);
    if (cached) return new Map(cached);
    const files = await this.readBlobs(await this.lsTree(base, prefix === '' ? [] : [prefix]));
    if (this.treeCache.size >= 16) this.treeCache.delete(this.treeCache.keys().next().value!);
    this.treeCache.set(key, files);
    return new Map(files);
  }

  /** Files of a change set that differ from `ref` (create, update or delete). */
  private async diffAt(ref: string, files: readonly FileChange[]): Promise<PlannedFile[]> {
    const current = await this.readBlobs(
      await this.lsTree(
        ref,
        files.map((f) => f.path),
      ),
    );
    const planned: PlannedFile[] = [];
    for (const f of files) {
      const now = current.get(f.path);
      if (f.content === null) {
        if (now !== undefined) planned.push({ path: f.path, change: 'delete' });
      } else if (now === undefined) {
        planned.push({ path: f.path, change: 'create' });
      } else if (now !== f.content) {
        planned.push({ path: f.path, change: 'update' });
      }
    }
    return planned;
  }

  /** Commits in `base..tip`, newest first. */
  private async commitsAhead(base: string, tip: string): Promise<ForeignCommit[]> {
    const out = await this.run('log', ['log', '--format=%H%x09%an%x09%ae', `${base}..${tip}`]);
    return out
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const [sha = '', author = '', email = ''] = line.split('\t');
        return { sha, author, email };
      });
  }

  private async isAncestor(ancestor: string, of: string): Promise<boolean> {
    const key = `${ancestor}..${of}`;
    const known = this.ancestry.get(key);
    if (known !== undefined) return known;
    const out = await this.run('rev-list', ['rev-list', '--count', `${of}..${ancestor}`]);
    const yes = out.trim() === '0';
    // Commit ids name immutable history: the answer holds for good (ids, not branch names, only).
    if (/^[0-9a-f]{40,64}$/.test(ancestor) && /^[0-9a-f]{40,64}$/.test(of)) {
      if (this.ancestry.size >= 256) this.ancestry.clear();
      this.ancestry.set(key, yes);
    }
    return yes;
  }

  /**
   * Writes one change set and pushes it. Pull-request mode writes `changeSet.branch`; patch mode
   * writes the base branch. The decision, in order:
   * 1. the gpuops branch holds a commit by another author → `person-commits`, nothing written;
   * 2. the branch was merged (its head is in the base branch) or `fresh` → rebuilt from the base
   *    branch head (a force-push, with a lease, only when the old commits are all gpuops's);
   * 3. the branch already has the desired files → `unchanged`, no commit, no push;
   * 4. else commit on the branch (or, when the branch is behind the base branch, on the base head)
   *    and push. A rejected push (someone pushed meanwhile) or a transient error: fetch, decide
   *    again from step 1 on the new heads, push again — at most `maxAttempts` times, with backoff.
   * @throws GitOpsError for `auth`/`refused` errors, and for any error after the last attempt
   * @throws Error for a file path that is not a normalised repo-relative path
   */
  apply(changeSet: ChangeSet, options: ApplyOptions): Promise<ApplyOutcome> {
    for (const f of changeSet.files) validatePath(f.path);
    return this.serial(async () => {
      await this.ensureSynced();
      for (let attempt = 1; ; attempt++) {
        try {
          return await this.applyOnce(changeSet, options, attempt);
        } catch (err) {
          const retry =
            err instanceof GitOpsError && (err.kind === 'non-fast-forward' || err.kind === 'transient');
          if (!retry || attempt >= this.maxAttempts) throw err;
          await this.pause(attempt);
          await this.syncNow();
        }
      }
    });
  }

  private async applyOnce(cs: ChangeSet, options: ApplyOptions, attempt: number): Promise<ApplyOutcome> {
    const base = await this.baseRef();
    const ref = options.mode === 'patch' ? this.baseBranch : cs.branch;
    const outcome = (
      status: ApplyOutcome['status'],
      files: PlannedFile[],
      extra: Partial<ApplyOutcome> = {},
    ) =>
      ({
        status,
        ref,
        commit: null,
        attempts: 0,
        startedAfresh: false,
        forced: false,
        files,
        personCommits: [],
        ...extra,
      }) as ApplyOutcome;

    let start = base;
    let lease: string | undefined;
    let startedAfresh = false;
    let files: PlannedFile[];
    if (options.mode === 'patch') {
      files = await this.diffAt(base, cs.files);
      if (files.length === 0) return outcome('unchanged', files);
    } else {
      const remote = await this.revParse(`refs/remotes/origin/${cs.branch}`);
      if (remote === null) {
        files = await this.diffAt(base, cs.files);
        if (files.length === 0) return outcome('in-base', files);
      } else {
        const ahead = await this.commitsAhead(base, remote);
        const foreign = ahead.filter((c) => c.email.toLowerCase() !== this.author.email.toLowerCase());
        if (foreign.length > 0) return outcome('person-commits', [], { personCommits: foreign });
        if (options.fresh || ahead.length === 0) {
          // Left behind by a merged or closed PR: start afresh from the base branch head.
          startedAfresh = true;
          files = await this.diffAt(base, cs.files);
          if (files.length === 0) return outcome('in-base', files, { startedAfresh });
          if (ahead.length > 0) lease = remote;
        } else {
          files = await this.diffAt(remote, cs.files);
          if (files.length === 0) return outcome('unchanged', files);
          if (await this.isAncestor(base, remote)) {
            start = remote;
          } else {
            // Behind the base branch: rebuild on its head rather than stack on an old base.
            files = await this.diffAt(base, cs.files);
            if (files.length === 0) return outcome('in-base', files);
            lease = remote;
            startedAfresh = true;
          }
        }
      }
    }
    if (options.dryRun) return outcome('would-push', files, { startedAfresh, forced: lease !== undefined });

    const commit = await this.commitOn(start, cs, files);
    await this.push(ref, lease);
    return outcome('pushed', files, {
      commit,
      attempts: attempt,
      startedAfresh,
      forced: lease !== undefined,
    });
  }

  private async commitOn(start: string, cs: ChangeSet, files: PlannedFile[]): Promise<string> {
    await this.run('checkout', ['checkout', '-q', '-f', '--detach', start]);
    await this.run('clean', ['clean', '-q', '-ffd']);
    for (const f of cs.files) {
      const abs = join(this.opts.dir, ...f.path.split('/'));
      if (f.content === null) {
        await rm(abs, { force: true });
      } else {
        await mkdir(dirname(abs), { recursive: true });
        await writeFile(abs, f.content, 'utf8');
      }
    }
    await this.run('add', ['add', '-A', '.']);
    const message = [
      cs.title,
      '',
      ...files.map((f) => `- ${f.change} ${f.path}`),
      '',
      `Gpuops-Subject: ${cs.kind}/${cs.subject}`,
      `Gpuops-Desired-Hash: ${cs.desiredHash}`,
    ].join('\n');
    await this.run('commit', ['-c', 'commit.gpgsign=false', 'commit', '-q', '--no-verify', '-m', message]);
    this.counters.commits++;
    return (await this.run('rev-parse', ['rev-parse', 'HEAD'])).trim();
  }

  /** Pushes HEAD to `ref`: a plain (fast-forward) push, or a force-push leased on the commit gpuops saw. */
  private async push(ref: string, lease: string | undefined): Promise<void> {
    const args = ['push', '-q', 'origin', `HEAD:refs/heads/${ref}`];
    if (lease !== undefined && !ZERO_SHA.test(lease))
      args.splice(2, 0, `--force-with-lease=refs/heads/${ref}:${lease}`);
    this.counters.pushes++;
    this.remoteRefs = null;
    await this.run('push', args);
  }
}
