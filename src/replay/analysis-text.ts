/**
 * The analysis of a replay as terminal text (pure): both frontiers, the lead at equal unserved
 * load, the β (and scale-down margin) chosen on the first half with both halves and the whole, and the model beside the
 * simulated engines at their own parameters.
 */
import type { EngineFigures } from './figures.js';
import type { ReplayAnalysis } from './analysis.js';

const row = (label: string, f: EngineFigures) =>
  `  ${label.padEnd(22)} ${f.utilizationPercent.toFixed(1).padStart(6)} %  ${f.aboveMaxPercent
    .toFixed(2)
    .padStart(6)} %  ${f.unservedPercent.toFixed(3).padStart(7)} %  ${String(f.flaps).padStart(5)}\n`;
const head = `  ${''.padEnd(22)} ${'util'.padStart(8)}  ${'>max'.padStart(8)}  ${'unserved'.padStart(9)}  flaps\n`;

/**
 * The text (see the module comment). `sim` are the simulated engines' figures (`hpa`,
 * `gpuops-patch`), printed beside the model's at the same parameters when present.
 */
export function formatAnalysis(
  a: ReplayAnalysis,
  p: { hpaTarget: number; headroomFactor: number },
  sim: readonly EngineFigures[] = [],
): string {
  let out = `frontiers (model of the same delays; utilisation, pod-time above max, unserved, flaps):\n${head}`;
  for (const x of a.frontiers.hpa) out += row(`hpa target ${x.parameter} %`, x.figures);
  for (const x of a.frontiers.gpuops) out += row(`gpuops headroom β ${x.parameter}`, x.figures);
  out += a.gap.compared.length
    ? `gpuops ahead of the HPA at equal unserved load (0.05–0.5 %): by ${a.gap.minLead!.toFixed(1)} points at least (` +
      a.gap.compared
        .map(
          (c) =>
            `β ${c.beta}: ${c.gpuops.toFixed(1)} vs ${c.bound ? 'at most ' : ''}${c.hpa.toFixed(1)} % at ${c.unserved} %`,
        )
        .join('; ') +
      ')\n'
    : 'gpuops ahead of the HPA at equal unserved load: no gpuops point in 0.05–0.5 % unserved to compare\n';
  const c = a.chosen;
  const limits = `≤ ${c.limits.aboveMaxPercent} % above max, ≤ ${c.limits.unservedPercent} % unserved`;
  const what = c.margin === null ? 'β' : 'β and scale-down margin';
  const which = c.margin === null ? `${c.beta}` : `β ${c.beta}, margin ${c.margin}`;
  out += c.fallback
    ? `${what} chosen on the first half: none kept ${limits} on it; the largest (${which}) stands in, not a choice\n${head}`
    : `${what} chosen on the first half (highest utilisation at ${limits}): ${which}\n${head}`;
  out +=
    row('first half (chosen on)', c.firstHalf) +
    row('second half (reported)', c.secondHalf) +
    row('whole trace', c.whole);
  out += `model beside the simulated engines (fixed before the run: HPA target ${p.hpaTarget} %, β ${p.headroomFactor}):\n${head}`;
  out += row(`model hpa ${p.hpaTarget} %`, a.model.hpa);
  const hpa = sim.find((f) => f.engine === 'hpa');
  if (hpa) out += row('simulated hpa', hpa);
  out += row(`model gpuops β ${p.headroomFactor}`, a.model.gpuops);
  const patch = sim.find((f) => f.engine === 'gpuops-patch');
  if (patch) out += row('simulated gpuops-patch', patch);
  return out;
}
