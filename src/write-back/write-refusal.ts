/**
 * Permanent refusals of a Git write (pure): a push the remote will refuse again however often it
 * is tried — a protected branch, a server-side hook that declines. Such a refusal is reported with
 * its own reason, remembered (the fleet status record holds it, so the status page, the metrics
 * and the next `reconcile --once` see it) and not tried again before {@link REFUSAL_RECHECK_SECONDS}
 * have passed: Flux's "stalled" (bad configuration is reported, not retried until it changes),
 * not a retry on every pass.
 */
import type { GitWriteRefusalRecord } from '../store/index.js';
import { GitOpsError } from '../working-copy/git-errors.js';
import { PrHostError } from '../git-hosts/pr-host.js';

/** Seconds a permanent refusal stands before gpuops tries that ref again (someone may have lifted the protection). */
export const REFUSAL_RECHECK_SECONDS = 3600;

/** Machine reasons of a permanent refusal. */
export type RefusalReason = 'ProtectedBranch' | 'PushDeclined';

/** One row of the table: what the remote said, which reason it is, and whose message it is. */
export interface RefusalRule {
  reason: RefusalReason;
  pattern: RegExp;
  why: string;
}

/** The first matching row wins: a hook that names a protected branch is `ProtectedBranch`. */
export const REFUSAL_RULES: readonly RefusalRule[] = [
  {
    reason: 'ProtectedBranch',
    pattern: /protected branch/i,
    why: 'GitHub "GH006: Protected branch update failed", "(protected branch hook declined)"; GitLab "not allowed to push code to protected branches"; Gitea "Not allowed to push to protected branch"; GitHub REST 422 "Protected branch update failed"',
  },
  {
    reason: 'ProtectedBranch',
    pattern: /can only be modified through pull requests|changes must be made through a pull request/i,
    why: 'Bitbucket branch permissions; GitHub\'s rule "Changes must be made through a pull request"',
  },
  {
    reason: 'PushDeclined',
    pattern: /hook declined/i,
    why: 'a pre-receive or update hook of the server refused the push',
  },
];

/**
 * The permanent refusal `err` stands for, or null when it is anything else (a transient error, a
 * moved branch, missing credentials). Reads a GitOpsError of a push (`refused` kind only) and a
 * PrHostError with HTTP 403 or 422 (GitHub's REST answers for a protected ref).
 */
export function permanentRefusal(err: unknown): { reason: RefusalReason; detail: string } | null {
  let text: string | null = null;
  if (err instanceof GitOpsError && err.kind === 'refused' && err.operation === 'push') text = err.message;
  if (err instanceof PrHostError && (err.status === 403 || err.status === 422)) text = err.message;
  if (text === null) return null;
  const rule = REFUSAL_RULES.find((r) => r.pattern.test(text));
  return rule ? { reason: rule.reason, detail: text.replace(/^git push failed \(refused\): /, '') } : null;
}

/**
 * The permanent refusal a write-back result reports (`failed` with reason `ProtectedBranch` or
 * `PushDeclined`, see write-back's reasons), with the remote's words as the detail; else null.
 */
export function refusalOfResult(r: {
  action: string;
  reason: string;
  message: string;
}): { reason: RefusalReason; detail: string } | null {
  if (r.action !== 'failed' || (r.reason !== 'ProtectedBranch' && r.reason !== 'PushDeclined')) return null;
  return { reason: r.reason, detail: r.message.replace(/^git push failed \(refused\): /, '') };
}

/** `17:05 UTC` of an ISO time (what a person compares with a clock). */
function clock(iso: string): string {
  return `${iso.slice(11, 16)} UTC`;
}

/**
 * The message of a refusal, the same for the pass's output, the log and the status page: what was
 * refused, why, that nothing was patched, when gpuops tries again, and what a person can do.
 */
