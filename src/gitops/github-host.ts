/**
 * The GitHub pull-request host: octokit's `Octokit` (with its retry and throttling plugins) on
 * github.com or GitHub Enterprise (`baseUrl`). Rate limits are waited out as GitHub asks
 * (https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api): a secondary
 * limit (403/429 "secondary rate limit") waits `retry-after` or, without it, 60 s; a 429 waits
 * `retry-after`; `x-ratelimit-remaining: 0` waits until `x-ratelimit-reset`. Each is retried a
 * bounded number of times. A plain 403 (no permission) is reported at once, never retried.
 */
import { Octokit } from 'octokit';
import { branchPrefix } from './branch-name.js';
import { redact } from './git-errors.js';
import { parseDesiredHash, withHashMarker } from './pr-body.js';
import {
  PrHostError,
  commentMarker,
  pullRequestLabels,
  type CommentAction,
  type EnsureResult,
  type PullRequestHost,
} from './pr-host.js';
import type { ChangeSet, GitOpsLogger, PullRequestInfo } from './types.js';

/** A wait GitHub asked for, reported before it happens. */
export interface RateLimitWait {
  /** `secondary`: secondary rate limit; `primary`: `x-ratelimit-remaining: 0`; `retry-after`: a 429. */
  kind: 'secondary' | 'primary' | 'retry-after';
  /** Seconds GitHub asked to wait. */
  seconds: number;
  /** 0-based retry count of the request. */
  retryCount: number;
  method: string;
  url: string;
}

/** Options of {@link GitHubHost}. */
export interface GitHubHostOptions {
  owner: string;
  repo: string;
  /** Base branch of the pull requests. */
  base: string;
  /** Cluster whose gpuops branches `listOpen` returns. */
  cluster: string;
  /** `GITHUB_TOKEN`. */
  token: string;
  /** API root; `https://api.github.com` or `https://ghe.example.com/api/v3`. */
  baseUrl?: string;
  /** Retries of a rate-limited request before it fails as `rate-limited`; default 3. */
  maxRateLimitRetries?: number;
  /** Milliseconds waited per second GitHub asks for; default 1000 (tests use 1). */
  msPerSecond?: number;
  /**
   * Pace writes as GitHub's best practices ask (1 s between writes, 3 s between requests that
   * notify); default true. Tests turn it off.
   */
  pacing?: boolean;
  /** Called before every rate-limit wait. */
  onWait?: (wait: RateLimitWait) => void;
  log?: GitOpsLogger;
}

interface RestPull {
  number: number;
  html_url: string;
  state: string;
  merged_at: string | null;
  title: string;
  body: string | null;
  head: { ref: string };
  base: { ref: string };
  labels: { name?: string }[];
  updated_at: string;
}

interface ErrorLike {
  status?: number;
  message?: string;
  response?: { headers?: Record<string, string | undefined>; data?: unknown };
  request?: { method?: string; url?: string };
}

/** A Bottleneck group stand-in that runs jobs at once (no pacing). */
const NO_PACING = {
  key: () => ({
    schedule: (...args: unknown[]) => {
      const fns = args.filter((a): a is (...x: unknown[]) => unknown => typeof a === 'function');
      const fn = fns[0]!;
      return Promise.resolve(fn(...args.slice(args.indexOf(fn) + 1)));
    },
  }),
};

function normalise(text: string | null | undefined): string {
  return (text ?? '').replace(/\r\n/g, '\n').trimEnd();
}

function toInfo(pr: RestPull): PullRequestInfo {
  return {
    number: pr.number,
    url: pr.html_url,
    head: pr.head.ref,
    base: pr.base.ref,
    state: pr.state === 'open' ? 'open' : pr.merged_at ? 'merged' : 'closed',
    title: pr.title,
    body: pr.body ?? '',
    labels: pr.labels.map((l) => l.name ?? '').filter(Boolean),
    desiredHash: parseDesiredHash(pr.body),
  };
}

function isRateLimited(e: ErrorLike): boolean {
  const h = e.response?.headers ?? {};
  return (
    e.status === 429 ||
    (e.status === 403 &&
      (/secondary rate|rate limit/i.test(e.message ?? '') || h['x-ratelimit-remaining'] === '0'))
  );
}

/** The GitHub host. See the module comment for the rate-limit rules. */
export class GitHubHost implements PullRequestHost {
  readonly name = 'github' as const;
  /** The octokit client (exposed for tests and for callers that need other endpoints). */
  readonly octokit: Octokit;
  private readonly o: GitHubHostOptions;

