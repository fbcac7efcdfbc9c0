/**
 * The replay's report page (pure: result in, HTML out): one self-contained file — inline CSS and
 * SVG, no script, no network — opening with the verdict (`report-verdict.ts`), then the figures
 * table and charts over time: the offered load, the GPUs each engine allocated (with markers where
 * gpuops scaled or moved a node) and each engine's utilisation of its allocated GPUs (10-minute
 * means), these two one panel per engine (`svg.allocated`, `svg.utilization`) on one scale, with
 * round value ticks (`ticks.ts`). Every series is a `<path>` with `class="series"` and
 * `data-engine`, so a browser test can find one per engine.
 */
import type { AllocationPoint } from './figures.js';
import type { EngineRun, ReplayResult } from './run-replay.js';
import { frontierSvg, verdictList, warnings } from './report-frontier.js';
import { verdictSection } from './report-verdict.js';
import { zeroAxis } from './ticks.js';

/** Each engine's line colour (the fleet report maps its row names onto these). */
export const COLORS: Record<string, string> = {
  static: '#888888',
  hpa: '#d95f02',
  'gpuops-patch': '#1b9e77',
  'gpuops-pr': '#7570b3',
  ideal: '#e7298a',
  offered: '#222222',
};

const W = 960;
const H = 220;
// The unit label sits above the plot (y 12), clear of the top tick label (PAD.top + 4).
const PAD = { left: 48, right: 12, top: 24, bottom: 28 };

/** Text escaped for HTML and SVG. */
export function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A chart's scales (SVG units) and its frame: the unit, the value grid and labels, the time labels. */
export interface Axis {
  x: (t: number) => number;
  y: (v: number) => number;
  frame: string;
}

/**
 * The axis of a chart over `endS` seconds and values from 0 to the first round tick at or above
 * `maxY` (`zeroAxis`: 0, 5, 10, 15, 20, never 0, 14, 29, 43, 58; see {@link Axis}).
 */
export function axis(endS: number, maxY: number, unit: string): Axis {
  const value = zeroAxis(Math.max(1e-9, maxY));
  const top = value.top;
  const x = (t: number) => PAD.left + (t / Math.max(1, endS)) * (W - PAD.left - PAD.right);
  const y = (v: number) => H - PAD.bottom - (v / top) * (H - PAD.top - PAD.bottom);
  const ticks: string[] = [];
  const digits = Math.max(0, ...value.ticks.map((v) => (String(v).split('.')[1] ?? '').length));
  for (const v of value.ticks) {
    ticks.push(
      `<line x1="${PAD.left}" x2="${W - PAD.right}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" class="grid"/>` +
        `<text x="${PAD.left - 4}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end">${v.toFixed(digits)}</text>`,
    );
  }
  const hours = endS / 3600;
  const every = hours > 12 ? 2 : hours > 4 ? 1 : hours > 1 ? 0.25 : 1 / 12;
  for (let h = 0; h <= hours + 1e-9; h += every) {
    // A label near the right edge ends there rather than running past it.
    const anchor = x(h * 3600) > W - PAD.right - 24 ? 'end' : 'middle';
    ticks.push(
      `<text x="${x(h * 3600).toFixed(1)}" y="${H - 8}" text-anchor="${anchor}">${every < 1 ? `${Math.round(h * 60)} min` : `${h} h`}</text>`,
    );
  }
  const frame = `<text x="4" y="12" class="unit">${esc(unit)}</text>${ticks.join('')}`;
  return { x, y, frame };
}

/** A chart: `<svg id>` of the charts' size (as wide as the page, never wider than drawn) with its axis frame and body. */
export function chartSvg(id: string, body: string, frame: string, cls?: string): string {
  return `<svg id="${id}"${cls ? ` class="${cls}"` : ''} viewBox="0 0 ${W} ${H}" width="100%" style="max-width:${W}px" role="img">${frame}${body}</svg>`;
}

/** `PLOT_CLIP` under its own id (one per panel: ids are unique in a page). */
const plotClip = (id: string) => PLOT_CLIP.replace('id="plot-area"', `id="${id}"`);

/** The plot area as `clipPath#plot-area`: a line with `clip-path="url(#plot-area)"` is cut at the top. */
export const PLOT_CLIP = `<defs><clipPath id="plot-area"><rect x="${PAD.left}" y="${PAD.top - 2}" width="${W - PAD.left - PAD.right}" height="${H - PAD.top - PAD.bottom + 2}"/></clipPath></defs>`;

