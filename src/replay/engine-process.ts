/**
 * Runs one simulated engine in its own Node.js process, so that the engines of a replay use every
 * core (each pass is CPU-bound: the simulated API server, the reconcile pass, SQLite). The child is
 * `engine-worker` started with this process's `execArgv` (e.g. `--import tsx`), and its result
 * comes back over IPC.
 */
import { fork } from 'node:child_process';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SimEngine, SimEngineResult } from './sim-engine.js';
import type { ReplaySettings } from './replay-settings.js';
import type { Trace } from './trace.js';

const self = fileURLToPath(import.meta.url);
const WORKER = fileURLToPath(new URL(`./engine-worker${extname(self)}`, import.meta.url));

/**
 * {@link runSimEngine} in a child process; `onProgress` hears the child's progress (at most every 2 s).
 * @throws Error with the child's stack when the engine fails, or naming the exit code when the
 *   child dies without an answer
 */
export function runSimEngineInChild(
  trace: Trace,
  engine: SimEngine,
  settings: ReplaySettings,
  dir: string,
  onProgress?: (fraction: number) => void,
): Promise<SimEngineResult> {
  return new Promise((resolve, reject) => {
    const child = fork(WORKER, [], {
      execArgv: process.execArgv,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    // Settled when the child has exited (and is reaped), so its CPU time counts in this
    // process's children's (`processCpuSeconds`).
    let answer: Message | undefined;
    type Message =
      { progress: number } | { ok: true; result: SimEngineResult } | { ok: false; error: string };
    child.on('message', (m: Message) => {
      if ('progress' in m) return onProgress?.(m.progress);
      answer = m;
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (answer === undefined || 'progress' in answer)
        reject(new Error(`replay ${engine}: engine process exited (${signal ?? code}) without a result`));
      else if (answer.ok) resolve(answer.result);
      else reject(new Error(`replay ${engine}: ${answer.error}`));
    });
    child.send({ trace, engine, settings, dir });
  });
}
