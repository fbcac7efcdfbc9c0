/**
 * The "ensure pull request" decision (after Renovate's `ensurePr`): find → compare the desired
 * hash → update | create | nothing | left closed by a person. Pure; both hosts (GitHub and the
 * plain git records) and write-back use it, so the rule exists once.
 */
import { withHashMarker } from '../change-sets/index.js';
import { pullRequestLabels } from './pr-host.js';
import type { ChangeSet, PullRequestInfo } from '../change-sets/index.js';

/** What to do about a change set's pull request. */
export type EnsureDecision =
  /** No PR, or only merged ones: open a new one. */
  | { action: 'create'; title: string; body: string; labels: string[] }
  /** An open PR whose title, body or labels differ: change only those. */
  | { action: 'update'; title?: string; body?: string; addLabels: string[] }
  /** An open PR that already says what the change set says. */
  | { action: 'nothing' }
  /**
   * A PR a person closed without merging, for the same desired state: neither reopened nor
   * recreated (Renovate's rule). A different desired hash opens a new PR.
   */
  | { action: 'closed-by-person' };

function normalise(text: string): string {
  return text.replace(/\r\n/g, '\n').trimEnd();
}

/**
 * Decides what to do with `found` (the open PR of the branch, else the newest closed or merged one,
 * else null) for change set `cs`. `compareLabels: false` for hosts without labels (plain git).
 * Bodies compare after normalising CRLF and trailing whitespace (GitHub stores what it was sent,
 * but editors in the web UI add `\r\n`). An open scale PR that proposes the same files (same
 * desired hash) keeps its body: it shows the utilisation the change was decided on, and real
 * utilisation moves every pass — rewriting it would spend a host write per open PR per pass and
 * change nothing a reviewer merges.
 */
export function decidePullRequest(
  found: PullRequestInfo | null,
  cs: ChangeSet,
  compareLabels = true,
): EnsureDecision {
  const body = withHashMarker(cs.body, cs.desiredHash);
  const labels = pullRequestLabels(cs);
  if (found?.state === 'closed' && found.desiredHash === cs.desiredHash)
    return { action: 'closed-by-person' };
  if (found?.state !== 'open') return { action: 'create', title: cs.title, body, labels };
  const update: { action: 'update'; title?: string; body?: string; addLabels: string[] } = {
    action: 'update',
    addLabels: compareLabels ? labels.filter((l) => !found.labels.includes(l)) : [],
  };
  if (found.title !== cs.title) update.title = cs.title;
  const sameProposal = cs.kind === 'scale' && found.desiredHash === cs.desiredHash;
  if (!sameProposal && normalise(found.body) !== normalise(body)) update.body = body;
  const changes = update.title !== undefined || update.body !== undefined || update.addLabels.length > 0;
  return changes ? update : { action: 'nothing' };
}