export function refusalMessage(
  r: Pick<GitWriteRefusalRecord, 'ref' | 'reason' | 'detail' | 'retryAt'>,
): string {
  const what = r.reason === 'ProtectedBranch' ? 'protected branch' : 'a server hook declined the push';
  return (
    `${r.ref} refuses gpuops's commits (${what}: ${r.detail}); nothing was patched in the cluster; ` +
    `not tried again before ${clock(r.retryAt)} — let gpuops push to ${r.ref}, or set scaling.mode: pull-request`
  );
}

/** The refusal of `ref` that still stands at `now` (its `retryAt` is later), or null. */
export function standingRefusal(
  refusals: readonly GitWriteRefusalRecord[],
  ref: string,
  now: Date,
): GitWriteRefusalRecord | null {
  return refusals.find((r) => r.ref === ref && Date.parse(r.retryAt) > now.getTime()) ?? null;
}

/**
 * The refusals after a pass that wrote to `ref` (patch mode, the base branch):
 * - `outcome` `refused`: the refusal is (re)recorded; `since` is kept from a standing one, `retryAt`
 *   is `now` + {@link REFUSAL_RECHECK_SECONDS};
 * - `written`: the ref took a commit or already held the files: its refusal is cleared;
 * - `none`: nothing was tried on the ref (no change, or a refusal still stands): kept as it is.
 * `writes: false` (the pass does not write to `ref` at all: pull-request mode) clears its refusal.
 * Refusals of other refs are kept. Sorted by ref.
 */
export function nextRefusals(
  prev: readonly GitWriteRefusalRecord[],
  ref: string,
  outcome: { kind: 'refused'; reason: RefusalReason; detail: string } | { kind: 'written' | 'none' },
  now: Date,
  writes = true,
): GitWriteRefusalRecord[] {
  const others = prev.filter((r) => r.ref !== ref);
  const mine = prev.find((r) => r.ref === ref);
  const out = [...others];
  if (writes && outcome.kind === 'refused') {
    const retryAt = new Date(now.getTime() + REFUSAL_RECHECK_SECONDS * 1000).toISOString();
    out.push({
      ref,
      reason: outcome.reason,
      detail: outcome.detail,
      since: mine?.since ?? now.toISOString(),
      retryAt,
    });
  } else if (writes && outcome.kind === 'none' && mine) {
    out.push(mine);
  }
  return out.sort((a, b) => (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0));
}

/** Write-back actions after which a branch took gpuops's write (or held it already): its refusal is over. */
const WRITTEN: ReadonlySet<string> = new Set(['created', 'updated', 'unchanged', 'in-base', 'committed']);

/**
 * The refusals after a pull-request-mode write: each gpuops branch whose push the remote refused
 * permanently (a hook that declines `gpuops/*`, a protected-branch rule matching it) is recorded
 * under its own ref, exactly as patch mode records the base branch — the status page says
 * `GitWriteRefused`, the metric counts it — and cleared when a later push to it is taken. A branch
 * not written this pass keeps its refusal. The base branch's refusal goes: pull-request mode never
 * pushes to it. Refusals of other refs are kept. Sorted by ref.
 */
export function pullRequestRefusals(
  prev: readonly GitWriteRefusalRecord[],
  results: readonly { branch: string; action: string; reason: string; message: string }[],
  base: string,
  now: Date,
): GitWriteRefusalRecord[] {
  let out = prev.filter((r) => r.ref !== base);
  for (const r of results) {
    const refused = refusalOfResult(r);
    const outcome = refused
      ? ({ kind: 'refused', ...refused } as const)
      : ({ kind: WRITTEN.has(r.action) ? 'written' : 'none' } as const);
    out = nextRefusals(out, r.branch, outcome, now);
  }
  return out;
}

/** Whether two refusal lists say the same (nothing to store again). */
export function sameRefusals(
  a: readonly GitWriteRefusalRecord[],
  b: readonly GitWriteRefusalRecord[],
): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