  constructor(options: GitHubHostOptions) {
    this.o = options;
    const max = options.maxRateLimitRetries ?? 3;
    const ms = options.msPerSecond ?? 1000;
    const log = options.log;
    const handler =
      (kind: RateLimitWait['kind']) =>
      (retryAfter: number, opts: { method: string; url: string }, _octokit: unknown, retryCount: number) => {
        const wait = { kind, seconds: retryAfter, retryCount, method: opts.method, url: opts.url };
        options.onWait?.(wait);
        log?.warn({ ...wait, retry: retryCount < max }, 'GitHub rate limit');
        return retryCount < max;
      };
    const quiet = () => undefined;
    this.octokit = new Octokit({
      auth: options.token,
      baseUrl: options.baseUrl ?? 'https://api.github.com',
      userAgent: 'gpuops',
      log: { debug: quiet, info: quiet, warn: quiet, error: quiet },
      // 429 and 403 are left to the throttling plugin and to the retry-after hook below.
      retry: { doNotRetry: [400, 401, 403, 404, 410, 422, 429, 451], retries: 2, retryAfterBaseValue: ms },
      throttle: {
        retryAfterBaseValue: ms,
        onRateLimit: handler('primary') as never,
        onSecondaryRateLimit: handler('secondary') as never,
        ...(options.pacing === false ? { write: NO_PACING as never, notifications: NO_PACING as never } : {}),
      },
    });
    // A 429 with `retry-after` that is neither a secondary nor a primary limit: the throttling
    // plugin does not handle it, so wait what GitHub asks here (outermost hook).
    this.octokit.hook.wrap('request', async (request, opts) => {
      for (let retryCount = 0; ; retryCount++) {
        try {
          return await request(opts);
        } catch (err) {
          const e = err as ErrorLike;
          const h = e.response?.headers ?? {};
          const seconds = Number(h['retry-after']);
          const handled = /secondary rate/i.test(e.message ?? '') || h['x-ratelimit-remaining'] === '0';
          if (e.status !== 429 || handled || !Number.isFinite(seconds) || retryCount >= max) throw err;
          const wait: RateLimitWait = {
            kind: 'retry-after',
            seconds,
            retryCount,
            method: opts.method,
            url: opts.url,
          };
          options.onWait?.(wait);
          log?.warn({ ...wait }, 'GitHub rate limit');
          await new Promise((r) => setTimeout(r, seconds * ms));
        }
      }
    });
  }

  /** Maps an octokit error to a PrHostError naming the call; the token never appears. */
  private fail(what: string, err: unknown): PrHostError {
    const e = err as ErrorLike;
    const status = typeof e.status === 'number' ? e.status : null;
    const message = redact(`${what}: ${status ?? ''} ${e.message ?? String(err)}`.replace(/\s+/g, ' '), [
      this.o.token,
    ]);
    if (status !== null && isRateLimited(e)) return new PrHostError('rate-limited', status, message);
    if (status === 401 || status === 403) return new PrHostError('permission', status, message);
    if (status === 404) return new PrHostError('not-found', status, message);
    if (status === 422) return new PrHostError('validation', status, message);
    return new PrHostError('other', status, message);
  }

