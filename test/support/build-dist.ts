/**
 * Vitest global setup: the tests that start `node bin/gpuops.js` run the compiled `dist/`, so it
 * is rebuilt (`npm run build`) before the run when a source file or build setting is newer than
 * it, or it is missing. After `npm ci` (whose `prepare` builds) and no edit, nothing is rebuilt.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BUILT = path.join(ROOT, 'dist/cli/main.js');

/** Newest modification time (ms) of the non-test `.ts` files under `dir`. */
function newestSource(dir: string): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) newest = Math.max(newest, newestSource(p));
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts'))
      newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

/** True when `dist/` is missing or older than `src/` or the build's tsconfig files. */
export function distIsStale(): boolean {
  let built: number;
  try {
    built = statSync(BUILT).mtimeMs;
  } catch {
    return true;
  }
  const settings = ['tsconfig.json', 'tsconfig.build.json'].map((f) => statSync(path.join(ROOT, f)).mtimeMs);
  return Math.max(newestSource(path.join(ROOT, 'src')), ...settings) > built;
}

export default function setup(): void {
  if (!distIsStale()) return;
  process.stderr.write('dist/ is older than src/: npm run build\n');
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
}
