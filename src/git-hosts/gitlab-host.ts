/**
 * The GitLab merge-request host: gitbeaker's typed `MergeRequests`, `MergeRequestNotes` and `Users`
 * resources (`@gitbeaker/rest`) on gitlab.com or a self-managed instance, the project by numeric id
 * or full path, every request through gpuops's retrying handler (`gitlab-requester.ts`: 429 and
 * 5xx waited as GitLab asks, bounded; see `host-fetch.ts`). It implements `PullRequestHost` as the
 * GitHub host does: one merge request per subject found again by its source branch, updated in
 * place, a person's close respected, labels best effort, gpuops's notes found by their author.
 * gpuops never merges: no approval, no merge, no "merge when pipeline succeeds" is ever requested.
 */
import { Gitlab } from '@gitbeaker/rest';
import { branchPrefix, fitText, fitTitle, FULL_TEXT_AT } from '../change-sets/index.js';
import { ensureWithHost, type PullRequestCalls } from './ensure-with-host.js';
import { answerError, networkError, retryingFetch, type HostWait } from './host-fetch.js';
import { gitlabRequester, GitLabAnswerError } from './gitlab-requester.js';
import {
  GITLAB_DESCRIPTION_MAX,
  GITLAB_NOTE_MAX,
  GITLAB_TITLE_MAX,
  fitLabel,
  fromThisProject,
  mergeRequestInfo,
  type RestMergeRequest,
} from './gitlab-rest.js';
import { LabelGuard } from './host-labels.js';
import {
  PrHostError,
  commentMarker,
  type CommentAction,
  type EnsureResult,
  type HostOptions,
  type PullRequestHost,
} from './pr-host.js';
import type { ChangeSet, PullRequestInfo } from '../change-sets/index.js';

/** Options of {@link GitLabHost}. */
export interface GitLabHostOptions extends HostOptions<HostWait> {
  /** The instance, e.g. `https://gitlab.com` or `https://gitlab.example.com` (gitbeaker adds `/api/v4`). */
  url: string;
  /** The project: numeric id, or full path `group/sub/name`. */
  project: string | number;
  /** A personal, group or project access token (`api` scope). */
  token: string;
  /** gpuops's account (username); default the token's, from `GET /user`. Only its notes count as gpuops's. */
  username?: string;
  /** Retries of one request (429, 5xx); default 3. */
  maxRetries?: number;
}

/** The GitLab host; see the module comment. */
export class GitLabHost implements PullRequestHost {
  readonly name = 'gitlab' as const;
  readonly recordsPullRequests = false;
  private readonly o: GitLabHostOptions;
  private readonly api: InstanceType<typeof Gitlab<false>>;
  private readonly labels: LabelGuard;
  private account: string | null = null;

  constructor(options: GitLabHostOptions) {
    this.o = options;
    const send = retryingFetch({
      maxRetries: options.maxRetries,
      maxWaitSeconds: options.maxRateLimitWaitSeconds,
      msPerSecond: options.msPerSecond,
      now: options.now,
      onWait: (w) => {
        options.onWait?.(w);
        options.log?.warn({ ...w }, 'GitLab asked to wait');
      },
    });
    this.api = new Gitlab({
      host: options.url.replace(/\/+$/, ''),
      token: options.token,
      requesterFn: gitlabRequester(send),
    } as ConstructorParameters<typeof Gitlab<false>>[0]);
    this.labels = new LabelGuard('!', options.log);
  }

