/**
 * Where pull requests go, behind one small interface (after Renovate's `Platform`): `github`
 * (octokit) or `git` (branches only, PR title/body/state recorded in the Store).
 */
import type { ChangeSet, GitOpsLogger, PullRequestInfo } from '../change-sets/index.js';

/**
 * What the options of every host with an API (GitHub, GitLab, Gitea/Forgejo) hold: where the pull
 * requests go, whose branches they list, the token, and how rate-limit waits are bounded and
 * reported. `W` is the wait the host reports (`RateLimitWait` for GitHub, `HostWait` for the others).
 */
export interface HostOptions<W> {
  /** Base (target) branch of the pull requests. */
  base: string;
  /** Cluster whose gpuops branches `listOpen` returns. */
  cluster: string;
  /** The access token; each host's options say the scopes it needs. */
  token: string;
  /**
   * Longest wait for one rate limit, seconds; default 60. A limit that resets later is not waited
   * for: the call fails as `rate-limited` with the reset time (a wait of exactly this long is taken).
   */
  maxRateLimitWaitSeconds?: number;
  /** Milliseconds waited per second the host asks for; default 1000 (tests use 1). */
  msPerSecond?: number;
  /** Called before every rate-limit wait, and for a wait longer than the bound. */
  onWait?: (wait: W) => void;
  /** Clock for the time a rate limit ends; default the system clock. */
  now?: () => Date;
  log?: GitOpsLogger;
}

/** What `ensurePullRequest` did. */
export type EnsureAction = 'created' | 'updated' | 'unchanged' | 'closed-by-person';

/** Result of `ensurePullRequest`. `number`/`url` are null with the plain git provider. */
export interface EnsureResult {
  action: EnsureAction;
  number: number | null;
  url: string | null;
  /** What the host would not do beside the pull request (labels it refused); absent when none. */
  warnings?: string[];
}

/** Result of `comment`: `unchanged` when a comment with the same hidden marker already exists. */
export type CommentAction = 'created' | 'unchanged' | 'unsupported';

/**
 * A pull-request host. Every method is idempotent: it reads first and writes only the difference.
 * Errors are `PrHostError`s.
 */
export interface PullRequestHost {
  /** `github`, `gitlab`, `gitea` (Gitea and Forgejo) or `git`. */
  readonly name: 'github' | 'gitlab' | 'gitea' | 'git';
  /**
   * Whether the host keeps the pull-request records in the Store itself (the plain git host: its
   * records are the pull requests). When false, write-back records what the host answered.
   */
  readonly recordsPullRequests: boolean;
  /**
   * Optional: brings the host's records up to date with what people did since (merged or deleted
   * a branch); returns how many records changed. A write: callers skip it in dry-run. Hosts that
   * ask an API on every call (GitHub) have none.
   */
  refresh?(): Promise<number>;
  /**
   * The pull request of `head` into `base`: the open one when there is one, else the most
   * recently updated closed or merged one, else null.
   */
  findPullRequest(head: string, base: string): Promise<PullRequestInfo | null>;
  /**
   * Makes the change set's pull request exist with its title, body (with the desired-hash marker)
   * and labels: creates it, updates only what differs, or does nothing. A PR a person closed
   * without merging whose desired hash equals the change set's is `closed-by-person`: neither
   * reopened nor recreated. `found` skips the lookup when the caller already did it.
   */
  ensurePullRequest(changeSet: ChangeSet, found?: PullRequestInfo | null): Promise<EnsureResult>;
  /**
   * Comments on a pull request. When `body` holds a hidden `<!-- gpuops:… -->` marker and a
   * comment with the same marker exists, nothing is posted (`unchanged`).
   */
  comment(number: number, body: string): Promise<CommentAction>;
  /** Open gpuops pull requests of this host's cluster (head branches under `gpuops/<cluster>/`). */
  listOpen(): Promise<PullRequestInfo[]>;
  /**
   * Closes the open pull request of `head` as superseded (gpuops' own close, not a person's): its
   * body becomes `note`, without the desired-hash marker, so the same desired state later opens a
   * new pull request instead of being "left closed". Returns false when no such PR is open.
   * Optional: a host without it leaves stale pull requests open.
   */
  closeSuperseded?(head: string, note: string): Promise<boolean>;
}

/** Why a host call failed: `permission` (403 without rate limiting), `rate-limited` (retries used up), `not-found`, `validation`, `other`. */
export type PrHostErrorKind = 'permission' | 'rate-limited' | 'not-found' | 'validation' | 'other';

/**
 * A failed host call, with the HTTP status when there was one; the message never holds a token.
 * `retryAt` is set for `rate-limited`: when the limit resets (the next pass tries again).
 */
export class PrHostError extends Error {
  readonly kind: PrHostErrorKind;
  readonly status: number | null;
  readonly retryAt: Date | null;
  constructor(kind: PrHostErrorKind, status: number | null, message: string, retryAt: Date | null = null) {
    super(message);
    this.name = 'PrHostError';
    this.kind = kind;
    this.status = status;
    this.retryAt = retryAt;
  }
}

/**
 * The hidden marker of a comment body (`<!-- gpuops:person-commits=abc -->` → that string), or
 * null: the LAST one, where gpuops puts its own (text it quotes comes before and is inert anyway).
 */
export function commentMarker(body: string): string | null {
  return [...body.matchAll(/<!--\s*gpuops:[^>]*?-->/g)].at(-1)?.[0] ?? null;
}

/** Labels of a change set's pull request: `gpuops`, `gpuops/<kind>`, then the change set's own, sorted. */
export function pullRequestLabels(cs: ChangeSet): string[] {
  return [...new Set(['gpuops', `gpuops/${cs.kind}`, ...(cs.labels ?? [])])].sort();
}
