/**
 * Leader election over a `coordination.k8s.io/v1` Lease, decided purely from the Lease as read and
 * `now` — the rules of client-go's `leaderelection` package: a holder renews; anyone may take a
 * Lease whose `renewTime + leaseDurationSeconds` has passed or whose holder is empty; otherwise wait.
 */
import type { LeaseSpecOut, LeaseView } from '../cluster/index.js';

/** What to do with the Lease. `spec` is the full new spec to write (with the read resourceVersion). */
export type LeaseAction =
  | { action: 'create'; spec: LeaseSpecOut }
  | { action: 'renew'; spec: LeaseSpecOut }
  | { action: 'acquire'; spec: LeaseSpecOut }
  | { action: 'wait'; holder: string; expiresAt: string };

/**
 * Decides the next Lease operation for `identity`.
 * @param lease the Lease as read, or null when it does not exist
 * @param leaseDurationSeconds how long a renewal holds the Lease (seconds)
 */
export function decideLease(
  lease: LeaseView | null,
  identity: string,
  now: Date,
  leaseDurationSeconds: number,
): LeaseAction {
  const at = now.toISOString();
  if (lease === null) {
    return {
      action: 'create',
      spec: {
        holderIdentity: identity,
        leaseDurationSeconds,
        acquireTime: at,
        renewTime: at,
        leaseTransitions: 0,
      },
    };
  }
  if (lease.holderIdentity === identity) {
    return {
      action: 'renew',
      spec: {
        holderIdentity: identity,
        leaseDurationSeconds,
        acquireTime: lease.acquireTime ?? at,
        renewTime: at,
        leaseTransitions: lease.leaseTransitions,
      },
    };
  }
  const duration = lease.leaseDurationSeconds ?? leaseDurationSeconds;
  const renewed = lease.renewTime ? Date.parse(lease.renewTime) : 0;
  const expiresAt = renewed + duration * 1000;
  if (!lease.holderIdentity || expiresAt <= now.getTime()) {
    return {
      action: 'acquire',
      spec: {
        holderIdentity: identity,
        leaseDurationSeconds,
        acquireTime: at,
        renewTime: at,
        leaseTransitions: lease.leaseTransitions + 1,
      },
    };
  }
  return { action: 'wait', holder: lease.holderIdentity, expiresAt: new Date(expiresAt).toISOString() };
}
