/**
 * The shapes of the git working copy (`working-copy.ts`): its options, author, counters, the
 * submodule entries it lists and the commits it builds. `working-copy.ts` re-exports them.
 */
import type { Backoff } from '../retry/index.js';
import type { CommitLedger } from './commit-ledger.js';
import type { FileChange } from '../change-sets/index.js';

/** Name and e-mail gpuops commits with (what a reader sees; gpuops knows its commits by their ids, `commit-ledger.ts`). */
export interface GitAuthor {
  name: string;
  email: string;
}

/** The default gpuops author. */
export const DEFAULT_AUTHOR: GitAuthor = { name: 'gpuops', email: 'gpuops@users.noreply.local' };

/** Options of `WorkingCopy.open`. */
export interface WorkingCopyOptions {
  /**
   * `file://…`, a path, `https://…` or `ssh://…`. Credentials inside an https URL
   * (`https://user:token@host/…`) are split off before git sees the URL and sent like `token`.
   */
  repoUrl: string;
  /** Base branch, e.g. `main`. */
  baseBranch: string;
  /** Cache folder of the clone; created when absent, fetched when present; locked while in use. */
  dir: string;
  /**
   * Token for HTTPS remotes (`GITHUB_TOKEN`). Sent as an `http.<origin>/.extraHeader` through
   * git's `GIT_CONFIG_*` environment, scoped to the remote's origin; never in the URL, the argv,
   * `.git/config` or any message. Credentials in `repoUrl` take its place for git.
   */
  token?: string;
  /**
   * User name sent with `token` (HTTP basic); default `x-access-token` (GitHub's). GitLab takes
   * `oauth2` for every kind of token; Gitea and Forgejo take any name when the password is a token.
   */
  tokenUser?: string;
  author?: GitAuthor;
  /** Attempts of a push (and of a fetch) before giving up; default 4. */
  maxAttempts?: number;
  /** Exponential backoff with jitter between attempts (milliseconds); default 500..8000. */
  backoff?: Backoff;
  /** Injected for tests (milliseconds). */
  sleep?: (ms: number) => Promise<void>;
  /** Injected for tests; 0..1. */
  random?: () => number;
  /**
   * Where the ids of the commits gpuops pushes are recorded (`storeLedger`: the Store, shared by
   * replicas and kept across restarts). Default: in memory, for this working copy's lifetime.
   */
  ledger?: CommitLedger;
  /** Longest wait for another process's lock on the clone cache, milliseconds; default 120,000. */
  lockTimeoutMs?: number;
  /**
   * Called right before every `git push`; when it throws, nothing is pushed and the push fails as
   * `refused` with its message (`gpuops run`: only the replica holding the leader Lease writes).
   */
  beforePush?: () => void;
}

/** Counters of what the working copy did (for metrics, logs, the bench and tests). */
export interface WorkingCopyCounters {
  fetches: number;
  commits: number;
  /** `git push` processes (one per pass and attempt, however many branches it carries). */
  pushes: number;
  /** Every git process spawned. */
  processes: number;
}

/** A submodule entry of a tree: its path and the commit of the other repository it pins. */
export interface GitlinkEntry {
  path: string;
  commit: string;
}

/** A commit to build: its parent (a sha, or the index of an earlier commit of the same stream). */
export interface CommitSpec {
  parent: string | { previous: number };
  message: string;
  files: readonly FileChange[];
}
