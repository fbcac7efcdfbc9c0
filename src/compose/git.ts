/**
 * Builds the write-back adapters from connection settings (`GitOpsSettings`, a subset of `Settings`):
 * the working copy in a cache folder and the pull-request host of `provider`. `compose/compose.ts`
 * calls these; nothing else builds a host or a working copy from settings.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { GitOpsSettings } from '../config/index.js';
import type { Store } from '../store/index.js';
import {
  GitHubHost,
  parseGitHubRepo,
  GiteaHost,
  originOf,
  parseGiteaRepo,
  GitLabHost,
  parseGitLabProject,
  GitPullRequestHost,
} from '../git-hosts/index.js';
import type { PullRequestHost } from '../git-hosts/index.js';
import {
  splitRemoteUrl,
  storeLedger,
  type CommitLedger,
  WorkingCopy,
  type GitAuthor,
} from '../working-copy/index.js';
import type { GitOpsLogger } from '../change-sets/index.js';

/** What a pull-request host needs besides settings. */
export interface HostDeps {
  store: Pick<
    Store,
    'pullRequests' | 'pullRequest' | 'upsertPullRequest' | 'pushedCommits' | 'recordPushedCommits'
  >;
  /** Clock for record times (`updatedAt`). */
  now: () => Date;
  log?: GitOpsLogger;
  /**
   * Where a branch stands on the remote (the working copy's `branchStatus`): the plain git host's
   * records learn from it that a person merged or deleted a branch.
   */
  branchStatus?: (branch: string) => Promise<'absent' | 'merged' | 'ahead'>;
}

/**
 * The GitLab host of the settings: `--gitlab-url`, the project of `--gitlab-project` or of the
 * remote URL, the token of `GITLAB_TOKEN` or `--gitlab-token-file`.
 * @throws Error naming the setting that is missing
 */
function gitlabHost(settings: GitOpsSettings, deps: HostDeps): GitLabHost {
  const project = parseGitLabProject(settings.gitlabProject, settings.repoUrl);
  if (project === null)
    throw new Error(
      '--gitlab-project: a project id or group/name is required when --repo-url does not name it',
    );
  if (!settings.gitlabToken)
    throw new Error('GITLAB_TOKEN (or --gitlab-token-file): required with --provider gitlab');
  return new GitLabHost({
    url: settings.gitlabUrl ?? 'https://gitlab.com',
    project,
    base: settings.branch,
    cluster: settings.cluster,
    token: settings.gitlabToken,
    log: deps.log,
  });
}

/**
 * The Gitea/Forgejo host of the settings: `--gitea-url` (default the remote's scheme and host),
 * `--gitea-repo` (default the remote's OWNER/NAME), the token of `GITEA_TOKEN` or `--gitea-token-file`.
 * @throws Error naming the setting that is missing
 */
function giteaHost(settings: GitOpsSettings, deps: HostDeps): GiteaHost {
  const repo = parseGiteaRepo(settings.giteaRepo, settings.repoUrl);
  if (!repo) throw new Error('--gitea-repo: OWNER/NAME is required when --repo-url does not name it');
  const url = settings.giteaUrl ?? originOf(settings.repoUrl);
  if (!url) throw new Error('--gitea-url: required when --repo-url is not an https URL');
  if (!settings.giteaToken)
    throw new Error('GITEA_TOKEN (or --gitea-token-file): required with --provider gitea');
  return new GiteaHost({
    url,
    ...repo,
    base: settings.branch,
    cluster: settings.cluster,
    token: settings.giteaToken,
    log: deps.log,
  });
}

/**
 * The pull-request host of `settings.provider`: `github` (octokit), `gitlab` (gitbeaker), `gitea`
 * (Gitea and Forgejo) or `git` (records in the Store).
 * @throws Error naming the setting when the provider's token or repository is missing
 *   (`GITHUB_TOKEN` / `--github-repo`, `GITLAB_TOKEN` / `--gitlab-project`, `GITEA_TOKEN` / `--gitea-repo`)
 */
export function createPullRequestHost(settings: GitOpsSettings, deps: HostDeps): PullRequestHost {
  return hostedPullRequestHost(settings, deps) ?? gitPullRequestHost(settings, deps);
}

/** The host of a hosting provider (`github`, `gitlab`, `gitea`); null for `git`. @throws as {@link createPullRequestHost} */
function hostedPullRequestHost(
  settings: GitOpsSettings,
  deps: Omit<HostDeps, 'branchStatus'>,
): PullRequestHost | null {
  if (settings.provider === 'gitlab') return gitlabHost(settings, deps);
  if (settings.provider === 'gitea') return giteaHost(settings, deps);
  if (settings.provider === 'github') {
    const repo = parseGitHubRepo(settings.githubRepo, settings.repoUrl ?? '');
    if (!repo) throw new Error('--github-repo: OWNER/NAME is required when --repo-url is not a GitHub URL');
    if (!settings.githubToken) throw new Error('GITHUB_TOKEN: required with --provider github');
    return new GitHubHost({
      ...repo,
      base: settings.branch,
      cluster: settings.cluster,
      token: settings.githubToken,
      baseUrl: settings.githubApiUrl,
      maxRateLimitWaitSeconds: Number(settings.githubRateLimitWaitSeconds ?? 60),
      log: deps.log,
    });
  }
  return null;
}

