/**
 * The GitHub pull-request host: octokit's `Octokit` (with its official retry and throttling
 * plugins) on github.com or GitHub Enterprise (`baseUrl`), through the typed `octokit.rest.*`
 * methods. Rate limits are waited out as GitHub asks
 * (https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api): a secondary
 * limit (403/429 "secondary rate limit") waits `retry-after` or, without it, 60 s; a 429 waits
 * `retry-after`; `x-ratelimit-remaining: 0` waits until `x-ratelimit-reset`. Each is retried a
 * bounded number of times, and only while the wait is at most `maxRateLimitWaitSeconds` (default
 * 60 s): a reset further away ends the call at once with a `rate-limited` PrHostError that says
 * `RateLimited until HH:MM:SS` (UTC), so a pass never hangs and the next pass tries again. A plain
 * 403 (no permission) is reported at once, never retried.
 */
import Bottleneck from 'bottleneck';
import { Octokit } from 'octokit';
import { retry } from '../retry/index.js';
import { branchPrefix, fitText, fitTitle, FULL_TEXT_AT } from '../change-sets/index.js';
import { ensureWithHost, type PullRequestCalls } from './ensure-with-host.js';
import { redact } from '../working-copy/index.js';
import {
  fromThisRepo,
  isRateLimited,
  plainRetryAfterSeconds,
  rateLimitResetAt,
  toInfo,
  utcClock,
  type ErrorLike,
} from './github-rest.js';
import {
  PrHostError,
  commentMarker,
  type CommentAction,
  type EnsureResult,
  type HostOptions,
  type PullRequestHost,
} from './pr-host.js';
import type { ChangeSet, PullRequestInfo } from '../change-sets/index.js';

/** A wait GitHub asked for, reported before it happens (or before gpuops declines to wait). */
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
export interface GitHubHostOptions extends HostOptions<RateLimitWait> {
  owner: string;
  repo: string;
  /** `GITHUB_TOKEN`. */
  token: string;
  /** API root; `https://api.github.com` or `https://ghe.example.com/api/v3`. */
  baseUrl?: string;
  /** Retries of a rate-limited request before it fails as `rate-limited`; default 3. */
  maxRateLimitRetries?: number;
  /**
   * gpuops's account (its comments' and pull requests' author), e.g. `gpuops-app[bot]`; default:
   * the token's, from `GET /user`. Only its comments count as gpuops's.
   */
  login?: string;
  /**
   * Pace writes as GitHub's best practices ask (1 s between writes, 3 s between requests that
   * notify: the throttling plugin's own groups); default true. Tests turn it off.
   */
  pacing?: boolean;
}

/** The GitHub host. See the module comment for the rate-limit rules. */
export class GitHubHost implements PullRequestHost {
  readonly name = 'github' as const;
  readonly recordsPullRequests = false;
  /** The octokit client (exposed for tests and for callers that need other endpoints). */
  readonly octokit: Octokit;
  private readonly o: GitHubHostOptions;
  /** Why GitHub refused labels (a 403), once it has: labels are then skipped, with a warning. */
  private labelsRefused: string | null = null;
  /** gpuops's own account on GitHub, once known (see {@link comment}). */
  private account: { login: string } | null = null;

  constructor(options: GitHubHostOptions) {
    this.o = options;
    const max = options.maxRateLimitRetries ?? 3;
    const maxWait = options.maxRateLimitWaitSeconds ?? 60;
    const ms = options.msPerSecond ?? 1000;
    const log = options.log;
    const decide = (wait: RateLimitWait): boolean => {
      const retry = wait.retryCount < max && wait.seconds <= maxWait;
      options.onWait?.(wait);
      log?.warn({ ...wait, retry }, 'GitHub rate limit');
      return retry;
    };
    const handler =
      (kind: RateLimitWait['kind']) =>
      (retryAfter: number, opts: { method: string; url: string }, _octokit: unknown, retryCount: number) =>
        decide({ kind, seconds: retryAfter, retryCount, method: opts.method, url: opts.url });
    const quiet = () => undefined;
    // Without pacing the plugin's write and notification groups are replaced by unpaced ones.
    const unpaced = () => new Bottleneck.Group({ maxConcurrent: 1, minTime: 0 });
    this.octokit = new Octokit({
      auth: options.token,
      baseUrl: options.baseUrl ?? 'https://api.github.com',
      userAgent: 'gpuops',
      log: { debug: quiet, info: quiet, warn: quiet, error: quiet },
      // 429 and 403 are left to the throttling plugin and to the retry-after hook below.
      retry: { doNotRetry: [400, 401, 403, 404, 410, 422, 429, 451], retries: 2, retryAfterBaseValue: ms },
      throttle: {
        retryAfterBaseValue: ms,
        onRateLimit: handler('primary'),
        onSecondaryRateLimit: handler('secondary'),
        ...(options.pacing === false ? { write: unpaced(), notifications: unpaced() } : {}),
      },
    });
    // A 429 with `retry-after` that is neither a secondary nor a primary limit: the throttling
    // plugin leaves it alone, so it is waited out here (outermost hook), within the same bound.
    // `decide` bounds the attempts (retry count and wait), as for the plugin's own limits.
    this.octokit.hook.wrap('request', (request, opts) => {
      let retryCount = 0;
      return retry(
        async (attempt) => {
          retryCount = attempt - 1;
          return await request(opts);
        },
        {
          attempts: Number.POSITIVE_INFINITY,
          retryable: (err) => {
            const seconds = plainRetryAfterSeconds(err as ErrorLike);
            return (
              seconds !== null &&
              decide({ kind: 'retry-after', seconds, retryCount, method: opts.method, url: opts.url })
            );
          },
          waitMs: (err) => (plainRetryAfterSeconds(err as ErrorLike) ?? 0) * ms,
        },
      );
    });
  }

