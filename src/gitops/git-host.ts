/**
 * The plain git pull-request "host" (any remote without a PR API; the embedded default): the
 * branch is the pull request, and its title, body, desired hash and state are recorded through
 * the Store, where `gpuops prs` shows them.
 */
import type { Store, PullRequestRecord } from '../store/types.js';
import { branchPrefix } from './branch-name.js';
import { withHashMarker } from './pr-body.js';
import type { CommentAction, EnsureResult, PullRequestHost } from './pr-host.js';
import type { ChangeSet, GitOpsLogger, PullRequestInfo } from './types.js';

/** Options of {@link GitPullRequestHost}. */
export interface GitHostOptions {
  store: Pick<Store, 'pullRequests' | 'upsertPullRequest'>;
  cluster: string;
  /** Base branch the branches are proposed against. */
  base: string;
  /** Clock for `updatedAt`. */
  now: () => Date;
  log?: GitOpsLogger;
}

function toInfo(r: PullRequestRecord, base: string): PullRequestInfo {
  return {
    number: r.number,
    url: r.url,
    head: r.branch,
    base,
    state: r.state,
    title: r.title,
    body: r.body,
    labels: [],
    desiredHash: r.desiredHash,
  };
}

/** Branch-only host; see the module comment. */
export class GitPullRequestHost implements PullRequestHost {
  readonly name = 'git' as const;
  private readonly o: GitHostOptions;

  constructor(options: GitHostOptions) {
    this.o = options;
  }

  private async record(branch: string): Promise<PullRequestRecord | undefined> {
    return (await this.o.store.pullRequests(this.o.cluster)).find((r) => r.branch === branch);
  }

  /** The recorded branch, whatever its state (records have no base; `base` is echoed). */
  async findPullRequest(head: string, base: string): Promise<PullRequestInfo | null> {
    const r = await this.record(head);
    return r ? toInfo(r, base) : null;
  }

  /** Records title, body and hash when they differ from the record; `skipped-closed` as on GitHub. */
  async ensurePullRequest(cs: ChangeSet, found?: PullRequestInfo | null): Promise<EnsureResult> {
    const r = await this.record(cs.branch);
    const current = found === undefined ? (r ? toInfo(r, this.o.base) : null) : found;
    if (current?.state === 'closed' && current.desiredHash === cs.desiredHash) {
      return { action: 'skipped-closed', number: null, url: null };
    }
    const body = withHashMarker(cs.body, cs.desiredHash);
    const same =
      r !== undefined &&
      r.state === 'open' &&
      r.title === cs.title &&
      r.body === body &&
      r.desiredHash === cs.desiredHash &&
      r.kind === cs.kind &&
      r.subject === cs.subject;
    if (same) return { action: 'unchanged', number: null, url: null };
    await this.o.store.upsertPullRequest({
      cluster: this.o.cluster,
      branch: cs.branch,
      kind: cs.kind,
      subject: cs.subject,
      title: cs.title,
      body,
      desiredHash: cs.desiredHash,
      number: null,
      url: null,
      state: 'open',
      updatedAt: this.o.now().toISOString(),
    });
    return { action: r?.state === 'open' ? 'updated' : 'created', number: null, url: null };
  }

  /** Plain git has nowhere to comment; the message is logged. */
  async comment(number: number, body: string): Promise<CommentAction> {
    this.o.log?.warn({ number, body }, 'No pull-request API to comment on; comment logged only');
    return 'unsupported';
  }

  /** Recorded open branches of this cluster. */
  async listOpen(): Promise<PullRequestInfo[]> {
    const prefix = branchPrefix(this.o.cluster);
    return (await this.o.store.pullRequests(this.o.cluster))
      .filter((r) => r.state === 'open' && r.branch.startsWith(prefix))
      .map((r) => toInfo(r, this.o.base));
  }
}