/** The report pages' inline CSS. */
export const REPORT_STYLE = `body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1000px}
table{border-collapse:collapse;margin:12px 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}
td:first-child,th:first-child{text-align:left}svg{display:block;margin:8px 0 20px}
svg text{font-size:11px;fill:#555}svg .unit{font-weight:bold}.grid{stroke:#eee}
path.series{fill:none;stroke-width:1.2}path.frontier-line{fill:none;stroke-width:1.5}.frontiers{display:flex;gap:12px;flex-wrap:wrap}
.warning{background:#fde8e8;border:1px solid #d33;padding:6px 10px}.verdict.miss{color:#b00}.verdict.ok{color:#176}.key{margin-right:12px}.key i{display:inline-block;width:12px;height:3px;margin-right:4px;vertical-align:middle}
`;

/** A step path through `(t, v)` points (value holds until the next point), ending at `endS`. */
export function stepPath(points: readonly { t: number; v: number }[], a: Axis, endS: number): string {
  let d = '';
  points.forEach((p, i) => {
    const x = a.x(p.t).toFixed(1);
    const y = a.y(p.v).toFixed(1);
    d += i === 0 ? `M${x},${y}` : `H${x}V${y}`;
  });
  if (points.length > 0) d += `H${a.x(endS).toFixed(1)}`;
  return d;
}

/** State of an engine at `t` (the last point at or before it). */
function stateAt(points: readonly AllocationPoint[], t: number, from: { i: number }): AllocationPoint | null {
  while (from.i + 1 < points.length && points[from.i + 1]!.t <= t) from.i++;
  const p = points[from.i];
  return p && p.t <= t ? p : null;
}

/** Utilisation of allocated GPUs (percent) per bucket of `bucketS` seconds, sampled every 15 s. */
export function utilizationBuckets(
  offered: readonly { t: number; load: number }[],
  points: readonly AllocationPoint[],
  endS: number,
  bucketS = 600,
): { t: number; v: number }[] {
  const out: { t: number; v: number }[] = [];
  const cursor = { i: 0 };
  let oi = 0;
  for (let b = 0; b < endS; b += bucketS) {
    let served = 0;
    let allocated = 0;
    for (let t = b; t < Math.min(endS, b + bucketS); t += 15) {
      while (oi + 1 < offered.length && offered[oi + 1]!.t <= t) oi++;
      const load = offered[oi]?.load ?? 0;
      const s = stateAt(points, t, cursor);
      if (!s) continue;
      served += Math.min(load, 100 * s.ready);
      allocated += 100 * s.allocated;
    }
    out.push({ t: b, v: allocated > 0 ? (100 * served) / allocated : 0 });
  }
  return out;
}

/** Unserved load (GPUs, offered beyond the Ready pods) per bucket of `bucketS` seconds, sampled every 15 s. */
export function unservedBuckets(
  offered: readonly { t: number; load: number }[],
  points: readonly AllocationPoint[],
  endS: number,
  bucketS = 600,
): { t: number; v: number }[] {
  const out: { t: number; v: number }[] = [];
  const cursor = { i: 0 };
  let oi = 0;
  for (let b = 0; b < endS; b += bucketS) {
    let sum = 0;
    let n = 0;
    for (let t = b; t < Math.min(endS, b + bucketS); t += 15) {
      while (oi + 1 < offered.length && offered[oi + 1]!.t <= t) oi++;
      const load = offered[oi]?.load ?? 0;
      const s = stateAt(points, t, cursor);
      sum += Math.max(0, load - 100 * (s?.ready ?? 0)) / 100;
      n++;
    }
    out.push({ t: b, v: n > 0 ? sum / n : 0 });
  }
  return out;
}

function legend(engines: readonly EngineRun[]): string {
  return engines
    .map(
      (e) =>
        `<span class="key"><i style="background:${COLORS[e.figures.engine] ?? '#000'}"></i>${esc(e.figures.engine)}</span>`,
    )
    .join(' ');
}

