/**
 * The one "ensure pull request" sequence the forges share (GitHub, GitLab, Gitea/Forgejo): find →
 * {@link decidePullRequest} → create, update or leave; and when the create is refused because an
 * open pull request of the same branches appeared since the lookup (another gpuops replica or a
 * person opened it), bring that one up to date instead of failing. Each host supplies only its own
 * calls ({@link PullRequestCalls}); the order, the race rule and the result are written once.
 */
import { decidePullRequest, type EnsureDecision } from './ensure-pull-request.js';
import type { EnsureResult } from './pr-host.js';
import type { ChangeSet, GitOpsLogger, PullRequestInfo } from '../change-sets/index.js';

/** The edits of an open pull request {@link decidePullRequest} asks for. */
export type PullRequestUpdate = Extract<EnsureDecision, { action: 'update' }>;

/** What one host does for {@link ensureWithHost}; every call throws the host's own error. */
export interface PullRequestCalls {
  /** `pull request` or `merge request`: the word of the host's log lines. */
  noun: string;
  /** The open pull request of `branch`, else its newest closed or merged one, else null. */
  find(branch: string): Promise<PullRequestInfo | null>;
  /** Opens the pull request of `branch`; returns its number (GitLab: the iid) and web URL. */
  create(branch: string, title: string, body: string): Promise<{ number: number; url: string }>;
  /**
   * True when `err` (thrown by {@link create}) says an open pull request of the same branches
   * exists now: GitHub's 422 "A pull request already exists", GitLab's and Gitea's 409.
   */
  raced(err: unknown): boolean;
  /** The error a failed create is thrown as (default: `err` as it is). */
  failed?(err: unknown): unknown;
  /** Changes the title and/or body of pull request `number` (only the fields given). */
  edit(number: number, patch: { title?: string; body?: string }): Promise<void>;
  /** Adds labels, best effort: a refusal is a warning, never an error. */
  addLabels(number: number, labels: string[]): Promise<{ warnings?: string[] }>;
  log?: GitOpsLogger;
}

/**
 * Creates, updates or leaves `cs`'s pull request ({@link decidePullRequest} on `found`, or on what
 * {@link PullRequestCalls.find} returns when `found` is undefined). `cs` must already be cut to the
 * host's limits, so a cut text compares equal from pass to pass.
 * @throws the host's error of a failed call; a raced create whose existing pull request is not open
 *   (or needs nothing it can change) is thrown as the create's error
 */
export async function ensureWithHost(
  calls: PullRequestCalls,
  cs: ChangeSet,
  found?: PullRequestInfo | null,
): Promise<EnsureResult> {
  const pr = found === undefined ? await calls.find(cs.branch) : found;
  const decision = decidePullRequest(pr, cs);
  switch (decision.action) {
    case 'closed-by-person':
      return { action: 'closed-by-person', number: pr!.number, url: pr!.url };
    case 'nothing':
      return { action: 'unchanged', number: pr!.number, url: pr!.url };
    case 'update':
      return updateWithHost(calls, pr!, decision);
    case 'create':
      break;
  }
  let created: { number: number; url: string };
  try {
    created = await calls.create(cs.branch, decision.title, decision.body);
  } catch (err) {
    if (calls.raced(err)) {
      const existing = await calls.find(cs.branch);
      if (existing?.state === 'open') {
        const again = decidePullRequest(existing, cs);
        if (again.action === 'nothing')
          return { action: 'unchanged', number: existing.number, url: existing.url };
        if (again.action === 'update') return updateWithHost(calls, existing, again);
      }
    }
    throw calls.failed ? calls.failed(err) : err;
  }
  calls.log?.info({ number: created.number, branch: cs.branch }, `Created ${calls.noun}`);
  const warnings = await calls.addLabels(created.number, decision.labels);
  return { action: 'created', number: created.number, url: created.url, ...warnings };
}

/**
 * Edits the title and body of open pull request `pr` where `d` says, then adds its missing labels.
 * `updated` when anything changed; `unchanged` when only labels were to be added and the host took
 * none (the pull request is as it was; the warnings say why).
 */
export async function updateWithHost(
  calls: PullRequestCalls,
  pr: PullRequestInfo,
  d: PullRequestUpdate,
): Promise<EnsureResult> {
  const number = pr.number!;
  const edits = d.title !== undefined || d.body !== undefined;
  if (edits) {
    await calls.edit(number, {
      ...(d.title !== undefined ? { title: d.title } : {}),
      ...(d.body !== undefined ? { body: d.body } : {}),
    });
  }
  const warnings = await calls.addLabels(number, d.addLabels);
  const action = edits || !warnings.warnings ? 'updated' : 'unchanged';
  return { action, number, url: pr.url, ...warnings };
}