/** `--provider git`: pull requests are records in the Store; `branchStatus` reads merges from the remote. */
function gitPullRequestHost(settings: GitOpsSettings, deps: HostDeps): PullRequestHost {
  return new GitPullRequestHost({
    store: deps.store,
    cluster: settings.cluster,
    base: settings.branch,
    now: deps.now,
    log: deps.log,
    ...(deps.branchStatus ? { branchStatus: deps.branchStatus } : {}),
  });
}

/** Throws unless `--repo-url` is set. @throws Error naming `--repo-url` */
export function requireRepoUrl(settings: Pick<GitOpsSettings, 'repoUrl'>): string {
  if (!settings.repoUrl) throw new Error('--repo-url: the GitOps repo remote is required');
  return settings.repoUrl;
}

/**
 * Opens (clones or fetches) the working copy of `--repo-url` at `--branch` in a folder of
 * `cacheDir`, recording the commits it pushes in `ledger` (`storeLedger(store)`), named after the remote without its credentials and the branch (one clone per remote
 * and base branch: two gpuops against two repos never share a clone).
 * @throws Error naming `--repo-url` when it is missing; GitOpsError when the clone or fetch fails
 */
export async function openWorkingCopy(
  settings: GitOpsSettings,
  deps: { cacheDir: string; author?: GitAuthor; ledger?: CommitLedger; beforePush?: () => void },
): Promise<WorkingCopy> {
  const repoUrl = requireRepoUrl(settings);
  const remote = splitRemoteUrl(repoUrl).url;
  return WorkingCopy.open({
    repoUrl,
    baseBranch: settings.branch,
    dir: join(
      deps.cacheDir,
      `gitops-${createHash('sha256').update(`${remote}#${settings.branch}`).digest('hex').slice(0, 12)}`,
    ),
    ...pushToken(settings),
    author: deps.author,
    ...(deps.ledger ? { ledger: deps.ledger } : {}),
    ...(deps.beforePush ? { beforePush: deps.beforePush } : {}),
  });
}

/** The token HTTPS pushes carry: the provider's (GitLab's as user `oauth2`), else `GITHUB_TOKEN`. */
function pushToken(settings: GitOpsSettings): { token?: string; tokenUser?: string } {
  if (settings.provider === 'gitlab' && settings.gitlabToken)
    return { token: settings.gitlabToken, tokenUser: 'oauth2' };
  if (settings.provider === 'gitea' && settings.giteaToken) return { token: settings.giteaToken };
  return settings.githubToken ? { token: settings.githubToken } : {};
}

/**
 * The Git side of a pass: the working copy (opened under `cacheDir` unless given) and the
 * pull-request host (built unless given). A hosting provider's missing token or repository is
 * refused before any clone; the `git` host is built after the working copy, whose remote tells
 * it that a person merged (or deleted) a branch.
 * @throws Error naming the setting when `--repo-url` is missing (and no working copy is given), or
 *   the provider lacks its token or repository (as {@link createPullRequestHost})
 * @throws GitOpsError when the clone or fetch fails
 */
export async function openGitOps(
  settings: GitOpsSettings,
  deps: Omit<HostDeps, 'branchStatus'> & {
    cacheDir: string;
    author?: GitAuthor;
    /** Checked before every push (`gpuops run`'s leader fence). */
    beforePush?: () => void;
    workingCopy?: WorkingCopy;
    host?: PullRequestHost;
  },
): Promise<{ workingCopy: WorkingCopy; host: PullRequestHost }> {
  if (!deps.workingCopy) requireRepoUrl(settings);
  const hosted = deps.host ?? hostedPullRequestHost(settings, deps);
  const workingCopy =
    deps.workingCopy ??
    (await openWorkingCopy(settings, {
      cacheDir: deps.cacheDir,
      author: deps.author,
      // gpuops knows its own commits by the ids recorded here, across restarts and replicas.
      ledger: storeLedger(deps.store),
      ...(deps.beforePush ? { beforePush: deps.beforePush } : {}),
    }));
  const host =
    hosted ?? gitPullRequestHost(settings, { ...deps, branchStatus: (b) => workingCopy.branchStatus(b) });
  return { workingCopy, host };
}

export type { GitOpsSettings };
