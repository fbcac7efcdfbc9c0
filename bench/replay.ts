/**
 * `npm run replay`: the full utilisation trace through every engine (a benchmark script, not a
 * test). Reads `../shared/data/traces/alibaba-genai-v2026-pod-gpu-util/pod_gpu_duty_cycle_anon.csv`
 * relative to the project root (research-use data, never copied into the project), or the file
 * given with `--trace`; other flags go to `gpuops replay` as they are. Prints every figure of
 * every engine (table and JSON lines) and the wall time.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { main } from '../src/cli/main.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const DEFAULT_TRACE = `${ROOT}../shared/data/traces/alibaba-genai-v2026-pod-gpu-util/pod_gpu_duty_cycle_anon.csv`;

const args = process.argv.slice(2);
if (!args.includes('--trace')) {
  if (!existsSync(DEFAULT_TRACE)) {
    process.stderr.write(`npm run replay: no trace at ${DEFAULT_TRACE}; pass --trace FILE\n`);
    process.exit(2);
  }
  args.unshift('--trace', DEFAULT_TRACE);
}
const started = Date.now();
const code = await main([process.argv[0]!, 'gpuops', 'replay', '--output', 'both', ...args]);
process.stderr.write(`npm run replay: ${((Date.now() - started) / 1000).toFixed(1)} s wall\n`);
process.exit(code);