function table(r: ReplayResult): string {
  const cols: [string, (e: EngineRun) => string][] = [
    ['engine', (e) => esc(e.figures.engine)],
    ['utilisation %', (e) => e.figures.utilizationPercent.toFixed(1)],
    ['GPU-hours', (e) => e.figures.allocatedGpuHours.toFixed(1)],
    ['saved GPU-h', (e) => e.figures.savedGpuHours.toFixed(1)],
    ['saved %', (e) => e.figures.savedPercent.toFixed(1)],
    ['pod-time above max %', (e) => e.figures.aboveMaxPercent.toFixed(2)],
    ['unserved GPU-h', (e) => e.figures.unservedGpuHours.toFixed(3)],
    ['unserved %', (e) => e.figures.unservedPercent.toFixed(3)],
    ['replica changes', (e) => String(e.figures.replicaChanges)],
    ['flaps', (e) => String(e.figures.flaps)],
    ['node relabels', (e) => String(e.figures.nodeRelabels)],
    ['wall s', (e) => e.figures.wallSeconds.toFixed(1)],
  ];
  return (
    `<table><thead><tr>${cols.map(([h]) => `<th>${h}</th>`).join('')}</tr></thead><tbody>` +
    r.engines.map((e) => `<tr>${cols.map(([, f]) => `<td>${f(e)}</td>`).join('')}</tr>`).join('') +
    '</tbody></table>'
  );
}

/** The report page for a replay result (see the module comment). */
export function renderReport(r: ReplayResult): string {
  const c = reportCharts(r);
  const s = r.settings;
  const f = r.analysis.frontiers;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>gpuops replay: ${esc(r.trace.source)}</title>
<style>
${REPORT_STYLE}</style></head><body>
<h1>gpuops replay</h1>
<p>Trace <code>${esc(r.trace.source)}</code>: ${r.trace.instants} instants, ${r.trace.pods} pods, ${r.trace.hours} h; 1 GPU per pod.
Pod start-up ${s.startupSeconds} s, sample delay ${s.sampleDelaySeconds} s, pass every ${s.passIntervalSeconds} s,
PR merged after ${s.mergeDelaySeconds} s; utilisation band ${s.min}–${s.max} %, HPA target ${s.hpaTarget} %. Replay took ${r.wallSeconds.toFixed(1)} s.</p>
${verdictSection(r.verdict)}
${warnings(r.verdicts)}
<h2>Targets</h2>
${verdictList(r.verdicts)}
${table(r)}
<h2>Frontiers: the HPA at its targets, gpuops at its headroom factors</h2>
<p>Each point is one run of the model of the same delays over the whole trace (β chosen on the first half: ${r.analysis.chosen.beta}${r.analysis.chosen.margin === null ? '' : `, scale-down margin ${r.analysis.chosen.margin}`}${r.analysis.chosen.fallback ? ', the largest, since none kept the limits on the first half' : ''}; ${
    r.analysis.gap.minLead === null
      ? 'no point to compare at equal unserved load'
      : `gpuops ahead by ${r.analysis.gap.minLead.toFixed(1)} points at least at equal unserved load, 0.05–0.5 %`
  }). <span class="key"><i style="background:#d95f02"></i>hpa</span> <span class="key"><i style="background:#1b9e77"></i>gpuops</span></p>
<div class="frontiers">${frontierSvg('frontier-unserved', f, (p) => p.figures.unservedPercent, 'unserved load (% of offered)')}${frontierSvg('frontier-above', f, (p) => p.figures.aboveMaxPercent, 'pod-time above max (%)')}</div>
<h2>Unserved load</h2>
${c.unserved}
<h2>Offered load</h2>
${c.offered}
<h2>Allocated GPUs</h2>
<p>${legend(r.engines)} — dots: gpuops changed replicas; bars at the top: gpuops moved a node between pools.${c.staticNote}</p>
${c.allocated}
<h2>Utilisation of allocated GPUs</h2>
${c.utilization}
</body></html>
`;
}

/** The report's charts (SVG), each ready to be placed, and the note on static's cut line. */
interface ReportCharts {
  offered: string;
  unserved: string;
  allocated: string;
  utilization: string;
  staticNote: string;
}

/** The charts of `r` on one time axis: offered load, unserved load, and one panel per engine of allocation and utilisation. */
function reportCharts(r: ReplayResult): ReportCharts {
  const last = r.offered[r.offered.length - 1];
  const step = r.offered.length > 1 ? r.offered[1]!.t - r.offered[0]!.t : 60;
  const endS = (last?.t ?? 0) + step;
  const loadMax = Math.max(1, ...r.offered.map((o) => o.load / 100));
  // The scale fits the engines that scale: static holds every pod of the trace and would flatten
  // them; its line is clipped at the top and the legend says what it holds.
  const scaled = r.engines.filter((e) => e.figures.engine !== 'static');
  const gpuMax = Math.max(
    1,
    ...(scaled.length ? scaled : r.engines).flatMap((e) => e.points.map((p) => p.allocated)),
  );
  const staticRun = r.engines.find((e) => e.figures.engine === 'static');
  const staticPeak = staticRun ? Math.max(0, ...staticRun.points.map((p) => p.allocated)) : 0;

  const a1 = axis(endS, loadMax * 1.05, 'offered load (GPUs busy)');
  const offered = `<path class="series" data-engine="offered" stroke="${COLORS.offered}" d="${stepPath(
    r.offered.map((o) => ({ t: o.t, v: o.load / 100 })),
    a1,
    endS,
  )}"/>`;

  // One panel per engine on one scale: five lines in one chart tangle.
  const a2 = axis(endS, gpuMax * 1.05, 'allocated GPUs');
  const allocOf = (e: EngineRun) =>
    `<path class="series" data-engine="${esc(e.figures.engine)}" stroke="${COLORS[e.figures.engine] ?? '#000'}" clip-path="url(#plot-area-${esc(e.figures.engine)})" d="${stepPath(
      e.points.map((p) => ({ t: p.t, v: p.allocated })),
      a2,
      endS,
    )}"><title>${esc(e.figures.engine)}</title></path>`;

  const a3 = axis(endS, 100, 'utilisation of allocated GPUs (%, 10-min means)');
  const utilOf = (e: EngineRun) =>
    `<path class="series" data-engine="${esc(e.figures.engine)}" stroke="${COLORS[e.figures.engine] ?? '#000'}" d="${stepPath(
      utilizationBuckets(r.offered, e.points, endS),
      a3,
      endS,
    )}"><title>${esc(e.figures.engine)}</title></path>`;
  const unservedSeries = scaled.map((e) => ({ e, pts: unservedBuckets(r.offered, e.points, endS) }));
  const unservedMax = Math.max(0.01, ...unservedSeries.flatMap((x) => x.pts.map((p) => p.v)));
  const a4 = axis(endS, unservedMax * 1.05, 'unserved load (GPUs, 10-min means)');
  const unserved = unservedSeries
    .map(
      ({ e, pts }) =>
        `<path class="series" data-engine="${esc(e.figures.engine)}" stroke="${COLORS[e.figures.engine] ?? '#000'}" d="${stepPath(pts, a4, endS)}"><title>${esc(e.figures.engine)}</title></path>`,
    )
    .join('');
  return {
    offered: chartSvg('offered', offered, a1.frame),
    unserved: chartSvg('unserved', unserved, a4.frame),
    allocated: panels(
      r.engines,
      'allocated',
      a2,
      'allocated GPUs',
      (e) => plotClip(`plot-area-${esc(e.figures.engine)}`) + allocOf(e) + markersOf(e, a2),
    ),
    utilization: panels(
      r.engines,
      'utilization',
      a3,
      'utilisation of allocated GPUs (%, 10-min means)',
      utilOf,
    ),
    staticNote:
      staticPeak > gpuMax * 1.05
        ? ` Static holds up to ${staticPeak} GPUs, off the top of this scale (its line is cut at the top).`
        : '',
  };
}

