/**
 * The Gitea and Forgejo pull-request host, over a thin client of the eight endpoints it uses
 * (`gitea-rest.ts` says where the API differs from GitHub's) and the same retrying fetch as the
 * GitLab host (`host-fetch.ts`: 429/5xx, `Retry-After`, backoff, bounded). It fits
 * `PullRequestHost` without a special case: one pull request per subject found again by its head
 * branch, updated in place, a person's close respected, labels best effort (looked up by name,
 * created when missing, added by id), gpuops's comments found by their author. gpuops never merges.
 */
import { branchPrefix, fitTitle } from '../change-sets/index.js';
import { ensureWithHost, type PullRequestCalls } from './ensure-with-host.js';
import { answerError, networkError, retryingFetch, type HostWait } from './host-fetch.js';
import { LabelGuard } from './host-labels.js';
import {
  GITEA_PAGE_SIZE,
  GITEA_TITLE_MAX,
  giteaFromThisRepo,
  giteaPullInfo,
  type RestGiteaPull,
} from './gitea-rest.js';
import {
  PrHostError,
  commentMarker,
  type CommentAction,
  type EnsureResult,
  type HostOptions,
  type PullRequestHost,
} from './pr-host.js';
import type { ChangeSet, PullRequestInfo } from '../change-sets/index.js';

/** Options of {@link GiteaHost}. */
export interface GiteaHostOptions extends HostOptions<HostWait> {
  /** The instance, e.g. `https://gitea.example.com` or `https://codeberg.org` (`/api/v1` is added). */
  url: string;
  owner: string;
  repo: string;
  /** An access token (scopes `write:repository`, `write:issue`, `read:user`). */
  token: string;
  /** gpuops's account (login); default the token's, from `GET /user`. */
  username?: string;
  /** Colour of a label gpuops creates; default `#6f42c1`. */
  labelColor?: string;
  /** Retries of one request (429, 5xx); default 3. */
  maxRetries?: number;
}

/** Pages read at most for one list (50 items each): 2,500 pull requests. */
const MAX_PAGES = 50;

/** The Gitea/Forgejo host; see the module comment. */
export class GiteaHost implements PullRequestHost {
  readonly name = 'gitea' as const;
  readonly recordsPullRequests = false;
  private readonly o: GiteaHostOptions;
  private readonly send: (request: Request) => Promise<Response>;
  private readonly labels: LabelGuard;
  private account: string | null = null;

  constructor(options: GiteaHostOptions) {
    this.o = options;
    this.send = retryingFetch({
      maxRetries: options.maxRetries,
      maxWaitSeconds: options.maxRateLimitWaitSeconds,
      msPerSecond: options.msPerSecond,
      now: options.now,
      onWait: (w) => {
        options.onWait?.(w);
        options.log?.warn({ ...w }, 'Gitea asked to wait');
      },
    });
    this.labels = new LabelGuard('#', options.log);
  }

  /** One request; the answer's JSON and headers. @throws PrHostError naming `what` */
  private async req<T>(
    what: string,
    method: string,
    path: string,
    o: { query?: Record<string, string | number>; body?: unknown } = {},
  ): Promise<{ data: T; headers: Headers }> {
    const url = new URL(`${this.o.url.replace(/\/+$/, '')}/api/v1${path}`);
    for (const [k, v] of Object.entries(o.query ?? {})) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = {
      authorization: `token ${this.o.token}`,
      accept: 'application/json',
    };
    if (o.body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await this.send(
        new Request(url, {
          method,
          headers,
          ...(o.body !== undefined ? { body: JSON.stringify(o.body) } : {}),
        }),
      );
    } catch (err) {
      throw networkError(what, err, [this.o.token]);
    }
    const text = await response.text();
    let data: unknown = text;
    try {
      data = text === '' ? null : JSON.parse(text);
    } catch {
      // Not JSON (a proxy's page): the text is the message.
    }
    if (!response.ok) {
      const now = (this.o.now ?? (() => new Date()))();
      throw answerError(what, response.status, (n) => response.headers.get(n), data, [this.o.token], now);
    }
    return { data: data as T, headers: response.headers };
  }

  /** Every page of a list (`page`/`limit`, `X-Total-Count`), or until `stop` holds for an item. */
  private async all<T>(
    what: string,
    path: string,
    query: Record<string, string>,
    stop?: (item: T) => boolean,
  ): Promise<T[]> {
    const out: T[] = [];
    for (let page = 1; page <= MAX_PAGES; page++) {
      const { data, headers } = await this.req<T[]>(what, 'GET', path, {
        query: { ...query, page, limit: GITEA_PAGE_SIZE },
      });
      out.push(...data);
      if (stop && data.some(stop)) break;
      const total = Number(headers.get('x-total-count'));
      if (data.length === 0 || (Number.isFinite(total) && out.length >= total)) break;
    }
    return out;
  }

  private get repoPath(): string {
    return `/repos/${encodeURIComponent(this.o.owner)}/${encodeURIComponent(this.o.repo)}`;
  }

