/**
 * Ctrl-C (SIGINT) or SIGTERM during a one-shot command: Node's default ends the process at once,
 * silently, and no `finally` runs — the clone-cache lock stayed behind. Here the command says what
 * was interrupted and for how long it had run, releases the locks this process holds, and exits
 * with 128 + the signal number (130 for SIGINT), as a shell reports a command a signal ended.
 */
import { releaseCloneLocksNow } from '../working-copy/index.js';

const NUMBER: Record<string, number> = { SIGINT: 2, SIGTERM: 15 };

/**
 * Until the returned function is called, SIGINT and SIGTERM print `gpuops <command>: interrupted
 * by SIGINT during <what> after N s; …` on stderr, release the clone-cache locks and exit.
 */
export function onInterrupt(command: string, what: string): () => void {
  const started = Date.now();
  const handler = (signal: NodeJS.Signals): void => {
    const released = releaseCloneLocksNow();
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    process.stderr.write(
      `gpuops ${command}: interrupted by ${signal} during ${what} after ${seconds} s; ` +
        `${released.length > 0 ? `released the clone-cache lock (${released.join(', ')}); ` : ''}` +
        `what was already pushed or opened stays, nothing more was written\n`,
    );
    process.exit(128 + (NUMBER[signal] ?? 1));
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return () => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  };
}
