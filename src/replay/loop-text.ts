/**
 * The replay's loops as text and verdicts (pure): per loop its delays, gpuops's figure (β and
 * margin chosen on the first half; the second half beside the whole), the HPA under the same delays
 * at equal unserved load, and the causal bound line; then the loop's targets, each figure beside
 * its target.
 */
import type { EngineFigures } from './figures.js';
import { FLAGS_LOOP, type LoopResult } from './loop-scenarios.js';
import { judge, type TargetVerdict } from './targets.js';

const pct = (x: number, d = 1) => `${x.toFixed(d)} %`;

function delaysText(r: LoopResult): string {
  const s = r.spec;
  const react = s.eventDriven
    ? `event-driven on a ${s.sampleDelaySeconds} s signal (pass every ${s.passIntervalSeconds} s as backstop)`
    : `a ${s.sampleDelaySeconds} s sample, a pass every ${s.passIntervalSeconds} s`;
  const up = s.startupLatencies
    ? `start-ups drawn from ${s.startupLatencies.length} model-load latencies on a pre-pulled image (p90 ${r.startupSeconds} s)`
    : `${s.startupSeconds} s start-ups`;
  return `${react}, ${up}, ${s.tickSeconds} s tick; windows sized to it: flap window ${r.flapWindowSeconds} s`;
}

/** The HPA at its best target within the same limits, and gpuops's lead over it (one line). */
function hpaBestText(r: LoopResult): string {
  const h = r.hpaBest;
  if (h === null) return '    the HPA within the same limits: none of its targets kept them\n';
  const f = h.figures;
  const lead = r.chosen.whole.utilizationPercent - f.utilizationPercent;
  return (
    `    the HPA at its best target within the same limits (hindsight): ${pct(f.utilizationPercent)} ` +
    `(target ${h.parameter} %; ${pct(f.aboveMaxPercent, 2)} above max, ${pct(f.unservedPercent, 3)} unserved); ` +
    `gpuops ${Math.abs(lead).toFixed(1)} points ${lead >= 0 ? 'ahead' : 'behind'}\n`
  );
}

/** The text of every loop. */
export function formatLoops(loops: readonly LoopResult[]): string {
  let out = 'loops (model; gpuops β and margin chosen on the first half; the HPA under the same delays):\n';
  for (const r of loops) {
    const c = r.chosen;
    const w = c.whole;
    const b = r.bound.best;
    out += `  ${r.spec.name}: ${delaysText(r)}\n`;
    out +=
      `    gpuops β ${c.beta}${c.margin === null ? '' : ` margin ${c.margin}`}${c.fallback ? ' (none kept the limits)' : ''}: ` +
      `${pct(w.utilizationPercent)} whole, ${pct(c.secondHalf.utilizationPercent)} second half; ` +
      `${pct(w.aboveMaxPercent, 2)} above max, ${pct(w.unservedPercent, 3)} unserved, ` +
      `${w.flaps} flaps within ${r.flapWindowSeconds} s (${r.flaps300} within 300 s)\n`;
    out += r.gap.compared.length
      ? `    ahead of the HPA at equal unserved load: by ${r.gap.minLead!.toFixed(1)} points at least\n`
      : '    ahead of the HPA at equal unserved load: no point in 0.05–0.5 % unserved to compare\n';
    out += hpaBestText(r);
    out += b
      ? `    causal bound (best of ${r.bound.tried} reacting rules R(W, β) at ≤ 2 % above max, ≤ 0.5 % unserved): ` +
        `${pct(b.utilizationPercent)} (W ${b.windowSeconds} s, β ${b.beta}); gpuops ${(b.utilizationPercent - w.utilizationPercent).toFixed(1)} points below it\n`
      : `    causal bound: none of ${r.bound.tried} reacting rules kept the limits\n`;
  }
  return out;
}

/**
 * The loop's targets (docs/replay.md, "The loop: its delays, the causal bound, a fast loop"): the
 * simulated patch mode (`patch`, at the flags' delays) within 1.5 points of its loop's bound; the
 * fast loop ≥ 50 %, ≤ 4 flaps within its flap window, ≥ 3 points ahead of the HPA under the same
 * delays. A loop with drawn start-ups has no target: its figure and bound are printed.
 */
export function loopVerdicts(loops: readonly LoopResult[], patch?: EngineFigures): TargetVerdict[] {
  const out: TargetVerdict[] = [];
  const flags = loops.find((l) => l.spec.name === FLAGS_LOOP);
  if (flags && patch) {
    const gap = flags.bound.best ? flags.bound.best.utilizationPercent - patch.utilizationPercent : null;
    out.push(judge('gpuops-patch', ['points below the causal bound', gap, '≤', 1.5, 'points', 1]));
  }
  const fast = loops.find((l) => l.spec.name === 'fast loop');
  if (fast) {
    const w = fast.chosen.whole;
    out.push(judge('fast loop', ['utilisation', w.utilizationPercent, '≥', 50, '%', 1]));
    out.push(judge('fast loop', ['pod-time above max', w.aboveMaxPercent, '≤', 2, '%', 2]));
    out.push(judge('fast loop', ['unserved', w.unservedPercent, '≤', 0.5, '%', 3]));
    out.push(judge('fast loop', [`flaps within ${fast.flapWindowSeconds} s`, w.flaps, '≤', 4, '', 0]));
    out.push(judge('fast loop', ['frontier lead over the HPA', fast.gap.minLead, '≥', 3, 'points', 1]));
  }
  return out;
}
