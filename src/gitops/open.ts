/**
 * Builds the write-back adapters from connection settings (`GitOpsSettings`, a subset of `Settings`):
 * the working copy in a cache folder and the pull-request host of `provider`.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { GitOpsSettings } from '../config/settings.js';
import type { Store } from '../store/types.js';
import { GitHubHost, parseGitHubRepo } from './github-host.js';
import { GitPullRequestHost } from './git-host.js';
import type { PullRequestHost } from './pr-host.js';
import { splitRemoteUrl } from './remote-url.js';
import type { GitOpsLogger } from './types.js';
import { WorkingCopy, type GitAuthor } from './working-copy.js';

/**
 * Opens (clones or fetches) the working copy under `cacheDir` and builds the host.
 * @throws Error naming the setting when `--repo-url` is missing, or `--provider github` lacks
 *   `GITHUB_TOKEN` or an OWNER/NAME (`--github-repo`, or a GitHub remote URL)
 * @throws GitOpsError when the clone or fetch fails
 */
export async function openGitOps(
  settings: GitOpsSettings,
  deps: {
    store: Pick<Store, 'pullRequests' | 'upsertPullRequest'>;
    now: () => Date;
    cacheDir: string;
    author?: GitAuthor;
    log?: GitOpsLogger;
  },
): Promise<{ workingCopy: WorkingCopy; host: PullRequestHost }> {
  if (!settings.repoUrl) throw new Error('--repo-url: the GitOps repo remote is required');
  let host: PullRequestHost;
  const opened: { workingCopy?: WorkingCopy } = {};
  if (settings.provider === 'github') {
    const repo = parseGitHubRepo(settings.githubRepo, settings.repoUrl);
    if (!repo) throw new Error('--github-repo: OWNER/NAME is required when --repo-url is not a GitHub URL');
    if (!settings.githubToken) throw new Error('GITHUB_TOKEN: required with --provider github');
    host = new GitHubHost({
      ...repo,
      base: settings.branch,
      cluster: settings.cluster,
      token: settings.githubToken,
      baseUrl: settings.githubApiUrl,
      maxRateLimitWaitSeconds: Number(settings.githubRateLimitWaitSeconds ?? 60),
      log: deps.log,
    });
  } else {
    host = new GitPullRequestHost({
      store: deps.store,
      cluster: settings.cluster,
      base: settings.branch,
      now: deps.now,
      log: deps.log,
      // Records learn that a person merged (or deleted) a branch from the remote itself.
      branchStatus: (branch) => opened.workingCopy!.branchStatus(branch),
    });
  }
  // The cache folder is named after the URL without its credentials (WorkingCopy strips them too).
  const remote = splitRemoteUrl(settings.repoUrl).url;
  const workingCopy = (opened.workingCopy = await WorkingCopy.open({
    repoUrl: settings.repoUrl,
    baseBranch: settings.branch,
    // One clone per remote and base branch: two gpuops against two repos never share a clone.
    dir: join(
      deps.cacheDir,
      `gitops-${createHash('sha256').update(`${remote}#${settings.branch}`).digest('hex').slice(0, 12)}`,
    ),
    token: settings.githubToken,
    author: deps.author,
  }));
  return { workingCopy, host };
}

export type { GitOpsSettings };
