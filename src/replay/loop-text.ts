/**
 * The replay's loops as text and verdicts (pure): per loop its delays, gpuops's figure (β and
 * margin chosen on the first half; the second half beside the whole), the HPA under the same delays
 * at equal unserved load, and the causal bound line; then the loop's targets, each figure beside
 * its target.
 */
import { FRONTIER_LEAD_TARGET, type FamilyLead } from './bound-frontier.js';
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

const rule = (r: { windowSeconds: number; beta: number }) => `R(${r.windowSeconds} s, ${r.beta})`;

/**
 * The causal bound family's frontier against the HPA's at equal unserved load (pod-time above max
 * free, the target's measure) and, held to the HPA's pod-time above max too, whether the
 * frontier-lead target is within any rule's reach (two lines; `bound-frontier.ts`).
 */
export function familyLeadText(l: FamilyLead, tried: number): string {
  const T = FRONTIER_LEAD_TARGET;
  const u = l.atUnserved;
  const head = `    the causal bound family's frontier (its ${tried} rules R(W, β), pod-time above max free), lead over the HPA at equal unserved load: `;
  let out: string;
  if (u.best === null)
    out = `${head}no rule in 0.05–0.5 % unserved to compare
`;
  else {
    const b = u.best;
    const onIt = u.compared.filter((c) => c.onFrontier).length;
    const least =
      u.minLead === null
        ? ''
        : `${u.minLead.toFixed(1)} points at least over its ${onIt} rules on it in 0.05–0.5 %, `;
    const verdict =
      b.lead < T
        ? `no rule reaches ${T}: the ≥ ${T}-point target is out of reach for any rule of the family`
        : u.minLead !== null && u.minLead >= T
          ? `≥ ${T} all along it: the target is within the family's reach`
          : `≥ ${T} at its best rule, not all along it`;
    out =
      `${head}${least}${b.lead.toFixed(1)} at most (${rule(b)}: ${pct(b.utilization)} at ${pct(b.unserved, 3)} unserved, ` +
      `${pct(b.aboveMax, 2)} above max, against ${pct(b.hpa)}); ${verdict}
`;
  }
  const a = l.atBoth;
  const head2 = `    the family at equal unserved load and no more pod-time above max than the HPA: `;
  const none = a.uncovered.length ? `; no rule as low on both at target ${a.uncovered.join(', ')} %` : '';
  if (a.best === null)
    return `${out}${head2}no HPA point in 0.05–0.5 % unserved that a rule covers${none}
`;
  const b = a.best;
  const held = "for any rule of the family held to the HPA's pod-time above max";
  const reached = a.compared.filter((c) => c.lead >= T).map((c) => `${c.target} %`);
  const verdict =
    b.lead < T
      ? `< ${T} at every target: the target is out of reach ${held}`
      : a.minLead! >= T
        ? `≥ ${T} at every target: the target is within reach ${held}`
        : `≥ ${T} only at target ${reached.join(', ')}: all along the frontier the target is out of reach ${held}`;
  return (
    `${out}${head2}lead ${a.minLead!.toFixed(1)} to ${b.lead.toFixed(1)} points over the HPA's ${a.compared.length} frontier targets compared ` +
    `(the most at ${b.target} %: ${pct(b.family)} from ${b.rules.map(rule).join('–')} against ${pct(b.hpa)}, ` +
    `${pct(b.unserved, 3)} unserved, ${pct(b.aboveMax, 2)} above max)${none}; ${verdict}
`
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
    out += familyLeadText(r.familyLead, r.bound.tried);
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
