/**
 * The utilisation chart as inline SVG (pure, no script): the scaling band shaded, the per-bucket
 * min–max envelope of the pods' utilisation, the mean as a line, and a marker (vertical line with
 * a tooltip `<title>`) wherever gpuops scaled the algorithm or moved a node. The y axis is fixed
 * at 0–100 % so charts compare at a glance; the time axis is the model's window (chart-scale.ts)
 * with ticks at round UTC clock times. The legend is HTML beside it (html.ts), so it wraps.
 */
import type { UtilizationChart } from './model.js';
import { escapeHtml } from './escape.js';

// Drawn at the page's content width (html.ts: 1,000 px less margins) and scaled down with it on a
// narrow screen; labels 12 px at that width.
const W = 960;
const H = 200;
const PAD = { left: 44, right: 12, top: 10, bottom: 24 };
const FONT = 12;

/** Renders one chart; `title` names it for screen readers. */
export function renderChart(chart: UtilizationChart, title: string): string {
  const span = Math.max(1, chart.to - chart.from);
  const x = (t: number) => PAD.left + ((t - chart.from) / span) * (W - PAD.left - PAD.right);
  const y = (pct: number) =>
    PAD.top + (1 - Math.min(100, Math.max(0, pct)) / 100) * (H - PAD.top - PAD.bottom);
  const f = (n: number) => n.toFixed(1);
  const parts: string[] = [];
  parts.push(
    `<svg class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="100%" style="max-width:${W}px" role="img" aria-label="${escapeHtml(title)}">`,
    `<title>${escapeHtml(title)}</title>`,
    `<rect x="${PAD.left}" y="${PAD.top}" width="${W - PAD.left - PAD.right}" height="${H - PAD.top - PAD.bottom}" fill="#fafafa" stroke="#ccc"/>`,
  );
  if (chart.bandMin !== null && chart.bandMax !== null) {
    parts.push(
      `<rect class="band" x="${PAD.left}" y="${f(y(chart.bandMax))}" width="${W - PAD.left - PAD.right}" height="${f(y(chart.bandMin) - y(chart.bandMax))}" fill="#d8f0d8"><title>scaling band ${chart.bandMin}–${chart.bandMax} %</title></rect>`,
    );
  }
  for (const pct of [0, 25, 50, 75, 100]) {
    parts.push(
      `<line class="grid" x1="${PAD.left}" x2="${W - PAD.right}" y1="${f(y(pct))}" y2="${f(y(pct))}" stroke="#eee"/>`,
      `<text x="${PAD.left - 5}" y="${f(y(pct) + 4)}" font-size="${FONT}" text-anchor="end" fill="#555">${pct}%</text>`,
    );
  }
  // Ticks on round clock times (HH:MM UTC), every `tickSeconds`.
  for (
    let t = Math.ceil(chart.from / chart.tickSeconds) * chart.tickSeconds;
    t <= chart.to;
    t += chart.tickSeconds
  ) {
    const hhmm = new Date(t * 1000).toISOString().slice(11, 16);
    parts.push(
      `<line class="tick" x1="${f(x(t))}" x2="${f(x(t))}" y1="${H - PAD.bottom}" y2="${H - PAD.bottom + 3}" stroke="#999"/>`,
      `<text class="tick" x="${f(x(t))}" y="${H - 6}" font-size="${FONT}" text-anchor="${x(t) > W - PAD.right - 20 ? 'end' : 'middle'}" fill="#555">${hhmm}</text>`,
    );
  }
  // Runs of consecutive buckets: a missing bucket is a gap, never a drop to 0 %.
  const runs: (typeof chart.points)[] = [];
  let prev: number | null = null;
  for (const p of chart.points) {
    if (prev === null || p.t - prev > chart.bucketSeconds) runs.push([]);
    runs[runs.length - 1]!.push(p);
    prev = p.t;
  }
  const step = (chart.bucketSeconds * (W - PAD.left - PAD.right)) / span;
  for (const run of runs) {
    const upper = run.map((p) => `${f(x(p.t))},${f(y(p.max))} ${f(x(p.t) + step)},${f(y(p.max))}`);
    const lower = [...run]
      .reverse()
      .map((p) => `${f(x(p.t) + step)},${f(y(p.min))} ${f(x(p.t))},${f(y(p.min))}`);
    parts.push(
      `<polygon class="envelope" points="${[...upper, ...lower].join(' ')}" fill="#9ecae1" opacity="0.6"/>`,
    );
    const line = run.map((p) => `${f(x(p.t) + step / 2)},${f(y(p.mean))}`).join(' ');
    parts.push(
      run.length === 1
        ? `<circle class="mean" cx="${f(x(run[0]!.t) + step / 2)}" cy="${f(y(run[0]!.mean))}" r="2" fill="#08519c"/>`
        : `<polyline class="mean" points="${line}" fill="none" stroke="#08519c" stroke-width="1.5"/>`,
    );
  }
  for (const m of chart.markers) {
    const colour = m.action === 'scale-down' ? '#e6550d' : m.action === 'relabel' ? '#756bb1' : '#31a354';
    parts.push(
      `<line class="marker" x1="${f(x(m.t))}" x2="${f(x(m.t))}" y1="${PAD.top}" y2="${H - PAD.bottom}" stroke="${colour}" stroke-width="1.5" stroke-dasharray="3 2"><title>${escapeHtml(m.label)}</title></line>`,
    );
  }
  if (chart.points.length === 0) {
    parts.push(
      `<text x="${W / 2}" y="${H / 2}" font-size="${FONT + 1}" text-anchor="middle" fill="#777">no utilisation samples in the last 24 h</text>`,
    );
  }
  parts.push('</svg>');
  return parts.join('');
}
