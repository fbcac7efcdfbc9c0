/**
 * `npm run replay`: the full utilisation trace through every engine (a benchmark script, not a
 * test). Reads `../shared/data/traces/alibaba-genai-v2026-pod-gpu-util/pod_gpu_duty_cycle_anon.csv`
 * beside the main checkout (research-use data, never copied into the project), or the file given
 * with `--trace`; other flags go to `gpuops replay` as they are (`--hours H`, `--from-hours H`
 * replay a slice). Prints every figure of every engine (table and JSON lines) and the wall time.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUNDLED_TRACE, bundledTraceCandidates } from '../src/cli/bundled-trace.js';
import { main } from '../src/cli/main.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/**
 * Where the default trace may be, in order: beside the main worktree (the parent of
 * `git rev-parse --git-common-dir`, so a linked worktree such as `/work/wt/x` finds
 * `/work/shared`), then `shared/` in this checkout's parent and every folder above it.
 */
function traceCandidates(): string[] {
  const out: string[] = [];
  try {
    const common = execFileSync('git', ['rev-parse', '--path-format=absolute', '--git-common-dir'], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    out.push(path.join(path.dirname(path.dirname(common)), BUNDLED_TRACE));
  } catch {
    // Not a git checkout (or no git): the walk below still looks.
  }
  out.push(...bundledTraceCandidates(ROOT));
  return [...new Set(out)];
}

const args = process.argv.slice(2);
if (!args.includes('--trace')) {
  const candidates = traceCandidates();
  const found = candidates.find((f) => existsSync(f));
  if (found === undefined) {
    process.stderr.write(
      `npm run replay: no trace at ${candidates[0]} (nor at ${candidates.slice(1).join(', ')}); pass --trace FILE\n`,
    );
    process.exit(2);
  }
  args.unshift('--trace', found);
}
const started = Date.now();
const code = await main([process.argv[0]!, 'gpuops', 'replay', '--output', 'both', ...args]);
process.stderr.write(`npm run replay: ${((Date.now() - started) / 1000).toFixed(1)} s wall\n`);
process.exit(code);
