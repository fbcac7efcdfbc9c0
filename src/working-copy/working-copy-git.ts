/**
 * How the working copy (`working-copy.ts`) runs git: the environment every git process gets (a
 * fixed locale, the author, the token as an origin-scoped `http.<origin>.extraHeader` through
 * `GIT_CONFIG_*`, never in the URL or the argv), simple-git for the typed commands, a spawned git
 * for the batch plumbing (`cat-file --batch`, `fast-import`, `push --porcelain`), and failures
 * turned into a {@link GitOpsError} with every secret redacted. Counts each git process.
 */
import { spawn } from 'node:child_process';
import { dirname } from 'node:path';
import { simpleGit, type SimpleGit } from 'simple-git';
import { GitOpsError, classifyGitError, redact } from './git-errors.js';
import { localRemoteHeads } from './local-remote-heads.js';
import { splitRemoteUrl } from './remote-url.js';
import type { GitAuthor, WorkingCopyCounters, WorkingCopyOptions } from './working-copy-options.js';

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

/** Runs git for one working copy: its clone folder `dir`, its remote, its author. */
export class GitRunner {
  /** The remote URL without credentials: the only form git ever sees. */
  readonly url: string;
  /** simple-git in the parent folder of the clone (for `clone`). */
  readonly parent: SimpleGit;
  private readonly secrets: string[];
  private readonly extraHeader: string | null;
  private cloneGit: SimpleGit | null = null;

  constructor(
    private readonly opts: Pick<WorkingCopyOptions, 'repoUrl' | 'token' | 'tokenUser' | 'dir' | 'beforePush'>,
    readonly author: GitAuthor,
    readonly counters: WorkingCopyCounters,
  ) {
    const { url, credentials } = splitRemoteUrl(opts.repoUrl);
    this.url = url;
    const basic = credentials
      ? `${credentials.username}:${credentials.password}`
      : opts.token
        ? `${opts.tokenUser ?? 'x-access-token'}:${opts.token}`
        : null;
    const origin = httpsOrigin(url);
    this.extraHeader =
      basic && origin ? `AUTHORIZATION: basic ${Buffer.from(basic).toString('base64')}` : null;
    // A user name alone in an https URL is a token (`https://TOKEN@host/…`); with a password it is not.
    const userSecret = credentials && credentials.password === '' ? credentials.username : undefined;
    this.secrets = [opts.token, credentials?.password, userSecret, basic ?? undefined].filter(
      (x): x is string => !!x,
    );
    this.parent = this.simpleGit(dirname(opts.dir));
  }

  /**
   * Right before a push: the caller's check (`WorkingCopyOptions.beforePush`).
   * @throws GitOpsError (`refused`, not retried) with the check's message when it throws
   */
  beforePush(): void {
    try {
      this.opts.beforePush?.();
    } catch (err) {
      throw new GitOpsError('refused', 'push', err instanceof Error ? err.message : String(err));
    }
  }

  private simpleGit(baseDir: string): SimpleGit {
    return simpleGit({ baseDir, maxConcurrentProcesses: 1, unsafe: { allowUnsafeConfigEnvCount: true } })
      .env(this.env())
      .outputHandler(() => void this.counters.processes++);
  }

  /** simple-git in the clone folder (created on first use: the clone may not exist yet). */
  get repo(): SimpleGit {
    return (this.cloneGit ??= this.simpleGit(this.opts.dir));
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

  /** `text` with every secret of this remote (token, password, basic credentials) replaced. */
  redact(text: string): string {
    return redact(text, this.secrets);
  }

  /** A failure of `operation` as a GitOpsError, classified from its redacted message. */
  fail(operation: string, err: unknown): GitOpsError {
    const text = this.redact(err instanceof Error ? err.message : String(err)).trim();
    return new GitOpsError(classifyGitError(text), operation, text);
  }

  /** True when every branch of the remote points where the last fetch or push left it. */
  async remoteUnmoved(known: Map<string, string>): Promise<boolean> {
    // A remote on this machine: its ref files, read without a process (see local-remote-heads.ts).
    const local = await localRemoteHeads(this.url);
    if (local) return local.size === known.size && [...known].every(([b, sha]) => local.get(b) === sha);
    let out: string;
    try {
      out = await this.repo.listRemote(['--heads', 'origin']);
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

  /** Heads of the remote's branches as last fetched or pushed (its remote-tracking refs, one `for-each-ref`). */
  async trackingHeads(): Promise<Map<string, string>> {
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
    return heads;
  }

  /** The remote's branches (as last fetched) whose heads commit `base` contains, in one `for-each-ref --merged`. */
  async trackingMergedInto(base: string): Promise<Set<string>> {
    const out = await this.run('for-each-ref', [
      'for-each-ref',
      `--merged=${base}`,
      '--format=%(refname)',
      'refs/remotes/origin/',
    ]);
    return new Set(
      out
        .split('\n')
        .filter(Boolean)
        .map((r) => r.replace(/^refs\/remotes\/origin\//, '')),
    );
  }

  /** Runs a plumbing read simple-git has no typed command for (`for-each-ref`, `ls-tree`); failures become GitOpsError. */
  async run(operation: string, args: string[]): Promise<string> {
    try {
      return await this.repo.raw(args);
    } catch (err) {
      throw this.fail(operation, err);
    }
  }

  /** Spawns git with `input` on stdin; resolves with its exit code and output (never rejects on a non-zero exit). */
  spawn(
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
  async batch(operation: string, args: string[], input: string | Buffer): Promise<Buffer> {
    const r = await this.spawn(operation, args, input);
    if (r.code !== 0) {
      const text = this.redact(r.stderr.trim() || `git exited with ${r.code}`);
      throw new GitOpsError(classifyGitError(text), operation, text);
    }
    return r.stdout;
  }
}
