/**
 * Where the bundled utilisation trace lives: `shared/data/traces/…` in a folder above the checkout
 * (research-use data, read in place and never copied into the project). `npm run replay`
 * (`bench/replay.ts`) passes it as `--trace`; `gpuops replay` without `--trace` names it in its
 * usage error. Reads only whether files exist.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';

/** The bundled trace's path below a folder that holds `shared/` (the Alibaba GenAI pod trace). */
export const BUNDLED_TRACE =
  'shared/data/traces/alibaba-genai-v2026-pod-gpu-util/pod_gpu_duty_cycle_anon.csv';

/** `BUNDLED_TRACE` under the parent of `root` and under every folder above it, nearest first. */
export function bundledTraceCandidates(root: string): string[] {
  const out: string[] = [];
  for (let dir = path.dirname(path.resolve(root)); ; dir = path.dirname(dir)) {
    out.push(path.join(dir, BUNDLED_TRACE));
    if (path.dirname(dir) === dir) break;
  }
  return out;
}

/**
 * The one-line usage error of `gpuops replay` without `--trace`: the flag, what it takes, and
 * where the bundled trace is above `root` (the checkout), or that it is in no folder above it.
 */
export function missingTraceMessage(root: string): string {
  const found = bundledTraceCandidates(root).find((f) => existsSync(f));
  const where = found
    ? `the bundled trace is ${found} (read it in place, never copy it into the project)`
    : `the bundled trace (../${BUNDLED_TRACE}) is in no folder above ${path.resolve(root)}`;
  return `replay needs --trace FILE, a trace CSV (value,timestamp_anon,container_ip) or a Prometheus query_range JSON; ${where}; \`npm run replay\` passes it for you, or --synthetic (a synthetic day that follows its published figures, docs/replay.md) when it is in no folder above`;
}
