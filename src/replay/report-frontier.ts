/**
 * The report's frontier plots and verdict lines (pure: figures in, HTML out). A frontier plot
 * draws each family (the HPA at its targets, gpuops at its headroom factors) as a line through
 * its points, utilisation against unserved load or against pod-time above max, on axes fitted to
 * the points (each axis from a little below its lowest to a little above its highest value), with
 * each point labelled by its parameter on the side away from the other family.
 */
import type { FrontierPoint } from './frontier.js';
import type { TargetVerdict } from './targets.js';
import { ticksWithin } from './ticks.js';

const W = 470;
const H = 300;
// The y unit label sits above the plot (y 11), clear of the top tick label (PAD.top + 4); the x
// tick labels (PAD.bottom − 18 below the plot) clear of the lowest y tick label and the x unit.
const PAD = { left: 48, right: 16, top: 26, bottom: 40 };
const COLORS = { hpa: '#d95f02', gpuops: '#1b9e77' } as const;

/** `s` with `& < > " '` escaped as numeric character references, safe in HTML text and attributes. */
export function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A range that holds every value with 8 % room on each side (a single value gets ±1). */
function fit(values: readonly number[]): [number, number] {
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  const room = hi > lo ? (hi - lo) * 0.08 : 1;
  return [Math.max(0, lo - room), hi + room];
}

function label(v: number): string {
  return Math.abs(v) >= 10 ? v.toFixed(0) : Math.abs(v) >= 1 ? v.toFixed(1) : v.toFixed(2);
}

/** A point of a frontier plot: its parameter (HPA target, β) and the figures it reached. */
export interface PlotPoint {
  parameter: number;
  figures: { engine: string; utilizationPercent: number };
}

/** Estimated box of an SVG label of `text` at (x, y) with `anchor` (11 px type: ~6.2 px a character). */
function labelBox(text: string, x: number, y: number, anchor: string): [number, number, number, number] {
  const w = 6.2 * text.length;
  const x0 = anchor === 'end' ? x - w : x;
  return [x0, y - 10, x0 + w, y + 2];
}

/**
 * One frontier plot: `<svg id="{id}" class="frontier">` with one `<path class="frontier-line"
 * data-engine="hpa|gpuops">` and one `<circle class="frontier-point">` per point, utilisation (or
 * `o.y`, named `o.yLabel`) against `x`. A point's label that would overlap one placed before it is
 * left out (the point's tooltip still names it).
 */
