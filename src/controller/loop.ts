import type { Logger } from 'pino';
import { sleep } from '../retry/index.js';
import type { ControllerMetrics } from './metrics.js';
import type { PassSummary } from '../pass/index.js';

/** What {@link runLoop} runs, how often, and whom it tells (times in seconds unless named `ms`). */
export interface LoopOptions {
  /** One reconcile pass. */
  pass: () => Promise<PassSummary>;
  /** Time between the end of one pass and the start of the next (seconds). */
  intervalSeconds: number;
  /** Longest wait after repeated failures (seconds); the wait doubles from `intervalSeconds`. */
  maxBackoffSeconds: number;
  /** Only the leader runs passes; without it every tick runs one. */
  isLeader?: () => boolean;
  log: Logger;
  metrics: ControllerMetrics;
  /** Aborting ends the loop after the pass in flight. */
  signal: AbortSignal;
  /** Reports each pass's outcome (for readiness). */
  onPass?: (ok: boolean) => void;
  /**
   * The wait between passes when the last one succeeded (the crossing trigger's `PassWaker`, which
   * a crossing cuts short); default a plain sleep. Backoff after a failure is never cut short.
   */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /**
   * Work after each pass (succeeded or failed), before the wait and outside the pass's duration:
   * the reconciler's `afterPass` (the database's checkpoint, `Store.checkpoint`). A failure is
   * logged and fails neither the pass nor the loop.
   */
  afterPass?: () => Promise<void>;
}

/** Wait after `failures` consecutive failed passes (seconds): interval × 2^failures, capped. */
export function backoffSeconds(intervalSeconds: number, failures: number, maxBackoffSeconds: number): number {
  if (failures <= 0) return intervalSeconds;
  return Math.min(maxBackoffSeconds, intervalSeconds * 2 ** failures);
}

/**
 * The controller loop: one pass at a time, an interval between passes, exponential backoff after
 * failures, passes only while leading, a clean end when `signal` aborts (the pass in flight
 * finishes first). Resolves with the number of passes run.
 */
export async function runLoop(opts: LoopOptions): Promise<number> {
  let failures = 0;
  let passes = 0;
  while (!opts.signal.aborted) {
    if (opts.isLeader && !opts.isLeader()) {
      await sleep(Math.min(opts.intervalSeconds, 1) * 1000, opts.signal);
      continue;
    }
    const end = opts.metrics.passDuration.startTimer();
    try {
      const s = await opts.pass();
      passes++;
      failures = 0;
      opts.metrics.passes.inc({ result: 'success' });
      for (const r of s.reasons ?? []) opts.metrics.decisions.inc({ kind: r.kind, reason: r.reason });
      for (const a of s.prActions ?? []) opts.metrics.pullRequests.inc({ action: a });
      if (s.errors > 0) opts.metrics.errors.inc({ kind: 'pass' }, s.errors);
      opts.log.info(
        {
          passes,
          nodes: s.nodes,
          algorithms: s.algorithms,
          decisions: s.decisions,
          prs: s.prs,
          errors: s.errors,
        },
        'reconcile pass done',
      );
      opts.onPass?.(true);
    } catch (err) {
      failures++;
      opts.metrics.passes.inc({ result: 'error' });
      opts.metrics.errors.inc({ kind: 'pass' });
      opts.log.error({ err, failures }, 'reconcile pass failed');
      opts.onPass?.(false);
    } finally {
      end();
    }
    if (opts.afterPass) await afterPassLogged(opts.afterPass, opts.log);
    const wait = failures === 0 && opts.sleep ? opts.sleep : sleep;
    await wait(backoffSeconds(opts.intervalSeconds, failures, opts.maxBackoffSeconds) * 1000, opts.signal);
  }
  return passes;
}

/** Runs `afterPass`, logging its failure instead of throwing it. */
async function afterPassLogged(afterPass: () => Promise<void>, log: Logger): Promise<void> {
  try {
    await afterPass();
  } catch (err) {
    log.warn({ err }, 'work after the reconcile pass failed (the next pass goes ahead)');
  }
}