  /** Maps an octokit error to a PrHostError naming the call; the token never appears. */
  private fail(what: string, err: unknown): PrHostError {
    if (err instanceof PrHostError) return err;
    const e = err as ErrorLike;
    const status = typeof e.status === 'number' ? e.status : null;
    const detail = redact(`${what}: ${status ?? ''} ${e.message ?? String(err)}`.replace(/\s+/g, ' '), [
      this.o.token,
    ]);
    if (status !== null && isRateLimited(e)) {
      const until = rateLimitResetAt(e, (this.o.now ?? (() => new Date()))());
      return new PrHostError(
        'rate-limited',
        status,
        `RateLimited until ${utcClock(until)} UTC (${detail})`,
        until,
      );
    }
    if (status === 401 || status === 403) return new PrHostError('permission', status, detail);
    if (status === 404) return new PrHostError('not-found', status, detail);
    if (status === 422) return new PrHostError('validation', status, detail);
    return new PrHostError('other', status, detail);
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

  /** `pulls.list` with `state=all&head=owner:head&base=base`: the open PR, else the newest. */
  async findPullRequest(head: string, base: string): Promise<PullRequestInfo | null> {
    const res = await this.call('list pull requests', () =>
      this.octokit.rest.pulls.list({
        ...this.repo,
        state: 'all',
        head: `${this.o.owner}:${head}`,
        base,
        sort: 'updated',
        direction: 'desc',
        per_page: 20,
      }),
    );
    const pulls = res.data.filter((p) => p.head.ref === head && p.base.ref === base && fromThisRepo(p));
    const pick = pulls.find((p) => p.state === 'open') ?? pulls[0];
    return pick ? toInfo(pick) : null;
  }

  /** `pulls.update` with `state: closed` and `note` as the body (no desired-hash marker). */
  async closeSuperseded(head: string, note: string): Promise<boolean> {
    const pr = await this.findPullRequest(head, this.o.base);
    if (!pr || pr.state !== 'open' || pr.number === null) return false;
    const number = pr.number;
    await this.call('close pull request', () =>
      this.octokit.rest.pulls.update({ ...this.repo, pull_number: number, state: 'closed', body: note }),
    );
    this.o.log?.info({ number, branch: head }, 'Closed superseded pull request');
    return true;
  }

  /**
   * Creates, updates (title, body, missing labels) or leaves the change set's PR; see
   * {@link decidePullRequest}. Title and body are kept inside GitHub's limits (256 and 65,536
   * characters; `buildChangeSet` already cuts its tables, this cut by lines is the last resort).
   * Labels are best effort: a label GitHub refuses (403 for a token that may not create labels,
   * wolfi-dev/os#49539) never fails the pull request; the result carries a warning.
   */
  async ensurePullRequest(changeSet: ChangeSet, found?: PullRequestInfo | null): Promise<EnsureResult> {
    const cs = {
      ...changeSet,
      title: fitTitle(changeSet.title),
      body: fitText(changeSet.body, FULL_TEXT_AT),
    };
    return ensureWithHost(this.calls(), cs, found);
  }

  /** GitHub's calls of {@link ensureWithHost}. */
  private calls(): PullRequestCalls {
    return {
      noun: 'pull request',
      find: (branch) => this.findPullRequest(branch, this.o.base),
      create: async (head, title, body) => {
        const res = await this.octokit.rest.pulls.create({
          ...this.repo,
          title,
          head,
          base: this.o.base,
          body,
        });
        return { number: res.data.number, url: res.data.html_url };
      },
      // Someone (another gpuops replica, a person) opened it between our lookup and our create.
      raced: (err) => {
        const e = err as ErrorLike;
        return e.status === 422 && /already exists/i.test(JSON.stringify(e.response?.data ?? e.message));
      },
      failed: (err) => this.fail('create pull request', err),
      edit: async (number, patch) => {
        await this.call('update pull request', () =>
          this.octokit.rest.pulls.update({ ...this.repo, pull_number: number, ...patch }),
        );
      },
      addLabels: (number, labels) => this.addLabels(number, labels),
      ...(this.o.log ? { log: this.o.log } : {}),
    };
  }

  /**
   * Adds labels, best effort: any refusal becomes a warning, never an error (the pull request
   * exists and is the change). After a 403 the host adds no more labels for its lifetime (the
   * token's permissions do not change between passes; a restart tries again) and says so.
   */
  private async addLabels(number: number, labels: string[]): Promise<{ warnings?: string[] }> {
    if (labels.length === 0) return {};
    const names = labels.join(', ');
    if (this.labelsRefused !== null)
      return { warnings: [`labels ${names} not added to #${number}: ${this.labelsRefused}`] };
    try {
      await this.call('add labels', () =>
        this.octokit.rest.issues.addLabels({ ...this.repo, issue_number: number, labels }),
      );
      return {};
    } catch (err) {
      const e = err as PrHostError;
      if (e.kind === 'permission') this.labelsRefused = `${e.message} (not tried again until restart)`;
      this.o.log?.warn({ number, labels, err: e.message }, 'Could not add labels; pull request kept');
      return { warnings: [`labels ${names} not added to #${number}: ${e.message}`] };
    }
  }

  /**
   * Posts a comment unless one of gpuops's own with the same hidden marker exists. Only comments
   * by gpuops's account count: anyone can paste gpuops's marker into a comment of theirs to keep
   * gpuops quiet. The account is `login` when set, else the token's (`GET /user`), else — a GitHub
   * App installation token, which `GET /user` refuses — any Bot account until gpuops's first
   * comment names its own (a person's account is never a Bot).
   */
  async comment(number: number, body: string): Promise<CommentAction> {
    const marker = commentMarker(body);
    if (marker) {
      const comments = await this.call('list comments', () =>
        this.octokit.paginate(this.octokit.rest.issues.listComments, {
          ...this.repo,
          issue_number: number,
          per_page: 100,
        }),
      );
      const own = await this.ownAccount();
      const mine = (c: { user?: { login?: string; type?: string } | null }) =>
        own.login !== null ? c.user?.login === own.login : c.user?.type === 'Bot';
      if (comments.some((c) => mine(c) && commentMarker(c.body ?? '') === marker)) return 'unchanged';
    }
    const text = fitText(body, 'the whole text is in the log of gpuops');
    const res = await this.call('comment', () =>
      this.octokit.rest.issues.createComment({ ...this.repo, issue_number: number, body: text }),
    );
    // The author of gpuops's own comment is its account, whatever the token is.
    if (res.data.user?.login) this.account = { login: res.data.user.login };
    return 'created';
  }

  /** gpuops's account: the `login` option, else `GET /user` once; `login: null` when GitHub will not say. */
  private async ownAccount(): Promise<{ login: string | null }> {
    if (this.account) return this.account;
    if (this.o.login) return (this.account = { login: this.o.login });
    try {
      const me = await this.octokit.rest.users.getAuthenticated();
      return (this.account = { login: me.data.login });
    } catch (err) {
      const e = this.fail('get the authenticated user', err);
      if (e.kind !== 'permission') throw e;
      this.o.log?.info(
        { err: e.message },
        'GitHub App token: gpuops counts Bot comments as its own until it comments',
      );
      return { login: null };
    }
  }

  /**
   * Open PRs whose head is a gpuops branch of this cluster in this repository: a pull request from
   * a fork whose branch is named like gpuops's is a person's, and never fills `maxOpen`.
   */
  async listOpen(): Promise<PullRequestInfo[]> {
    const prefix = branchPrefix(this.o.cluster);
    const pulls = await this.call('list open pull requests', () =>
      this.octokit.paginate(this.octokit.rest.pulls.list, { ...this.repo, state: 'open', per_page: 100 }),
    );
    return pulls.filter((p) => p.head.ref.startsWith(prefix) && fromThisRepo(p)).map(toInfo);
  }
}

export { parseGitHubRepo, rateLimitResetAt, utcClock } from './github-rest.js';
