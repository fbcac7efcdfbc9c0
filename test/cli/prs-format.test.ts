/**
 * `gpuops prs` tables as a person reads them, whatever the host: GitLab's merge requests as `!7`
 * with their link, GitHub's and Gitea's pull requests as `#7`, branches of the plain git provider
 * as `(branch)`; the LINK column only when some row has a web address.
 */
import { describe, expect, it } from 'vitest';
import {
  formatPullRequestCycle,
  formatPullRequestHistory,
  formatPullRequests,
} from '../../src/cli/commands/prs.js';
import type { PullRequestCycle, PullRequestRecord } from '../../src/store/types.js';

const GITLAB_MR = 'https://gitlab.example.com/infra/gitops/-/merge_requests/7';
const GITEA_PR = 'https://gitea.example.com/infra/gitops/pulls/8';

function record(p: Partial<PullRequestRecord>): PullRequestRecord {
  return {
    cluster: 'prod',
    branch: 'gpuops/prod/placement/resnet50',
    kind: 'placement',
    subject: 'resnet50',
    title: 'gpuops(prod): place resnet50',
    body: '',
    desiredHash: 'h',
    number: null,
    url: null,
    state: 'open',
    updatedAt: '2026-01-01T00:00:00Z',
    ...p,
  };
}

/** The cells of each line, split on the table's two-space gaps. */
function cells(table: string): string[][] {
  return table
    .trimEnd()
    .split('\n')
    .map((line) => line.split(/ {2,}/));
}

describe('formatPullRequests', () => {
  it("shows GitLab's merge request as !iid with its link, and '—' for a row without one", () => {
    const rows = cells(
      formatPullRequests([
        record({ number: 7, url: GITLAB_MR }),
        record({ number: 8, url: GITEA_PR, branch: 'gpuops/prod/pools' }),
        record({ branch: 'gpuops/prod/scale/x' }),
      ]),
    );
    expect(rows[0]).toEqual(['STATE', 'KIND', 'SUBJECT', 'PR', 'BRANCH', 'UPDATED (UTC)', 'LINK', 'TITLE']);
    expect(rows.slice(1).map((r) => [r[3], r[6]])).toEqual([
      ['!7', GITLAB_MR],
      ['#8', GITEA_PR],
      ['(branch)', '—'],
    ]);
  });

  it('leaves the LINK column out when no row has a link', () => {
    const rows = cells(formatPullRequests([record({ number: 3 }), record({})]));
    expect(rows[0]).not.toContain('LINK');
    expect(rows.map((r) => r.length)).toEqual([7, 7, 7]);
    expect(rows.slice(1).map((r) => r[3])).toEqual(['#3', '(branch)']);
  });
});

describe('formatPullRequestHistory and formatPullRequestCycle', () => {
  const cycle: PullRequestCycle = {
    id: 4,
    cluster: 'prod',
    branch: 'gpuops/prod/placement/resnet50',
    kind: 'placement',
    subject: 'resnet50',
    title: 'gpuops(prod): place resnet50',
    body: 'the body',
    number: 7,
    url: GITLAB_MR,
    state: 'merged',
    openedAt: '2026-01-01T00:00:00Z',
    closedAt: '2026-01-02T00:00:00Z',
    updatedAt: '2026-01-02T00:00:00Z',
  };

  it('lists each cycle with !iid and its link', () => {
    const rows = cells(formatPullRequestHistory([cycle, { ...cycle, id: 5, url: null, number: null }]));
    expect(rows[0]).toContain('LINK');
    const link = rows[0]!.indexOf('LINK');
    const pr = rows[0]!.indexOf('PR');
    expect(rows.slice(1).map((r) => [r[pr], r[link]])).toEqual([
      ['!7', GITLAB_MR],
      ['(branch)', '—'],
    ]);
  });

  it('shows one merge request as !iid and its url', () => {
    const shown = formatPullRequestCycle(cycle).split('\n');
    expect(shown).toContain('number:  !7');
    expect(shown).toContain(`url:     ${GITLAB_MR}`);
  });
});
