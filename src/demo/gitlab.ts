/**
 * The demo's GitLab stand-in (`gpuops demo --provider gitlab`): started with a project and a fresh
 * token, named to the settings as `--gitlab-url`, `--gitlab-project` and `GITLAB_TOKEN` would name
 * a self-managed GitLab, and read back at the end as the merge requests it holds.
 */
import { randomBytes } from 'node:crypto';
import { GitLabStandIn } from '../sim/index.js';
import type { DemoGitLab } from './deps.js';

/** A merge request on the demo's GitLab stand-in at the end. */
export interface DemoMergeRequest {
  iid: number;
  state: 'open' | 'closed' | 'merged';
  branch: string;
  title: string;
  url: string;
  labels: string[];
}

/** The demo's GitLab stand-in: project `demo/gitops`, a fresh token. */
export function startDemoGitLab(): Promise<GitLabStandIn> {
  return GitLabStandIn.start({
    projectPath: 'demo/gitops',
    token: `glpat-demo-${randomBytes(8).toString('hex')}`,
  });
}

/** How the settings name the stand-in: its URL, project and token. */
export function demoGitLabOf(gitlab: GitLabStandIn): DemoGitLab {
  return { url: gitlab.url, project: gitlab.projectPath, token: gitlab.token };
}

/** The merge requests of the GitLab stand-in, by iid. */
export function mergeRequestsOf(gitlab: GitLabStandIn): DemoMergeRequest[] {
  return gitlab.pulls
    .filter((p) => !p.fork)
    .map((p) => ({
      iid: p.number,
      state: p.state,
      branch: p.head,
      title: p.title,
      url: gitlab.webUrl(p.number),
      labels: [...p.labels],
    }));
}
