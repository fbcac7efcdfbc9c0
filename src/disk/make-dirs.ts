/**
 * `mkdir -p` that always ends. Node 20's `mkdirSync(dir, { recursive: true })` never returns for a
 * folder whose parent exists but cannot hold children (anything under `/proc`, a dangling
 * symlink): its walk steps back on ENOENT and forward on EEXIST forever (the same loop as
 * nodejs/node#27198 and bun's #40600).
 */
import { mkdirSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * Creates `dir` and its missing parents, one `mkdir` each from the top; a folder that exists is
 * left as it is.
 * @throws ENOTDIR when `dir` or a parent is a file; the `mkdir` error (`ENOENT`, `EACCES`, `ENOTDIR`, …) of the first folder that cannot be made
 */
export function makeDirs(dir: string): void {
  const missing: string[] = [];
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    const kind = kindOf(d);
    if (kind === 'other') {
      const err: NodeJS.ErrnoException = new Error(`ENOTDIR: not a directory, mkdir '${dir}'`);
      err.code = 'ENOTDIR';
      throw err;
    }
    if (kind === 'dir') break;
    missing.push(d);
    if (path.dirname(d) === d) break;
  }
  for (const d of missing.reverse()) {
    try {
      mkdirSync(d);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}

/** Whether `p` is a folder, something else, or nothing. */
function kindOf(p: string): 'dir' | 'other' | 'none' {
  try {
    return statSync(p).isDirectory() ? 'dir' : 'other';
  } catch {
    return 'none';
  }
}