/** gpuops's markers on its allocation panel: a dot per replica change, a bar per node moved. */
function markersOf(e: EngineRun, a: Axis): string {
  if (!e.figures.engine.startsWith('gpuops')) return '';
  return e.events
    .map((ev) => {
      const x = a.x(ev.t).toFixed(1);
      const color = COLORS[e.figures.engine] ?? '#000';
      const title = `<title>${esc(e.figures.engine)} at ${Math.round(ev.t / 60)} min: ${ev.kind === 'scale' ? 'scaled' : 'moved'} ${esc(ev.text)}</title>`;
      return ev.kind === 'scale'
        ? `<circle class="marker scale" data-engine="${esc(e.figures.engine)}" cx="${x}" cy="${H - PAD.bottom + 4}" r="2" fill="${color}">${title}</circle>`
        : `<rect class="marker relabel" data-engine="${esc(e.figures.engine)}" x="${x}" y="${PAD.top}" width="2" height="8" fill="${color}">${title}</rect>`;
    })
    .join('');
}

/** One panel per engine: `svg#<kind>-<engine>.<kind>`, its unit naming the engine. */
function panels(
  engines: readonly EngineRun[],
  kind: string,
  a: Axis,
  unit: string,
  body: (e: EngineRun) => string,
): string {
  return engines
    .map((e) => {
      const frame = a.frame.replace(
        /<text x="4" y="12" class="unit">[^<]*<\/text>/,
        `<text x="4" y="12" class="unit">${esc(`${unit}: ${e.figures.engine}`)}</text>`,
      );
      return chartSvg(`${kind}-${esc(e.figures.engine)}`, body(e), frame, `panel ${kind}`);
    })
    .join('\n');
}
