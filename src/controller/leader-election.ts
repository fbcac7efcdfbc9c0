import type { Logger } from 'pino';
import type { LeaseApi } from '../cluster/index.js';
import { logThisFailure } from './controller-health.js';
import { decideLease } from './lease-decision.js';

/** Timing of the election, as client-go's defaults scaled down (seconds). */
export interface LeaderElectionConfig {
  identity: string;
  /** How long a renewal holds the Lease (seconds); client-go default 15. */
  leaseDurationSeconds: number;
  /** How often the holder renews and others retry (seconds); client-go default 2. */
  retryPeriodSeconds: number;
}

/**
 * How long after its last renewal a leader still writes (seconds): the larger of two thirds of
 * the lease duration (client-go's 10 s of 15 s) and the lease duration minus one retry period —
 * always less than the lease duration, so a leader whose renewals hang stops before the Lease
 * expires and another replica may take it.
 */
export function renewDeadlineSeconds(config: LeaderElectionConfig): number {
  const d = config.leaseDurationSeconds;
  return Math.max((d * 2) / 3, d - config.retryPeriodSeconds);
}

/**
 * Keeps trying to hold the Lease; `isLeader()` says whether this replica may write. The holder
 * renews every retry period; when a renewal fails (or another identity holds the Lease) it stops
 * leading at once, so two replicas never write at once. `release()` hands the Lease over on a
 * clean stop (holderIdentity emptied) so the other replica takes it within one retry period.
 */
export class LeaderElector {
  private leading = false;
  /** When (ms since epoch) the last successful renewal was decided: the renewTime it wrote. */
  private renewedAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** The attempt in flight, awaited by `release` so a late renewal cannot follow the release. */
  private inflight: Promise<boolean> | undefined;
  /** Ends leadership when no renewal succeeds before the renew deadline. */
  private deadlineTimer: NodeJS.Timeout | undefined;
  /** Attempts in a row that failed (the API server did not answer), since when (ms), and the last error. */
  private failing = { count: 0, since: null as number | null, error: null as string | null };

  constructor(
    private readonly api: LeaseApi,
    private readonly config: LeaderElectionConfig,
    private readonly log: Logger,
    private readonly onChange: (leading: boolean) => void = () => {},
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /**
   * Whether this replica may write now: it holds the Lease and its last renewal is younger than
   * the renew deadline (see {@link renewDeadlineSeconds}). The deadline matters when renewals hang
   * (API server slow, process paused): the replica stops writing before anyone else may take the
   * Lease, as client-go's `RenewDeadline` does.
   */
  isLeader(): boolean {
    return this.leading && this.clock().getTime() - this.renewedAt < renewDeadlineSeconds(this.config) * 1000;
  }

  /** One attempt to create, renew or acquire the Lease; returns whether this replica leads after it. */
  async tryOnce(): Promise<boolean> {
    let ok = false;
    try {
      const lease = await this.api.read();
      const now = this.clock();
      const d = decideLease(lease, this.config.identity, now, this.config.leaseDurationSeconds);
      if (d.action === 'create') ok = await this.api.create(d.spec);
      else if (d.action === 'renew' || d.action === 'acquire')
        ok = await this.api.replace(d.spec, lease!.resourceVersion);
      if (ok) {
        this.renewedAt = now.getTime();
        clearTimeout(this.deadlineTimer);
        const left = this.renewedAt + renewDeadlineSeconds(this.config) * 1000 - this.clock().getTime();
        this.deadlineTimer = setTimeout(
          () => {
            this.log.warn(
              { identity: this.config.identity },
              'leader Lease not renewed before the renew deadline',
            );
            this.set(false);
          },
          Math.max(0, left),
        );
        this.deadlineTimer.unref();
      }
      if ((d.action === 'acquire' || d.action === 'create') && ok)
        this.log.info({ identity: this.config.identity }, 'acquired leader Lease');
      if (this.failing.count > 0)
        this.log.info({ failures: this.failing.count }, 'leader election: the API server answers again');
      this.failing = { count: 0, since: null, error: null };
    } catch (err) {
      // Said once, then at a falling rate (1st, 2nd, 4th, 8th … failure), without a stack: every
      // retry period would otherwise repeat the same warning.
      const f = this.failing;
      f.count++;
      f.since ??= this.clock().getTime();
      f.error = err instanceof Error ? err.message : String(err);
      if (logThisFailure(f.count))
        this.log.warn(
          { failures: f.count, since: new Date(f.since).toISOString(), err: f.error },
          'leader election: API server unreachable; this replica is not leading',
        );
      ok = false;
    }
    this.set(ok);
    return ok;
  }

  /** Election attempts failing in a row: how many, since when (ms since the epoch), the last error. */
  failures(): { count: number; since: number | null; error: string | null } {
    return { ...this.failing };
  }

  /** Starts the retry loop (first attempt at once). */
  start(): void {
    const loop = async (): Promise<void> => {
      if (this.stopped) return;
      this.inflight = this.tryOnce();
      await this.inflight;
      if (!this.stopped) this.timer = setTimeout(() => void loop(), this.config.retryPeriodSeconds * 1000);
    };
    void loop();
  }

  /**
   * Stops trying and, when this replica holds the Lease (even if its last renewal failed),
   * releases it. Waits for the attempt in flight first, so no renewal lands after the release.
   */
  async release(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    clearTimeout(this.deadlineTimer);
    const attempt = (async (): Promise<void> => {
      await this.inflight;
      const lease = await this.api.read();
      if (!lease || lease.holderIdentity !== this.config.identity) return;
      const at = this.clock().toISOString();
      const released = await this.api.replace(
        {
          holderIdentity: '',
          leaseDurationSeconds: 1,
          acquireTime: lease.acquireTime ?? at,
          renewTime: at,
          leaseTransitions: lease.leaseTransitions,
        },
        lease.resourceVersion,
      );
      if (released) this.log.info({ identity: this.config.identity }, 'released leader Lease');
      else
        this.log.warn(
          { identity: this.config.identity },
          'could not release leader Lease: it changed meanwhile',
        );
    })();
    // An unreachable API server must not block the stop for longer than one lease duration: the
    // Lease then simply expires.
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((r) => {
      timer = setTimeout(() => r('timeout'), this.config.leaseDurationSeconds * 1000);
    });
    try {
      if ((await Promise.race([attempt, timeout])) === 'timeout')
        this.log.warn(
          { identity: this.config.identity },
          'could not release leader Lease in time; it will expire',
        );
    } catch (err) {
      this.log.warn({ err }, 'could not release leader Lease');
    } finally {
      clearTimeout(timer);
    }
    this.set(false);
  }

  private set(leading: boolean): void {
    if (leading !== this.leading) {
      this.leading = leading;
      if (!leading) this.log.warn({ identity: this.config.identity }, 'stopped leading');
      this.onChange(leading);
    }
  }
}
