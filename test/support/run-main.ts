/**
 * Runs `gpuops ...args` in process through the CLI's `main`, as `bin/gpuops.js` does, capturing
 * what it writes to stdout and stderr. `process.exitCode` is cleared before and after, so one
 * row's exit code never leaks into the next or into vitest's own.
 */
import { vi } from 'vitest';
import { main } from '../../src/cli/main.js';

/** The exit code `main` returned and everything written to stdout / stderr meanwhile. */
export interface MainRun {
  code: number;
  out: string;
  err: string;
}

/** Runs `gpuops ...args` in this process and returns its exit code and output. */
export async function runMain(...args: string[]): Promise<MainRun> {
  let out = '';
  let err = '';
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((s) => ((out += String(s)), true));
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((s) => ((err += String(s)), true));
  process.exitCode = undefined;
  try {
    return { code: await main(['node', 'gpuops', ...args]), out, err };
  } finally {
    o.mockRestore();
    e.mockRestore();
    process.exitCode = undefined;
  }
}
