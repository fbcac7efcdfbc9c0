/**
 * What only the running controller knows about its own health (pure): whether it can reach the
 * API server to hold its Lease, and whether its passes succeed. It gives the status page its
 * causes (said first: they explain the others — an API server that cannot be reached also starves
 * the cache and the metrics) and `/healthz` its answer: a leader whose passes have all failed for
 * longer than `unhealthyAfterSeconds` is not live, so the kubelet restarts it (a wedged process,
 * or a lock a restart clears) rather than leaving it "healthy" and idle for good.
 */
import { ago, plural, type HealthCause } from '../status/index.js';

/** The controller's own record of its election and passes. Times in epoch milliseconds. */
export interface ControllerHealthState {
  leading: boolean;
  /** When this replica last became leader, or started. */
  since: number;
  /** Consecutive failed election attempts (the API server did not answer), since when, and the last error. */
  electionFailures: number;
  electionFailingSince: number | null;
  electionError: string | null;
  /** Consecutive failed passes, the last success, and the last error. */
  passFailures: number;
  lastPassOkAt: number | null;
  passError: string | null;
}

/** A fresh state at `now`. */
export function initialHealthState(now: number): ControllerHealthState {
  return {
    leading: false,
    since: now,
    electionFailures: 0,
    electionFailingSince: null,
    electionError: null,
    passFailures: 0,
    lastPassOkAt: null,
    passError: null,
  };
}

/**
 * Why the controller is not live, or null: it leads, at least 3 passes in a row failed, and none
 * succeeded for longer than `unhealthyAfterSeconds` (since it began to lead, when none did).
 */
export function notLive(s: ControllerHealthState, now: number, unhealthyAfterSeconds: number): string | null {
  if (!s.leading || s.passFailures < 3) return null;
  const from = Math.max(s.lastPassOkAt ?? s.since, s.since);
  const seconds = (now - from) / 1000;
  if (seconds <= unhealthyAfterSeconds) return null;
  return `no reconcile pass succeeded for ${ago(seconds)} (${plural(s.passFailures, 'failed pass', 'failed passes')}): ${s.passError ?? 'unknown error'}`;
}

/** The status page's causes from the controller's own state (none when all is well). */
export function controllerCauses(s: ControllerHealthState, now: number): HealthCause[] {
  const out: HealthCause[] = [];
  if (s.electionFailingSince !== null)
    out.push({
      level: 'critical',
      reason: 'ApiServerUnreachable',
      message: `API server unreachable for ${ago((now - s.electionFailingSince) / 1000)} (${s.electionError ?? 'no answer'}): this replica cannot hold the leader Lease, no pass runs`,
    });
  else if (s.leading && s.passFailures > 0)
    out.push({
      level: 'critical',
      reason: 'PassFailing',
      message: `the last ${plural(s.passFailures, 'pass', 'passes')} failed: ${s.passError ?? 'unknown error'}`,
    });
  return out;
}

/** Whether the `n`th failure in a row is logged: the 1st, 2nd, 4th, 8th, … (once, then at a falling rate). */
export function logThisFailure(n: number): boolean {
  return n >= 1 && (n & (n - 1)) === 0;
}
