/**
 * `node --import tsx bench/replay-bound.ts [TRACE]`: how much utilisation any reactive sizing of
 * the replay's kind can reach at ≤ 2 % pod-time above max on a trace (a benchmark script, not a
 * test; issue 25). An idealised controller, kinder than any real one: the replicas serving
 * instant i are ceil((M + β·√M) / max) with M the highest load of the `w` instants up to `k`
 * instants before i — it reacts `k` instants late and nothing else: pods appear and go at the
 * instant's start, hold no GPU while they start, and may reverse at once (no flap limit). The
 * replay's delays from a load change to Ready capacity are 75–105 s (sample 15 s, a pass within
 * 30 s, start-up 60 s on 15 s ticks), between k = 1 and k = 2 of the trace's ~57 s instants.
 * Prints, per k, the best utilisation at ≤ 2 % above max over w = 1..8 and β = 0..2.5 (figures
 * as `src/replay/figures.ts` measures them, max 80 %). Default trace: the one `npm run replay`
 * reads.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { instantSeconds, medianStep, offeredLoad, parseTrace } from '../src/replay/trace.js';

const TRACE = 'shared/data/traces/alibaba-genai-v2026-pod-gpu-util/pod_gpu_duty_cycle_anon.csv';
const MAX = 80;

function defaultTrace(): string {
  const common = execFileSync('git', ['rev-parse', '--path-format=absolute', '--git-common-dir'], {
    encoding: 'utf8',
  }).trim();
  return path.join(path.dirname(path.dirname(common)), TRACE);
}

const file = process.argv[2] ?? defaultTrace();
const trace = parseTrace(readFileSync(file, 'utf8'), file);
const loads = trace.instants.map((x) => offeredLoad(x) / 100); // GPUs
const seconds = trace.instants.map((_, i) => instantSeconds(trace, i));

/** Utilisation, pod-time above max and unserved (percent) of `n` replicas per instant. */
function measure(n: number[]): { util: number; above: number; unserved: number } {
  let held = 0;
  let served = 0;
  let offered = 0;
  let above = 0;
  for (let i = 0; i < loads.length; i++) {
    const dt = seconds[i]!;
    held += n[i]! * dt;
    served += Math.min(loads[i]!, n[i]!) * dt;
    offered += loads[i]! * dt;
    if ((100 * loads[i]!) / n[i]! > MAX) above += n[i]! * dt;
  }
  return {
    util: (100 * served) / held,
    above: (100 * above) / held,
    unserved: (100 * (offered - served)) / offered,
  };
}

/** The idealised controller's replicas: `k` instants late, the highest of `w` instants, factor β. */
function replicas(k: number, w: number, beta: number): number[] {
  return loads.map((_, i) => {
    let m = 0;
    for (let j = Math.max(0, i - k - w + 1); j <= i - k; j++) m = Math.max(m, loads[j]!);
    return Math.max(1, Math.ceil((m + beta * Math.sqrt(m)) / (MAX / 100) - 1e-9));
  });
}

process.stdout.write(`${file}: ${loads.length} instants, ${medianStep(trace)} s apart (median)\n`);
for (const k of [1, 2]) {
  let best: { w: number; beta: number; util: number; above: number; unserved: number } | null = null;
  for (let w = 1; w <= 8; w++)
    for (let beta = 0; beta <= 2.5; beta += 0.25) {
      const r = measure(replicas(k, w, beta));
      if (r.above <= 2 && (best === null || r.util > best.util)) best = { w, beta, ...r };
    }
  process.stdout.write(
    best === null
      ? `k ${k}: no setting keeps ≤ 2 % above max\n`
      : `k ${k} (${k === 1 ? '~57' : '~114'} s late): best ${best.util.toFixed(1)} % utilisation at ${best.above.toFixed(2)} % above max, ${best.unserved.toFixed(3)} % unserved (w ${best.w} instants, β ${best.beta})\n`,
  );
}
