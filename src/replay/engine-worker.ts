/**
 * Child-process entry of one simulated engine (see `engine-process.ts`): receives
 * `{ trace, engine, settings, dir }` over IPC, runs {@link runSimEngine}, sends `{ progress }`
 * (the share replayed, at most every 2 s) while it runs, then `{ ok: true, result }` or
 * `{ ok: false, error }`, and exits.
 */
import { runSimEngine, type SimEngine } from './sim-engine.js';
import type { ReplaySettings } from './replay-settings.js';
import type { Trace } from './trace.js';

interface Job {
  trace: Trace;
  engine: SimEngine;
  settings: ReplaySettings;
  dir: string;
}

/** Progress goes to the parent at most this often (milliseconds). */
const PROGRESS_EVERY_MS = 2000;

process.once('message', (job: Job) => {
  let sent = 0;
  const progress = (fraction: number) => {
    const now = Date.now();
    if (now - sent < PROGRESS_EVERY_MS) return;
    sent = now;
    process.send!({ progress: fraction });
  };
  runSimEngine(job.trace, job.engine, job.settings, job.dir, progress).then(
    (result) => process.send!({ ok: true, result }, () => process.exit(0)),
    (err: unknown) =>
      process.send!(
        { ok: false, error: err instanceof Error ? (err.stack ?? err.message) : String(err) },
        () => process.exit(1),
      ),
  );
});