  private async call<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw this.fail(what, err);
    }
  }

  private get repo(): { owner: string; repo: string } {
    return { owner: this.o.owner, repo: this.o.repo };
  }

  /** `GET /repos/{owner}/{repo}/pulls?state=all&head=owner:head&base=base`: the open PR, else the newest. */
  async findPullRequest(head: string, base: string): Promise<PullRequestInfo | null> {
    const res = await this.call('list pull requests', () =>
      this.octokit.request('GET /repos/{owner}/{repo}/pulls', {
        ...this.repo,
        state: 'all',
        head: `${this.o.owner}:${head}`,
        base,
        sort: 'updated',
        direction: 'desc',
        per_page: 20,
      }),
    );
    const pulls = (res.data as unknown as RestPull[]).filter(
      (p) => p.head.ref === head && p.base.ref === base,
    );
    const pick = pulls.find((p) => p.state === 'open') ?? pulls[0];
    return pick ? toInfo(pick) : null;
  }

  /** Creates, updates (title, body, missing labels) or leaves the change set's PR; see {@link PullRequestHost}. */
  async ensurePullRequest(cs: ChangeSet, found?: PullRequestInfo | null): Promise<EnsureResult> {
    const pr = found === undefined ? await this.findPullRequest(cs.branch, this.o.base) : found;
    if (pr?.state === 'open') return this.update(pr, cs);
    if (pr?.state === 'closed' && pr.desiredHash === cs.desiredHash) {
      return { action: 'skipped-closed', number: pr.number, url: pr.url };
    }
    const body = withHashMarker(cs.body, cs.desiredHash);
    let created: RestPull;
    try {
      const res = await this.octokit.request('POST /repos/{owner}/{repo}/pulls', {
        ...this.repo,
        title: cs.title,
        head: cs.branch,
        base: this.o.base,
        body,
      });
      created = res.data as unknown as RestPull;
    } catch (err) {
      const e = err as ErrorLike;
      if (e.status === 422 && /already exists/i.test(JSON.stringify(e.response?.data ?? e.message))) {
        // Someone (another gpuops replica, a person) opened it between our lookup and our create.
        const existing = await this.findPullRequest(cs.branch, this.o.base);
        if (existing?.state === 'open') return this.update(existing, cs);
      }
      throw this.fail('create pull request', err);
    }
    await this.addLabels(created.number, pullRequestLabels(cs));
    this.o.log?.info({ number: created.number, branch: cs.branch }, 'Created pull request');
    return { action: 'created', number: created.number, url: created.html_url };
  }

  private async update(pr: PullRequestInfo, cs: ChangeSet): Promise<EnsureResult> {
    const number = pr.number!;
    const body = withHashMarker(cs.body, cs.desiredHash);
    const patch: { title?: string; body?: string } = {};
    if (pr.title !== cs.title) patch.title = cs.title;
    if (normalise(pr.body) !== normalise(body)) patch.body = body;
    let changed = false;
    if (Object.keys(patch).length > 0) {
      await this.call('update pull request', () =>
        this.octokit.request('PATCH /repos/{owner}/{repo}/pulls/{pull_number}', {
          ...this.repo,
          pull_number: number,
          ...patch,
        }),
      );
      changed = true;
    }
    const missing = pullRequestLabels(cs).filter((l) => !pr.labels.includes(l));
    if (missing.length > 0) {
      await this.addLabels(number, missing);
      changed = true;
    }
    return { action: changed ? 'updated' : 'unchanged', number, url: pr.url };
  }

  private async addLabels(number: number, labels: string[]): Promise<void> {
    if (labels.length === 0) return;
    await this.call('add labels', () =>
      this.octokit.request('POST /repos/{owner}/{repo}/issues/{issue_number}/labels', {
        ...this.repo,
        issue_number: number,
        labels,
      }),
    );
  }

  /** Posts a comment unless one with the same hidden marker exists. */
  async comment(number: number, body: string): Promise<CommentAction> {
    const marker = commentMarker(body);
    if (marker) {
      const res = await this.call('list comments', () =>
        this.octokit.request('GET /repos/{owner}/{repo}/issues/{issue_number}/comments', {
          ...this.repo,
          issue_number: number,
          per_page: 100,
        }),
      );
      if ((res.data as { body?: string }[]).some((c) => (c.body ?? '').includes(marker))) return 'unchanged';
    }
    await this.call('comment', () =>
      this.octokit.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', {
        ...this.repo,
        issue_number: number,
        body,
      }),
    );
    return 'created';
  }

  /** Open PRs whose head is a gpuops branch of this cluster. */
  async listOpen(): Promise<PullRequestInfo[]> {
    const prefix = branchPrefix(this.o.cluster);
    const pulls = await this.call('list open pull requests', () =>
      this.octokit.paginate('GET /repos/{owner}/{repo}/pulls', {
        ...this.repo,
        state: 'open',
        per_page: 100,
      }),
    );
    return (pulls as unknown as RestPull[]).filter((p) => p.head.ref.startsWith(prefix)).map(toInfo);
  }
}

/** `OWNER/NAME` from `--github-repo`, or from an https/ssh GitHub remote URL. Null when neither tells. */
export function parseGitHubRepo(
  githubRepo: string | undefined,
  repoUrl: string | undefined,
): { owner: string; repo: string } | null {
  const src = githubRepo ?? '';
  let m = /^([\w.-]+)\/([\w.-]+)$/.exec(src);
  if (!m && repoUrl && /^(https?:\/\/|ssh:\/\/|[\w.-]+@[\w.-]+:)/.test(repoUrl)) {
    m = /[/:]([\w.-]+)\/([\w.-]+?)(?:\.git)?\/?$/.exec(repoUrl);
  }
  return m ? { owner: m[1]!, repo: m[2]! } : null;
}