  /**
   * The open pull request of `head` into `base` (the open list, every page), else the most recently
   * updated closed or merged one (closed pulls newest first, until the first match). Gitea's list
   * has no `head` filter.
   */
  async findPullRequest(head: string, base: string): Promise<PullRequestInfo | null> {
    const ours = (p: RestGiteaPull) => p.head.ref === head && p.base.ref === base && giteaFromThisRepo(p);
    const path = `${this.repoPath}/pulls`;
    const open = await this.all<RestGiteaPull>(
      'list pull requests',
      path,
      { state: 'open', sort: 'recentupdate' },
      ours,
    );
    const found =
      open.find(ours) ??
      (
        await this.all<RestGiteaPull>(
          'list pull requests',
          path,
          { state: 'closed', sort: 'recentupdate' },
          ours,
        )
      ).find(ours);
    return found ? giteaPullInfo(found) : null;
  }

  /** `PATCH pulls/{index}` with `state: closed` and `note` as the body (no desired-hash marker). */
  async closeSuperseded(head: string, note: string): Promise<boolean> {
    const pr = await this.findPullRequest(head, this.o.base);
    if (!pr || pr.state !== 'open' || pr.number === null) return false;
    await this.req('close pull request', 'PATCH', `${this.repoPath}/pulls/${pr.number}`, {
      body: { state: 'closed', body: note },
    });
    this.o.log?.info({ number: pr.number, branch: head }, 'Closed superseded pull request');
    return true;
  }

  /**
   * Creates, updates (title, body, missing labels) or leaves the change set's pull request
   * ({@link decidePullRequest}); the title cut to 255 characters before it is compared. A 409 (an
   * open pull request of the same branches appeared since the lookup) brings that one up to date.
   */
  async ensurePullRequest(changeSet: ChangeSet, found?: PullRequestInfo | null): Promise<EnsureResult> {
    const cs: ChangeSet = { ...changeSet, title: fitTitle(changeSet.title, GITEA_TITLE_MAX) };
    return ensureWithHost(this.calls(), cs, found);
  }

  /** Gitea's calls of {@link ensureWithHost}. */
  private calls(): PullRequestCalls {
    return {
      noun: 'pull request',
      find: (branch) => this.findPullRequest(branch, this.o.base),
      create: async (head, title, body) => {
        const created = (
          await this.req<RestGiteaPull>('create pull request', 'POST', `${this.repoPath}/pulls`, {
            body: { head, base: this.o.base, title, body },
          })
        ).data;
        return { number: created.number, url: created.html_url };
      },
      raced: (err) => err instanceof PrHostError && err.status === 409,
      edit: async (number, patch) => {
        await this.req('update pull request', 'PATCH', `${this.repoPath}/pulls/${number}`, { body: patch });
      },
      addLabels: (number, labels) => this.addLabels(number, labels),
      ...(this.o.log ? { log: this.o.log } : {}),
    };
  }

  /**
   * Labels by id, best effort ({@link LabelGuard}): the repository's labels are listed, a missing
   * one is created (`POST labels`, which needs write access to issues), then all are added.
   */
  private async addLabels(number: number, labels: string[]): Promise<{ warnings?: string[] }> {
    return this.labels.add(number, labels, async () => {
      const known = await this.all<{ id: number; name: string }>(
        'list labels',
        `${this.repoPath}/labels`,
        {},
      );
      const ids = new Map(known.map((l) => [l.name, l.id]));
      for (const name of labels.filter((l) => !ids.has(l))) {
        const made = await this.req<{ id: number }>('create label', 'POST', `${this.repoPath}/labels`, {
          body: { name, color: this.o.labelColor ?? '#6f42c1' },
        });
        ids.set(name, made.data.id);
      }
      await this.req('add labels', 'POST', `${this.repoPath}/issues/${number}/labels`, {
        body: { labels: labels.map((l) => ids.get(l)!) },
      });
      return [];
    });
  }

  /**
   * Posts a comment unless one of gpuops's own (author = gpuops's account) with the same hidden
   * marker exists. Gitea returns an issue's comments in one answer (no pages).
   */
  async comment(number: number, body: string): Promise<CommentAction> {
    const marker = commentMarker(body);
    if (marker) {
      const { data } = await this.req<{ body?: string; user?: { login?: string } }[]>(
        'list comments',
        'GET',
        `${this.repoPath}/issues/${number}/comments`,
      );
      const own = await this.ownAccount();
      if (data.some((c) => c.user?.login === own && commentMarker(c.body ?? '') === marker))
        return 'unchanged';
    }
    await this.req('comment', 'POST', `${this.repoPath}/issues/${number}/comments`, { body: { body } });
    return 'created';
  }

  /** gpuops's account: the `username` option, else `GET /user` once. */
  async ownAccount(): Promise<string> {
    if (this.account !== null) return this.account;
    if (this.o.username) return (this.account = this.o.username);
    const { data } = await this.req<{ login: string }>('get the current user', 'GET', '/user');
    return (this.account = data.login);
  }

  /** Open pull requests from gpuops branches of this cluster in this repository (forks left out), every page. */
  async listOpen(): Promise<PullRequestInfo[]> {
    const prefix = branchPrefix(this.o.cluster);
    const open = await this.all<RestGiteaPull>('list open pull requests', `${this.repoPath}/pulls`, {
      state: 'open',
    });
    return open.filter((p) => p.head.ref.startsWith(prefix) && giteaFromThisRepo(p)).map(giteaPullInfo);
  }
}
