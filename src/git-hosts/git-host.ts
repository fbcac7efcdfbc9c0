/**
 * The plain git pull-request "host" (any remote without a PR API; the embedded default): the
 * branch is the pull request, and its title, body, desired hash and state are recorded through
 * the Store, where `gpuops prs` shows them.
 */
import type { Store, PullRequestRecord } from '../store/index.js';
import { branchPrefix, withHashMarker } from '../change-sets/index.js';
import { decidePullRequest } from './ensure-pull-request.js';
import type { CommentAction, EnsureResult, PullRequestHost } from './pr-host.js';
import type { ChangeSet, GitOpsLogger, PullRequestInfo } from '../change-sets/index.js';

/** Options of {@link GitPullRequestHost}. */
export interface GitHostOptions {
  store: Pick<Store, 'pullRequests' | 'upsertPullRequest' | 'pullRequest'>;
  cluster: string;
  /** Base branch the branches are proposed against. */
  base: string;
  /** Clock for `updatedAt`. */
  now: () => Date;
  log?: GitOpsLogger;
  /**
   * Where a branch stands on the remote (the working copy's `branchStatus`): a recorded open
   * branch whose head is in the base branch was merged by a person; one that is gone was closed.
   * Without it, records stay as written.
   */
  branchStatus?: (branch: string) => Promise<'absent' | 'merged' | 'ahead'>;
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
  readonly recordsPullRequests = true;
  private readonly o: GitHostOptions;

  constructor(options: GitHostOptions) {
    this.o = options;
  }

  private async record(branch: string): Promise<PullRequestRecord | undefined> {
    // The one branch's row where the store reads it alone (each change set asks twice a pass).
    const { store, cluster } = this.o;
    const r = (await store.pullRequest(cluster, branch)) ?? undefined;
    return r ? this.observed(r) : undefined;
  }

  /** The record with the state the remote shows now: an open branch merged into base, or deleted. */
  private async observed(r: PullRequestRecord): Promise<PullRequestRecord> {
    if (r.state !== 'open' || !this.o.branchStatus) return r;
    const status = await this.o.branchStatus(r.branch);
    if (status === 'merged') return { ...r, state: 'merged' };
    if (status === 'absent') return { ...r, state: 'closed' };
    return r;
  }

  /**
   * Writes the observed state (merged, closed) of every recorded open branch to the store, so
   * `gpuops prs` and the open-PR limit see what people did. Returns how many records changed.
   * A write: callers skip it in dry-run.
   */
  async refresh(): Promise<number> {
    let changed = 0;
    for (const r of await this.o.store.pullRequests(this.o.cluster)) {
      const seen = await this.observed(r);
      if (seen.state === r.state) continue;
      await this.o.store.upsertPullRequest({ ...seen, updatedAt: this.o.now().toISOString() });
      changed++;
    }
    return changed;
  }

  /**
   * Records the open branch's PR as closed with `note` as its body and no desired hash (so it is
   * not taken for a person's close). The branch stays on the remote; the next change set for the
   * subject starts it afresh from the base branch, as after any closed PR.
   */
  async closeSuperseded(head: string, note: string): Promise<boolean> {
    const r = await this.record(head);
    if (!r || r.state !== 'open') return false;
    await this.o.store.upsertPullRequest({
      ...r,
      state: 'closed',
      body: note,
      desiredHash: '',
      updatedAt: this.o.now().toISOString(),
    });
    return true;
  }

  /** The recorded branch, whatever its state (records have no base; `base` is echoed). */
  async findPullRequest(head: string, base: string): Promise<PullRequestInfo | null> {
    const r = await this.record(head);
    return r ? toInfo(r, base) : null;
  }

  /**
   * Records title, the whole body (`fullBody` when the change set's body was cut) and hash when
   * they differ from the record; see {@link decidePullRequest}.
   */
  async ensurePullRequest(changeSet: ChangeSet, found?: PullRequestInfo | null): Promise<EnsureResult> {
    // The records are the pull requests: they keep the whole body, never the one cut for GitHub.
    const cs = { ...changeSet, body: changeSet.fullBody ?? changeSet.body };
    const r = await this.record(cs.branch);
    const current = found === undefined ? (r ? toInfo(r, this.o.base) : null) : found;
    const decision = decidePullRequest(current, cs, false);
    if (decision.action === 'closed-by-person')
      return { action: 'closed-by-person', number: null, url: null };
    // The record also names kind and subject; a record that names others is rewritten.
    const sameRecord =
      r !== undefined && r.state === 'open' && r.kind === cs.kind && r.subject === cs.subject;
    if (decision.action === 'nothing' && sameRecord && current?.state === 'open') {
      return { action: 'unchanged', number: null, url: null };
    }
    await this.o.store.upsertPullRequest({
      cluster: this.o.cluster,
      branch: cs.branch,
      kind: cs.kind,
      subject: cs.subject,
      title: cs.title,
      body: withHashMarker(cs.body, cs.desiredHash),
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
    const records = (await this.o.store.pullRequests(this.o.cluster)).filter(
      (r) => r.state === 'open' && r.branch.startsWith(prefix),
    );
    const seen = await Promise.all(records.map((r) => this.observed(r)));
    return seen.filter((r) => r.state === 'open').map((r) => toInfo(r, this.o.base));
  }
}
