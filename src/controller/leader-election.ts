import type { Logger } from 'pino';
import type { LeaseApi } from '../cluster/lease.js';
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
 * Keeps trying to hold the Lease; `isLeader()` says whether this replica may write. The holder
 * renews every retry period; when a renewal fails (or another identity holds the Lease) it stops
 * leading at once, so two replicas never write at once. `release()` hands the Lease over on a
 * clean stop (holderIdentity emptied) so the other replica takes it within one retry period.
 */
export class LeaderElector {
  private leading = false;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly api: LeaseApi,
    private readonly config: LeaderElectionConfig,
    private readonly log: Logger,
    private readonly onChange: (leading: boolean) => void = () => {},
    private readonly clock: () => Date = () => new Date(),
  ) {}

  isLeader(): boolean {
    return this.leading;
  }

  /** One attempt to create, renew or acquire the Lease; returns whether this replica leads after it. */
  async tryOnce(): Promise<boolean> {
    let ok = false;
    try {
      const lease = await this.api.read();
      const d = decideLease(lease, this.config.identity, this.clock(), this.config.leaseDurationSeconds);
      if (d.action === 'create') ok = await this.api.create(d.spec);
      else if (d.action === 'renew' || d.action === 'acquire')
        ok = await this.api.replace(d.spec, lease!.resourceVersion);
      if (d.action === 'acquire' && ok)
        this.log.info({ identity: this.config.identity }, 'acquired leader Lease');
    } catch (err) {
      this.log.warn({ err }, 'leader election attempt failed');
      ok = false;
    }
    this.set(ok);
    return ok;
  }

  /** Starts the retry loop (first attempt at once). */
  start(): void {
    const loop = async (): Promise<void> => {
      if (this.stopped) return;
      await this.tryOnce();
      if (!this.stopped) this.timer = setTimeout(() => void loop(), this.config.retryPeriodSeconds * 1000);
    };
    void loop();
  }

  /** Stops trying and, when leading, releases the Lease. */
  async release(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (!this.leading) return;
    try {
      const lease = await this.api.read();
      if (lease && lease.holderIdentity === this.config.identity) {
        const at = this.clock().toISOString();
        await this.api.replace(
          {
            holderIdentity: '',
            leaseDurationSeconds: 1,
            acquireTime: lease.acquireTime ?? at,
            renewTime: at,
            leaseTransitions: lease.leaseTransitions,
          },
          lease.resourceVersion,
        );
      }
    } catch (err) {
      this.log.warn({ err }, 'could not release leader Lease');
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