export function frontierSvg<P extends PlotPoint = FrontierPoint>(
  id: string,
  f: { hpa: readonly P[]; gpuops: readonly P[] },
  x: (p: P) => number,
  xLabel: string,
  o: { y?: (p: P) => number; yLabel?: string } = {},
): string {
  const y = o.y ?? ((p: P) => p.figures.utilizationPercent);
  const all = [...f.hpa, ...f.gpuops];
  if (all.length === 0) return `<p id="${id}">no frontier points</p>`;
  const [x0, x1] = fit(all.map(x));
  const [y0, y1] = fit(all.map(y));
  const sx = (v: number) => PAD.left + ((v - x0) / (x1 - x0)) * (W - PAD.left - PAD.right);
  const sy = (v: number) => H - PAD.bottom - ((v - y0) / (y1 - y0)) * (H - PAD.top - PAD.bottom);
  let body = '';
  for (const v of ticksWithin(y0, y1))
    body += `<line class="grid" x1="${PAD.left}" x2="${W - PAD.right}" y1="${sy(v).toFixed(1)}" y2="${sy(v).toFixed(1)}"/><text x="${PAD.left - 4}" y="${(sy(v) + 4).toFixed(1)}" text-anchor="end">${label(v)}</text>`;
  for (const v of ticksWithin(x0, x1))
    body += `<text x="${sx(v).toFixed(1)}" y="${H - PAD.bottom + 18}" text-anchor="middle">${label(v)}</text>`;
  body += `<text x="${(PAD.left + W - PAD.right) / 2}" y="${H - 6}" text-anchor="middle" class="unit">${esc(xLabel)}</text>`;
  const yLabel = o.yLabel ?? 'utilisation of allocated GPUs (%)';
  body += `<text x="4" y="11" class="unit">${esc(yLabel)}</text>`;
  // Point labels keep clear of the axis labels too.
  const placed = [
    labelBox(yLabel, 4, 11, 'start'),
    ...ticksWithin(y0, y1).map((v) => labelBox(label(v), PAD.left - 4, sy(v) + 4, 'end')),
    ...ticksWithin(x0, x1).map((v) =>
      labelBox(label(v), sx(v) - 3.1 * label(v).length, H - PAD.bottom + 18, 'start'),
    ),
  ];
  for (const family of ['hpa', 'gpuops'] as const) {
    const pts = [...f[family]].sort((a, b) => x(a) - x(b));
    const d = pts.map((p, i) => `${i ? 'L' : 'M'}${sx(x(p)).toFixed(1)},${sy(y(p)).toFixed(1)}`).join('');
    body += `<path class="frontier-line" data-engine="${family}" stroke="${COLORS[family]}" d="${d}"/>`;
    for (const p of pts) {
      const cx = sx(x(p));
      const cy = sy(y(p));
      const name = family === 'hpa' ? `${p.parameter} %` : `β ${p.parameter}`;
      // HPA labels below-right, gpuops above-left: the two families sit apart, so do their labels.
      // A label that would leave the plot area goes to the point's other side.
      const [dy, side] = family === 'hpa' ? [13, 1] : [-6, -1];
      const w = 6.2 * name.length;
      const flip = side > 0 ? cx + 5 + w > W - PAD.right : cx - 5 - w < PAD.left;
      const s = flip ? -side : side;
      const anchor = s > 0 ? 'start' : 'end';
      const tx = cx + 5 * s;
      body += `<circle class="frontier-point" data-engine="${family}" cx="${cx.toFixed(1)}" cy="${cy.toFixed(1)}" r="3" fill="${COLORS[family]}"><title>${esc(p.figures.engine)}: ${y(p)}, ${x(p)}</title></circle>`;
      const box = labelBox(name, tx, cy + dy, anchor);
      // Left out where it would overlap a label placed before it.
      if (placed.some((b) => box[0] < b[2] && b[0] < box[2] && box[1] < b[3] && b[1] < box[3])) continue;
      placed.push(box);
      body += `<text class="point-label" x="${tx.toFixed(1)}" y="${(cy + dy).toFixed(1)}" text-anchor="${anchor}">${esc(name)}</text>`;
    }
  }
  return `<svg id="${id}" class="frontier" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img">${body}</svg>`;
}

/** The verdict list: `<ul id="verdicts">` with one `<li class="verdict ok|miss">` per verdict. */
export function verdictList(vs: readonly TargetVerdict[]): string {
  const items = vs
    .map(
      (v) =>
        `<li class="verdict ${v.ok ? 'ok' : 'miss'}" data-engine="${esc(v.engine)}">${v.ok ? '✓' : '✗ MISSED:'} ${esc(v.engine)} ${esc(v.measure)} ${esc(v.figure)} (target ${esc(v.target)})</li>`,
    )
    .join('');
  return `<ul id="verdicts">${items}</ul>`;
}

/** One warning per engine that misses a target: `<p class="warning" data-engine>`. */
export function warnings(vs: readonly TargetVerdict[]): string {
  const missed = new Map<string, TargetVerdict[]>();
  for (const v of vs) if (!v.ok) missed.set(v.engine, [...(missed.get(v.engine) ?? []), v]);
  return [...missed]
    .map(
      ([engine, list]) =>
        `<p class="warning" data-engine="${esc(engine)}">⚠ ${esc(engine)} breaks ${list.length} target(s): ${list.map((v) => `${esc(v.measure)} ${esc(v.figure)} (target ${esc(v.target)})`).join('; ')}</p>`,
    )
    .join('');
}