  private async call<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof PrHostError) throw err;
      const now = (this.o.now ?? (() => new Date()))();
      if (err instanceof GitLabAnswerError)
        throw answerError(what, err.status, (n) => err.headers.get(n), err.body, [this.o.token], now);
      throw networkError(what, err, [this.o.token]);
    }
  }

  private get project(): string | number {
    return this.o.project;
  }

  /** `GET merge_requests?source_branch&target_branch` (every state), newest update first: the open one, else the newest. */
  async findPullRequest(head: string, base: string): Promise<PullRequestInfo | null> {
    const list = (await this.call('list merge requests', () =>
      this.api.MergeRequests.all({
        projectId: this.project,
        sourceBranch: head,
        targetBranch: base,
        orderBy: 'updated_at',
        sort: 'desc',
        perPage: 20,
        maxPages: 1,
      }),
    )) as unknown as RestMergeRequest[];
    const mine = list.filter(
      (m) => m.source_branch === head && m.target_branch === base && fromThisProject(m),
    );
    const pick = mine.find((m) => m.state === 'opened' || m.state === 'locked') ?? mine[0];
    return pick ? mergeRequestInfo(pick) : null;
  }

  /** `PUT merge_requests/:iid` with `state_event=close` and `note` as the description (no desired-hash marker). */
  async closeSuperseded(head: string, note: string): Promise<boolean> {
    const mr = await this.findPullRequest(head, this.o.base);
    if (!mr || mr.state !== 'open' || mr.number === null) return false;
    const iid = mr.number;
    await this.call('close merge request', () =>
      this.api.MergeRequests.edit(this.project, iid, { stateEvent: 'close', description: note }),
    );
    this.o.log?.info({ iid, branch: head }, 'Closed superseded merge request');
    return true;
  }

  /**
   * Creates, updates (title, description, missing labels) or leaves the change set's merge request
   * ({@link decidePullRequest}), with the title, description and labels cut to GitLab's limits
   * (`gitlab-rest.ts`) before they are compared, so a cut text is stable from pass to pass. A 409
   * "Another open merge request already exists" (another replica or a person opened it between the
   * lookup and the create) brings that one up to date instead.
   */
  async ensurePullRequest(changeSet: ChangeSet, found?: PullRequestInfo | null): Promise<EnsureResult> {
    const fitted = (changeSet.labels ?? []).map(fitLabel);
    const cs: ChangeSet = {
      ...changeSet,
      title: fitTitle(changeSet.title, GITLAB_TITLE_MAX),
      body: fitText(changeSet.body, FULL_TEXT_AT, GITLAB_DESCRIPTION_MAX - 200),
      ...(changeSet.labels ? { labels: fitted.map((f) => f.label) } : {}),
    };
    const notes = fitted.flatMap((f) => (f.note ? [f.note] : []));
    const withNotes = (r: EnsureResult): EnsureResult => {
      const warnings = [...notes, ...(r.warnings ?? [])];
      return warnings.length > 0 ? { ...r, warnings } : r;
    };
    return withNotes(await ensureWithHost(this.calls(), cs, found));
  }

  /** GitLab's calls of {@link ensureWithHost} (a merge request's number is its iid). */
  private calls(): PullRequestCalls {
    return {
      noun: 'merge request',
      find: (branch) => this.findPullRequest(branch, this.o.base),
      create: async (branch, title, description) => {
        const created = (await this.call('create merge request', () =>
          this.api.MergeRequests.create(this.project, branch, this.o.base, title, { description }),
        )) as unknown as RestMergeRequest;
        return { number: created.iid, url: created.web_url };
      },
      // "Another open merge request already exists for this source branch".
      raced: (err) => err instanceof PrHostError && err.status === 409,
      edit: async (iid, patch) => {
        await this.call('update merge request', () =>
          this.api.MergeRequests.edit(this.project, iid, {
            ...(patch.title !== undefined ? { title: patch.title } : {}),
            ...(patch.body !== undefined ? { description: patch.body } : {}),
          }),
        );
      },
      addLabels: (iid, labels) => this.addLabels(iid, labels),
      ...(this.o.log ? { log: this.o.log } : {}),
    };
  }

  /**
   * `PUT merge_requests/:iid` with `add_labels`, best effort ({@link LabelGuard}): a refusal is a
   * warning, never an error. GitLab creates a missing label only for an account that may (Planner
   * or Reporter and up) and otherwise leaves it off without an error; a label missing from the
   * answer is reported the same way.
   */
  private async addLabels(iid: number, labels: string[]): Promise<{ warnings?: string[] }> {
    return this.labels.add(iid, labels, async () => {
      const mr = (await this.call('add labels', () =>
        this.api.MergeRequests.edit(this.project, iid, { addLabels: labels.join(',') }),
      )) as unknown as RestMergeRequest;
      const have = new Set(mergeRequestInfo(mr).labels);
      return labels.filter((l) => !have.has(l));
    });
  }

  /**
   * Posts a note unless one of gpuops's own with the same hidden marker exists: only notes whose
   * author is gpuops's account (the `username` option, else `GET /user`) count, never system
   * notes, so a marker pasted by anyone else never silences gpuops.
   */
  async comment(number: number, body: string): Promise<CommentAction> {
    const marker = commentMarker(body);
    if (marker) {
      const notes = (await this.call('list notes', () =>
        this.api.MergeRequestNotes.all(this.project, number, { perPage: 100 }),
      )) as unknown as { body?: string; system?: boolean; author?: { username?: string } }[];
      const own = await this.ownAccount();
      const mine = notes.filter((n) => !n.system && n.author?.username === own);
      if (mine.some((n) => commentMarker(n.body ?? '') === marker)) return 'unchanged';
    }
    const text = fitText(body, 'the whole text is in the log of gpuops', GITLAB_NOTE_MAX);
    await this.call('create note', () => this.api.MergeRequestNotes.create(this.project, number, text));
    return 'created';
  }

  /** gpuops's account: the `username` option, else `GET /user` once. */
  async ownAccount(): Promise<string> {
    if (this.account !== null) return this.account;
    if (this.o.username) return (this.account = this.o.username);
    const me = (await this.call('get the current user', () =>
      this.api.Users.showCurrentUser(),
    )) as unknown as {
      username: string;
    };
    return (this.account = me.username);
  }

  /** Open merge requests from gpuops branches of this cluster in this project (forks left out), every page. */
  async listOpen(): Promise<PullRequestInfo[]> {
    const prefix = branchPrefix(this.o.cluster);
    const list = (await this.call('list open merge requests', () =>
      this.api.MergeRequests.all({ projectId: this.project, state: 'opened', perPage: 100 }),
    )) as unknown as RestMergeRequest[];
    return list.filter((m) => m.source_branch.startsWith(prefix) && fromThisProject(m)).map(mergeRequestInfo);
  }
}
