/**
 * Child-process entry of one simulated engine (see `engine-process.ts`): receives
 * `{ trace, engine, settings, dir }` over IPC, runs {@link runSimEngine}, sends back
 * `{ ok: true, result }` or `{ ok: false, error }`, and exits.
 */
import { runSimEngine, type ReplaySettings, type SimEngine } from './sim-engine.js';
import type { Trace } from './trace.js';

interface Job {
  trace: Trace;
  engine: SimEngine;
  settings: ReplaySettings;
  dir: string;
}

process.once('message', (job: Job) => {
  runSimEngine(job.trace, job.engine, job.settings, job.dir).then(
    (result) => process.send!({ ok: true, result }, () => process.exit(0)),
    (err: unknown) =>
      process.send!(
        { ok: false, error: err instanceof Error ? (err.stack ?? err.message) : String(err) },
        () => process.exit(1),
      ),
  );
});
