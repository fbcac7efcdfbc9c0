/**
 * Start-ups drawn from a latency file (pure): `gpuops replay --startup-latency-file FILE` gives
 * each new replica a start-up drawn from a service's own model-load latencies, such as the bundled
 * trace's `basemodel_update_latency_anon.csv` (header `timestamp_anon,value,container_ip`, `value`
 * in milliseconds: p10 2.6 s, p50 22.7 s, p90 42 s). A replica on a node where its image is
 * pre-pulled (`manifests/prepull.ts`) waits for the model load only, so the draw is its start-up.
 * The draws are fixed by a seed, so two runs (and gpuops, the HPA and the bound within one) give
 * the n-th new replica the same start-up.
 */

/** Longest latency accepted (ms): one hour; a larger value is most often a unit mistake. */
export const MAX_LATENCY_MS = 3_600_000;

/**
 * The latencies of a CSV with a `value` column in milliseconds, as seconds, in file order.
 * @throws Error naming the file, line and field of the first bad value (not a number, negative,
 *   above an hour), a missing `value` column, or a file with no value
 */
export function parseLatencyCsv(text: string, source: string): number[] {
  const lines = text.split(/\r?\n/);
  const header = (lines[0] ?? '').split(',').map((h) => h.trim());
  const iv = header.indexOf('value');
  if (iv < 0) throw new Error(`${source}:1: header: missing column "value" (have: ${header.join(', ')})`);
  const out: number[] = [];
  for (let n = 1; n < lines.length; n++) {
    const line = lines[n]!;
    if (line.trim() === '') continue;
    const cell = line.split(',')[iv]?.trim() ?? '';
    const ms = Number(cell);
    if (cell === '' || !Number.isFinite(ms) || ms < 0 || ms > MAX_LATENCY_MS)
      throw new Error(
        `${source}:${n + 1}: value: expected a latency in milliseconds, 0 to ${MAX_LATENCY_MS}, got "${cell}"`,
      );
    out.push(ms / 1000);
  }
  if (out.length === 0) throw new Error(`${source}: no latency to draw from`);
  return out;
}

/**
 * The n-th draw (n ≥ 0) from `seconds`, uniformly and reproducibly: a 32-bit integer hash of
 * `seed` and n (SplitMix32-style mixing) picks the index. @throws Error when `seconds` is empty
 */
export function drawStartups(seconds: readonly number[], seed = 1): (n: number) => number {
  if (seconds.length === 0) throw new Error('drawStartups: no latency to draw from');
  return (n: number) => seconds[mix(seed, n) % seconds.length]!;
}

function mix(seed: number, n: number): number {
  let x = (Math.imul(seed, 0x9e3779b1) + Math.imul(n + 1, 0x85ebca6b)) >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x7feb352d) >>> 0;
  x = Math.imul(x ^ (x >>> 15), 0x846ca68b) >>> 0;
  return (x ^ (x >>> 16)) >>> 0;
}

/** The `q` quantile (0..1, nearest rank) of `seconds`, for the text; NaN when empty. */
export function quantile(seconds: readonly number[], q: number): number {
  if (seconds.length === 0) return NaN;
  const sorted = [...seconds].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)]!;
}
