/**
 * The permanent-refusal rule (issue 23 item 4): which remote answers are a protected branch or a
 * declining hook (not retried every pass) and which are not (retried as before), and how a
 * standing refusal is kept, renewed and cleared.
 */
import { describe, expect, it } from 'vitest';
import { GitOpsError } from '../../src/working-copy/git-errors.js';
import { PrHostError } from '../../src/git-hosts/pr-host.js';
import {
  nextRefusals,
  permanentRefusal,
  REFUSAL_RECHECK_SECONDS,
  refusalOfResult,
  standingRefusal,
} from '../../src/write-back/write-refusal.js';

const push = (text: string) => new GitOpsError('refused', 'push', text);

describe('permanentRefusal', () => {
  it.each([
    [
      'GitHub over git: protected branch hook declined',
      push('main: [remote rejected] (protected branch hook declined)'),
      'ProtectedBranch',
    ],
    [
      'F05: a pre-receive hook printing GH006',
      push(
        'main: [remote rejected] (pre-receive hook declined): error: GH006: Protected branch update failed for refs/heads/main.',
      ),
      'ProtectedBranch',
    ],
    [
      'GitLab',
      push(
        'main: [remote rejected] (pre-receive hook declined): GitLab: You are not allowed to push code to protected branches on this project.',
      ),
      'ProtectedBranch',
    ],
    [
      'Bitbucket',
      push(
        'main: [remote rejected] (pre-receive hook declined): Branch refs/heads/main can only be modified through pull requests.',
      ),
      'ProtectedBranch',
    ],
    ['a hook that says nothing', push('main: [remote rejected] (pre-receive hook declined)'), 'PushDeclined'],
    [
      'GitHub REST 422',
      new PrHostError('validation', 422, 'Protected branch update failed for refs/heads/main.'),
      'ProtectedBranch',
    ],
    [
      'GitHub REST 403',
      new PrHostError('permission', 403, 'Protected branch: changes must be made through a pull request'),
      'ProtectedBranch',
    ],
  ])('%s → %s', (_, err, reason) => {
    expect(permanentRefusal(err)?.reason).toBe(reason);
  });

  it.each([
    ['a moved branch', new GitOpsError('non-fast-forward', 'push', 'main: [rejected] (fetch first)')],
    ['a network failure', new GitOpsError('transient', 'push', 'Could not resolve host: github.com')],
    ['a refused fetch (not a write)', new GitOpsError('refused', 'fetch', 'protected branch')],
    [
      'a 403 without protection',
      new PrHostError('permission', 403, 'Resource not accessible by integration'),
    ],
    ['a 500 naming a protected branch', new PrHostError('other', 500, 'protected branch')],
    ['any other error', new Error('protected branch')],
  ])('%s → not permanent', (_, err) => {
    expect(permanentRefusal(err)).toBeNull();
  });

  it('a write-back result: only failed with a refusal reason', () => {
    expect(
      refusalOfResult({
        action: 'failed',
        reason: 'ProtectedBranch',
        message: 'git push failed (refused): main: x',
      }),
    ).toEqual({
      reason: 'ProtectedBranch',
      detail: 'main: x',
    });
    expect(refusalOfResult({ action: 'failed', reason: 'GitRefused', message: 'x' })).toBeNull();
    expect(refusalOfResult({ action: 'stalled', reason: 'ProtectedBranch', message: 'x' })).toBeNull();
  });
});

describe('standing refusals', () => {
  const t0 = new Date('2026-01-01T10:00:00.000Z');
  const at = (s: number) => new Date(t0.getTime() + s * 1000);
  const refused = { kind: 'refused' as const, reason: 'ProtectedBranch' as const, detail: 'main: declined' };
  const first = nextRefusals([], 'main', refused, t0);

  it('a refusal stands until retryAt (one hour), not at it', () => {
    expect(first).toEqual([
      {
        ref: 'main',
        reason: 'ProtectedBranch',
        detail: 'main: declined',
        since: t0.toISOString(),
        retryAt: at(REFUSAL_RECHECK_SECONDS).toISOString(),
      },
    ]);
    expect(standingRefusal(first, 'main', at(REFUSAL_RECHECK_SECONDS - 1))?.ref).toBe('main');
    expect(standingRefusal(first, 'main', at(REFUSAL_RECHECK_SECONDS))).toBeNull();
    expect(standingRefusal(first, 'release', t0)).toBeNull();
  });

  it('refused again: since kept, retryAt renewed; written: cleared; nothing tried: kept; pull-request mode: cleared', () => {
    const again = nextRefusals(first, 'main', refused, at(4000));
    expect(again[0]).toMatchObject({
      since: t0.toISOString(),
      retryAt: at(4000 + REFUSAL_RECHECK_SECONDS).toISOString(),
    });
    expect(nextRefusals(first, 'main', { kind: 'written' }, at(10))).toEqual([]);
    expect(nextRefusals(first, 'main', { kind: 'none' }, at(10))).toEqual(first);
    expect(nextRefusals(first, 'main', { kind: 'none' }, at(10), false)).toEqual([]);
    expect(nextRefusals(first, 'release', { kind: 'written' }, at(10))).toEqual(first);
  });
});
