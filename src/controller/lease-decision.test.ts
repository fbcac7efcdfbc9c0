import { describe, expect, it } from 'vitest';
import type { LeaseView } from '../cluster/types.js';
import { decideLease } from './lease-decision.js';

const now = new Date('2026-11-29T12:00:00.000Z');
const lease = (over: Partial<LeaseView>): LeaseView => ({
  holderIdentity: 'pod-a',
  leaseDurationSeconds: 15,
  renewTime: '2026-11-29T11:59:55.000Z',
  acquireTime: '2026-11-29T11:00:00.000Z',
  leaseTransitions: 2,
  resourceVersion: '7',
  ...over,
});

describe('decideLease', () => {
  it.each([
    ['NoLeaseYetCreatesIt', null, 'pod-b', 'create', 'pod-b', 0],
    ['HolderRenewsKeepingAcquireTime', lease({}), 'pod-a', 'renew', 'pod-a', 2],
    ['OtherWaitsWhileLeaseIsFresh', lease({}), 'pod-b', 'wait', undefined, undefined],
    [
      'OtherTakesExpiredLease',
      lease({ renewTime: '2026-11-29T11:59:44.000Z' }),
      'pod-b',
      'acquire',
      'pod-b',
      3,
    ],
    ['OtherTakesReleasedLease', lease({ holderIdentity: '' }), 'pod-b', 'acquire', 'pod-b', 3],
    [
      'LeaseExpiringExactlyNowIsExpired',
      lease({ renewTime: '2026-11-29T11:59:45.000Z' }),
      'pod-b',
      'acquire',
      'pod-b',
      3,
    ],
  ] as const)('%s', (_name, input, identity, action, holder, transitions) => {
    const d = decideLease(input, identity, now, 15);
    expect(d.action).toBe(action);
    if (d.action === 'wait') {
      expect(d.holder).toBe('pod-a');
      expect(d.expiresAt).toBe('2026-11-29T12:00:10.000Z');
    } else {
      expect(d.spec.holderIdentity).toBe(holder);
      expect(d.spec.leaseTransitions).toBe(transitions);
      expect(d.spec.renewTime).toBe(now.toISOString());
    }
  });

  it('keeps the original acquireTime on renewal', () => {
    const d = decideLease(lease({}), 'pod-a', now, 15);
    expect(d.action === 'renew' && d.spec.acquireTime).toBe('2026-11-29T11:00:00.000Z');
  });
});
