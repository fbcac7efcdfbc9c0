/**
 * Git error classification and credential redaction. Pure: takes the text git printed and the
 * secrets to hide; never logs.
 */
import { redactUrls } from '../util/index.js';

/**
 * How a failed git operation should be handled:
 * - `transient`: network trouble or a server hiccup; retry with backoff.
 * - `non-fast-forward`: the remote moved under us (`[rejected] … (fetch first)`, a stale
 *   `--force-with-lease`); fetch, re-apply on the new head, push again.
 * - `auth`: credentials missing or wrong, or no permission; report, do not retry.
 * - `refused`: the remote or the repository refused (protected branch, hook declined, missing
 *   repository or branch); report, do not retry.
 */
export type GitErrorKind = 'transient' | 'non-fast-forward' | 'auth' | 'refused';

/** A git failure with its kind, its operation (`clone`, `fetch`, `push`, …) and a redacted message. */
export class GitOpsError extends Error {
  readonly kind: GitErrorKind;
  readonly operation: string;
  constructor(kind: GitErrorKind, operation: string, message: string) {
    super(`git ${operation} failed (${kind}): ${message}`);
    this.name = 'GitOpsError';
    this.kind = kind;
    this.operation = operation;
  }
}

/** One row of the classifier: what git printed, what it means, and why. */
export interface GitErrorRule {
  kind: GitErrorKind;
  pattern: RegExp;
  /** Where the message comes from, for the reader of the table. */
  why: string;
}

/**
 * The classifier, one row per message; the first row that matches wins, so a hook's refusal is
 * `refused` although git also prints `[remote rejected]`, and an HTTP 403 is `auth` although git
 * also prints "unable to access".
 */
export const GIT_ERROR_RULES: readonly GitErrorRule[] = [
  { kind: 'refused', pattern: /pre-receive hook declined/i, why: 'a server-side hook refused the push' },
  { kind: 'refused', pattern: /protected branch/i, why: 'GitHub/GitLab branch protection' },
  { kind: 'refused', pattern: /\(hook declined\)/i, why: 'an update hook refused one ref' },
  { kind: 'non-fast-forward', pattern: /non-fast-forward/i, why: 'the branch moved: not an ancestor' },
  { kind: 'non-fast-forward', pattern: /\(fetch first\)/i, why: 'the remote holds work we do not have' },
  { kind: 'non-fast-forward', pattern: /stale info/i, why: '--force-with-lease: the ref is not what we saw' },
  {
    kind: 'non-fast-forward',
    pattern: /cannot lock ref/i,
    why: 'another writer updates the same ref while our push is received (a race)',
  },
  {
    kind: 'non-fast-forward',
    pattern: /failed to update ref/i,
    why: 'the receiving side could not move the ref: another writer moved it (a race)',
  },
  {
    kind: 'non-fast-forward',
    pattern: /reference already exists/i,
    why: 'another writer created the branch first (a race on a new branch)',
  },
  { kind: 'non-fast-forward', pattern: /\[rejected\]/i, why: 'any other client-side rejection of a ref' },
  { kind: 'auth', pattern: /authentication failed/i, why: 'wrong credentials' },
  { kind: 'auth', pattern: /could not read (username|password)/i, why: 'no credentials and no prompt' },
  { kind: 'auth', pattern: /permission denied/i, why: 'ssh key refused, or no permission' },
  { kind: 'auth', pattern: /invalid username or password/i, why: 'GitHub over https' },
  { kind: 'auth', pattern: /the requested url returned error: 40[13]/i, why: 'HTTP 401/403' },
  { kind: 'auth', pattern: /terminal prompts disabled/i, why: 'GIT_TERMINAL_PROMPT=0 and no credentials' },
  { kind: 'auth', pattern: /write access to repository not granted/i, why: 'a read-only token' },
  { kind: 'transient', pattern: /could not resolve host/i, why: 'DNS' },
  { kind: 'transient', pattern: /connection (refused|reset|timed out)/i, why: 'network' },
  { kind: 'transient', pattern: /timed out/i, why: 'network' },
  { kind: 'transient', pattern: /early eof/i, why: 'the connection dropped mid-pack' },
  { kind: 'transient', pattern: /the remote end hung up unexpectedly/i, why: 'the connection dropped' },
  { kind: 'transient', pattern: /the requested url returned error: (5\d\d|429)/i, why: 'HTTP 5xx or 429' },
  { kind: 'transient', pattern: /rpc failed/i, why: 'smart-HTTP transfer failed' },
  { kind: 'transient', pattern: /temporary failure/i, why: 'DNS or network' },
  { kind: 'transient', pattern: /failed to connect/i, why: 'network' },
  { kind: 'transient', pattern: /unable to access/i, why: 'https remote unreachable' },
  { kind: 'transient', pattern: /index\.lock': file exists/i, why: 'a concurrent git in the same clone' },
];

/**
 * Classifies git's output by the first matching row of {@link GIT_ERROR_RULES}; text no row
 * matches is `refused` (reported, not retried: an unknown failure is not worth a loop).
 */
export function classifyGitError(text: string): GitErrorKind {
  return GIT_ERROR_RULES.find((r) => r.pattern.test(text))?.kind ?? 'refused';
}

/** One ref's line of `git push --porcelain`. */
export interface PushRefResult {
  /** Remote ref, e.g. `refs/heads/gpuops/prod/pools`. */
  ref: string;
  /** Accepted (new, fast-forward, forced, up to date) or rejected. */
  ok: boolean;
  /**
   * Accepted without a change (flag `=`): the remote ref already held the commit, so this push
   * wrote nothing (another writer pushed the identical commit first).
   */
  upToDate: boolean;
  /** The summary git printed, e.g. `[remote rejected] (cannot lock ref …)`. */
  summary: string;
  /** Kind of the rejection (null when accepted). */
  kind: GitErrorKind | null;
}

/**
 * Parses `git push --porcelain` output (`<flag>\t<from>:<to>\t<summary>` per ref; flag `!` is
 * rejected, ` `, `+`, `-`, `*`, `=` are accepted; git-push(1) "OUTPUT"). Lines of other shapes are
 * ignored. Pure.
 */
export function parsePushPorcelain(stdout: string): PushRefResult[] {
  const out: PushRefResult[] = [];
  for (const line of stdout.split('\n')) {
    const m = /^([ +\-*=!])\t([^\t]*):([^\t]+)\t(.*)$/.exec(line);
    if (!m) continue;
    const ok = m[1] !== '!';
    out.push({
      ref: m[3]!,
      ok,
      upToDate: m[1] === '=',
      summary: m[4]!,
      kind: ok ? null : classifyGitError(m[4]!),
    });
  }
  return out;
}

/**
 * Removes credentials from a message: every given secret (and its base64 forms, as used in an
 * `Authorization: Basic` header), userinfo in URLs (`https://user:pass@host` → `https://***@host`)
 * and `Authorization:` header values.
 */
export function redact(text: string, secrets: readonly (string | undefined)[] = []): string {
  let out = text;
  for (const s of secrets) {
    if (!s) continue;
    const forms = [
      s,
      Buffer.from(s).toString('base64'),
      Buffer.from(`x-access-token:${s}`).toString('base64'),
    ];
    for (const f of forms) out = out.split(f).join('***');
  }
  out = redactUrls(out);
  out = out.replace(/(authorization:\s*)(basic|bearer|token)\s+\S+/gi, '$1$2 ***');
  return out;
}
