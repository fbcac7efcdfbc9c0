/**
 * Git error classification and credential redaction. Pure: takes the text git printed and the
 * secrets to hide; never logs.
 */

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

const NON_FAST_FORWARD = [/non-fast-forward/i, /\(fetch first\)/i, /stale info/i, /\[rejected\]/i];
const AUTH = [
  /authentication failed/i,
  /could not read (username|password)/i,
  /permission denied/i,
  /invalid username or password/i,
  /the requested url returned error: 40[13]/i,
  /terminal prompts disabled/i,
  /write access to repository not granted/i,
];
const TRANSIENT = [
  /could not resolve host/i,
  /connection (refused|reset|timed out)/i,
  /operation timed out/i,
  /timed out/i,
  /early eof/i,
  /the remote end hung up unexpectedly/i,
  /the requested url returned error: (5\d\d|429)/i,
  /rpc failed/i,
  /temporary failure/i,
  /failed to connect/i,
  /unable to access/i,
  /index\.lock': file exists/i,
];

/**
 * Classifies git's output. Order matters: a rejected push is non-fast-forward even when git also
 * prints "failed to push"; an HTTP 403 is `auth` even though "unable to access" also appears.
 */
export function classifyGitError(text: string): GitErrorKind {
  if (/pre-receive hook declined|protected branch|\(hook declined\)/i.test(text)) return 'refused';
  if (NON_FAST_FORWARD.some((re) => re.test(text))) return 'non-fast-forward';
  if (AUTH.some((re) => re.test(text))) return 'auth';
  if (TRANSIENT.some((re) => re.test(text))) return 'transient';
  return 'refused';
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
  out = out.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/@\s]+@/gi, '$1***@');
  out = out.replace(/(authorization:\s*)(basic|bearer|token)\s+\S+/gi, '$1$2 ***');
  return out;
}
