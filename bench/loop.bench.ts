/**
 * Issue 42: a loop that reacts in seconds. On the reconcile bench's worlds (2,000 GPU nodes /
 * 1,000 algorithms and 10,000 / 5,000, SQLite, the watch-driven cache `gpuops run` reads; see
 * `reconcile-fleet.ts`), after the warm and nothing-changed passes:
 * - the steady pass, `GPUOPS_BENCH_STEADY` times (default 5; median and spread): every GPU's
 *   utilisation moved by 0.3 points since the last pass (real values move every pass; the
 *   nothing-changed pass serves the same answer, so every decision is memoised), no decision
 *   changed. Targets ≤ 300 ms at 2,000 nodes, ≤ 1 s at 10,000;
 * - the crossing: one algorithm's pods go to 99 % on the metrics side; the crossing trigger
 *   (`controller/crossing-trigger.ts`, reading every second with the pass's scoped query) wakes a
 *   pass, which writes the scale-up (the bench's worlds are in pull-request mode: the pushed
 *   branch). From the change to the pass written: target ≤ 5 s at 2,000 nodes.
 * `GPUOPS_BENCH_BIG=0` leaves the 10,000-node world out, `=only` measures it alone. Before each steady
 * pass the fake Prometheus answers at the pass's time, as a real one's clock moves (each sample's time
 * with it); `GPUOPS_BENCH_METRICS_TIME=fixed` keeps one evaluation time throughout (the bench before
 * 2026-12-07). Beside the figures, one line: the digest of every steady pass's decisions and writes
 * (`decision-digest.ts`, the passes in order), the same before and after a change that only makes
 * the pass faster. Beside the steady pass's wall time, the share of it the fake Prometheus spent
 * rendering and sending its answer in this (the bench's) process, on the same cores: a real
 * Prometheus spends it on its own machine; the figure itself stays the pass end to end.
 */
import { digestOfPasses } from './decision-digest.js';
import { buildWorld } from './reconcile-fleet.js';
import { measure, spread } from './reconcile.bench.js';
import type { Figure } from './run.js';
import type { PassReport } from './reconcile-pass.js';

const SIZES = [
  { gpuNodes: 2000, algorithms: 1000, steadyMs: 300, crossingMs: 5000 },
  { gpuNodes: 10000, algorithms: 5000, steadyMs: 1000, crossingMs: undefined },
] as const;

function steadyRepeat(): number {
  const n = Number(process.env.GPUOPS_BENCH_STEADY ?? 5);
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`GPUOPS_BENCH_STEADY must be a whole number ≥ 1, got ${n}`);
  return n;
}

/** The digest of the steady passes' digests, in order; throws when a pass sent none. */
function steadyDigest(runs: readonly { digest?: string }[]): string {
  const digests = runs.map((r, i) => {
    if (!r.digest) throw new Error(`loop bench: steady pass ${i + 1} sent no decision digest`);
    return r.digest;
  });
  return digestOfPasses(digests);
}

/**
 * The checkpoint the loop runs after each steady pass, while it waits for the next (SQLite; none
 * on PostgreSQL): its wall time and the log's pages, the pass's writes (4 KiB each).
 */
function checkpointFigures(at: string, runs: readonly PassReport[]): Figure[] {
  const ck = runs.flatMap((r) => (r.checkpoint ? [r.checkpoint] : []));
  if (ck.length === 0) return [];
  const wall = spread(ck.map((c) => c.wallMs));
  const pages = spread(ck.map((c) => c.logPages));
  return [
    {
      name: `loop (${at}): steady pass: the checkpoint after it, not in the pass (${pages.min}–${pages.max} log pages): wall time (median of ${ck.length}; ${wall.min.toFixed(0)}–${wall.max.toFixed(0)} ms)`,
      value: wall.median,
      unit: 'ms',
    },
  ];
}

export default async function bench(): Promise<Figure[]> {
  const out: Figure[] = [];
  for (const size of SIZES) {
    if (size.gpuNodes > 2000 && process.env.GPUOPS_BENCH_BIG === '0') continue;
    if (size.gpuNodes <= 2000 && process.env.GPUOPS_BENCH_BIG === 'only') continue;
    const world = await buildWorld(size);
    try {
      const m = await measure(world, world.connection, 1, steadyRepeat());
      const at = `${size.gpuNodes} GPU nodes / ${m.world.algorithms} algorithms`;
      const wall = spread(m.steadyRuns.map((r) => r.wallMs));
      const cpu = spread(m.steadyRuns.map((r) => r.cpuMs));
      const fake = spread(m.steadyRuns.map((r) => r.prometheusAnswerMs));
      const written = Math.max(...m.steadyRuns.map((r) => r.commits + r.pushes + r.prWrites));
      out.push(
        {
          name: `loop (${at}): steady pass (every GPU moved 0.3 points, no decision changed): wall time (median of ${m.steadyRuns.length}; ${wall.min.toFixed(0)}–${wall.max.toFixed(0)} ms)`,
          value: wall.median,
          unit: 'ms',
          target: size.steadyMs,
        },
        {
          // Inside the figure above, not gpuops's: what a real Prometheus spends on its own machine.
          name: `loop (${at}): steady pass: of which the fake Prometheus's answer (render and send in the bench's parent process, on the same cores; median of ${m.steadyRuns.length}; ${fake.min.toFixed(0)}–${fake.max.toFixed(0)} ms)`,
          value: fake.median,
          unit: 'ms',
        },
        {
          // On a shared machine the CPU time moves less with its load than the wall time does.
          name: `loop (${at}): steady pass: CPU time (median of ${m.steadyRuns.length}; ${cpu.min.toFixed(0)}–${cpu.max.toFixed(0)} ms)`,
          value: cpu.median,
          unit: 'ms',
        },
        {
          // Open pull requests carry the utilisation in their text: a moved value rewrites them.
          name: `loop (${at}): steady pass: commits, pushes and PR writes (most)`,
          value: written,
          unit: '',
        },
        ...checkpointFigures(at, m.steadyRuns),
        {
          // Not a time: the line a speed change compares, before and after, for the same decisions.
          name: `loop (${at}): steady passes' decision digest ${steadyDigest(m.steadyRuns)} (sha256 of every steady pass's decisions and writes, in order; value: passes)`,
          value: m.steadyRuns.length,
          unit: '',
        },
        {
          name: `loop (${at}): nothing-changed pass beside it (same answer each pass): wall time`,
          value: m.passes.unchanged.wallMs,
          unit: 'ms',
        },
      );
      const c = m.crossing;
      if (c)
        out.push({
          name: `loop (${at}): crossing on the metrics side → its pass written (${Object.keys(c.kubeByPath)[0] ?? ''}; ${
            Object.entries(c.actions)
              .map(([k, n]) => `${k} ×${n}`)
              .join(', ') || 'nothing written'
          })`,
          value: c.wallMs,
          unit: 'ms',
          ...(size.crossingMs !== undefined ? { target: size.crossingMs } : {}),
        });
    } finally {
      await world.close();
    }
  }
  return out;
}
