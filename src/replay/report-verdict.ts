/**
 * The verdict at the top of the replay's report (pure): the table of `verdict.ts` (each gpuops mode
 * against the HPA at its best target, whole history beside its second half) and its sentence.
 */
import { esc } from './report-frontier.js';
import type { Verdict } from './verdict.js';

/** The verdict's section: heading, sentence, table (`id="verdict"`). */
export function verdictSection(v: Verdict): string {
  const cell = (a: number, b: number, d: number) => `<td>${a.toFixed(d)}</td><td>${b.toFixed(d)}</td>`;
  const rows = v.rows
    .map(
      (r) =>
        `<tr class="${r.withinLimits ? 'ok' : 'miss'}" data-engine="${esc(r.engine)}"><td>${esc(r.label)}${r.engine === 'hpa' ? ' (model)' : ''}${r.withinLimits ? '' : ' ✗ limits'}</td>` +
        cell(r.whole.utilizationPercent, r.secondHalf.utilizationPercent, 1) +
        cell(r.whole.allocatedGpuHours, r.secondHalf.allocatedGpuHours, 1) +
        cell(r.whole.unservedPercent, r.secondHalf.unservedPercent, 2) +
        cell(r.whole.aboveMaxPercent, r.secondHalf.aboveMaxPercent, 2) +
        '</tr>',
    )
    .join('');
  return `<section id="verdict"><h2>Verdict: gpuops against the HPA at its best target</h2>
<p class="sentence">${esc(v.sentence)}</p>
<table><thead><tr><th rowspan="2">same limits: ≤ ${v.limits.aboveMaxPercent} % pod-time above max, ≤ ${v.limits.unservedPercent} % unserved</th><th colspan="2">utilisation %</th><th colspan="2">GPU-hours</th><th colspan="2">unserved %</th><th colspan="2">above max %</th></tr>
<tr><th>whole</th><th>2nd half</th><th>whole</th><th>2nd half</th><th>whole</th><th>2nd half</th><th>whole</th><th>2nd half</th></tr></thead>
<tbody>${rows}</tbody></table></section>`;
}
