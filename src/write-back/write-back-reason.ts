/**
 * The machine reason of a failed write-back (pure): a permanent refusal's own reason
 * (`write-refusal.ts`), a git error's kind, a PR host error's kind, else `Error`.
 */
import { GitOpsError } from '../working-copy/git-errors.js';
import { PrHostError } from '../git-hosts/pr-host.js';
import { permanentRefusal } from './write-refusal.js';

/**
 * `{ reason, message }` of `err`: `ProtectedBranch` / `PushDeclined`, `GitAuth`, `GitRefused`,
 * `GitTransient`, `GitNonFastForward`, `HostPermission`, `RateLimited`, `HostError` or `Error`;
 * `message` is the error's message.
 */
export function writeFailure(err: unknown): { reason: string; message: string } {
  const message = err instanceof Error ? err.message : String(err);
  // A protected branch or a declining hook: its own reason (see write-refusal.ts).
  const permanent = permanentRefusal(err);
  if (permanent) return { reason: permanent.reason, message };
  if (err instanceof GitOpsError) {
    const reason = {
      auth: 'GitAuth',
      refused: 'GitRefused',
      transient: 'GitTransient',
      'non-fast-forward': 'GitNonFastForward',
    }[err.kind];
    return { reason, message };
  }
  if (err instanceof PrHostError) {
    const reason =
      err.kind === 'permission'
        ? 'HostPermission'
        : err.kind === 'rate-limited'
          ? 'RateLimited'
          : 'HostError';
    return { reason, message };
  }
  return { reason: 'Error', message };
}
