/**
 * The fleet replay's report page (pure: figures in, HTML out), beside the one-service page of
 * `report.ts` and built from its parts: one self-contained file (inline CSS and SVG, no script, no
 * network) with a warning per engine that breaks a target, the verdict lines, the fleet table
 * (with a fleet of nodes, its node-level figures: pool node- and GPU-hours, peak, moves, returns,
 * and the frontier of gpuops's node-hours at each headroom factor against unserved load),
 * each service's unserved load and pod-time above max, and two charts over time: the GPUs each
 * engine allocated to all services together, and the load each left unserved. The allocated chart is scaled to the engines that scale (static would
 * flatten them: its line is cut at the top and the text says how high it goes). Every line is a
 * `<path class="series" data-engine>`, every verdict a `<li class="verdict">`.
 */
import type { FleetFigures } from './fleet-model.js';
import type { FleetTimeline } from './fleet-timeline.js';
import { frontierSvg, verdictList, warnings } from './report-frontier.js';
import { axis, chartSvg, COLORS, esc, PLOT_CLIP, REPORT_STYLE, stepPath } from './report.js';
import type { ReplaySettings } from './replay-settings.js';
import type { TargetVerdict } from './targets.js';

/** What the fleet report shows. */
export interface FleetReport {
  /** The history replayed (file) and how it was split (`4 shifted copies`, `by namespace,deployment`). */
  source: string;
  split: string;
  /** The services' names, in order (`0`, `ml/resnet`). */
  services: string[];
  settings: ReplaySettings;
  /** One row per engine, and the same engines over time (matched by name). */
  rows: FleetFigures[];
  timelines: FleetTimeline[];
  verdicts: TargetVerdict[];
  /** With a fleet of nodes: the nodes gpuops ran on and each service's HPA static pool (nodes). */
  nodes?: { fleet: number; hpaPools: number[] };
  /** With a fleet of nodes: gpuops on the same nodes at each headroom factor (`FleetRun.frontier`). */
  frontier?: { beta: number; figures: FleetFigures }[];
  /** Seconds the services span. */
  endSeconds: number;
  wallSeconds: number;
}

/** An engine's colour: its row name's first word (`hpa 55 %` → `hpa`, `gpuops β 1` → gpuops patch mode's). */
export function fleetColor(engine: string): string {
  const kind = engine.split(' ')[0]!;
  return COLORS[kind === 'gpuops' ? 'gpuops-patch' : kind] ?? '#000';
}

const num = (x: number | undefined, d: number) => (x === undefined ? '–' : x.toFixed(d));

function fleetTable(rows: readonly FleetFigures[]): string {
  const cols: [string, (r: FleetFigures) => string][] = [
    ['engine', (r) => esc(r.engine)],
    ['pod-level utilisation %', (r) => r.utilizationPercent.toFixed(1)],
    ['GPU-hours', (r) => r.allocatedGpuHours.toFixed(1)],
    ['pod-time above max %', (r) => r.aboveMaxPercent.toFixed(2)],
    ['unserved %', (r) => r.unservedPercent.toFixed(3)],
    ['flaps', (r) => String(r.flaps)],
  ];
  if (rows.some((r) => r.nodes !== undefined))
    cols.push(
      ['fleet nodes', (r) => num(r.nodes?.fleetNodes, 0)],
      ['pool node-hours', (r) => num(r.nodes?.poolNodeHours, 1)],
      ['pool GPU-hours', (r) => num(r.nodes?.poolGpuHours, 1)],
      ['peak pool nodes', (r) => num(r.nodes?.peakPoolNodes, 0)],
      ['node moves', (r) => num(r.nodes?.nodeMoves, 0)],
      ['nodes returned', (r) => num(r.nodes?.nodesReturned, 0)],
    );
  return (
    `<table id="fleet"><thead><tr>${cols.map(([h]) => `<th>${h}</th>`).join('')}</tr></thead><tbody>` +
    rows.map((r) => `<tr>${cols.map(([, f]) => `<td>${f(r)}</td>`).join('')}</tr>`).join('') +
    '</tbody></table>'
  );
}

function serviceTable(r: FleetReport): string {
  const head = r.rows.map((x) => `<th>${esc(x.engine)}: unserved %</th><th>above max %</th>`).join('');
  const body = r.services
    .map(
      (name, i) =>
        `<tr><td>${esc(name)}</td>${r.rows
          .map(
            (x) =>
              `<td>${num(x.services[i]?.unservedPercent, 3)}</td><td>${num(x.services[i]?.aboveMaxPercent, 2)}</td>`,
          )
          .join('')}</tr>`,
    )
    .join('');
  return `<table id="services"><thead><tr><th>service</th>${head}</tr></thead><tbody>${body}</tbody></table>`;
}

function series(
  t: FleetTimeline,
  pts: readonly { t: number; v: number }[],
  a: ReturnType<typeof axis>,
  endS: number,
  clip = '',
): string {
  return `<path class="series" data-engine="${esc(t.engine)}" stroke="${fleetColor(t.engine)}"${clip} d="${stepPath(pts, a, endS)}"><title>${esc(t.engine)}</title></path>`;
}

/**
 * The node frontier: the pool node-hours of gpuops at each β and of the HPA on static pools,
 * against unserved load (the node-hours target is read at the HPA's unserved load).
 */
function nodeFrontier(r: FleetReport): string {
  const hpa = r.rows.find((x) => x.engine.startsWith('hpa'));
  if (!r.frontier?.length || !hpa?.nodes) return '';
  const f = {
    hpa: [{ parameter: r.settings.hpaTarget, figures: hpa }],
    gpuops: r.frontier.map((p) => ({ parameter: p.beta, figures: p.figures })),
  };
  return `<h2>Frontier on nodes: pool node-hours against unserved load</h2>
<p>gpuops on the same ${r.nodes?.fleet ?? ''} nodes at each headroom factor, beside the HPA on static pools. <span class="key"><i style="background:${fleetColor('hpa')}"></i>hpa</span> <span class="key"><i style="background:${fleetColor('gpuops')}"></i>gpuops</span></p>
${frontierSvg('frontier-nodes', f, (p) => p.figures.unservedPercent, 'unserved load (% of offered)', {
  y: (p) => p.figures.nodes?.poolNodeHours ?? 0,
  yLabel: 'node-hours of the serving pool(s)',
})}`;
}

/** The fleet report page (see the module comment). */
export function renderFleetReport(r: FleetReport): string {
  const endS = r.endSeconds;
  const scaled = r.timelines.filter((t) => t.engine !== 'static');
  const peak = (t: FleetTimeline) => Math.max(0, ...t.allocated.map((p) => p.v));
  const gpuMax = Math.max(1, ...(scaled.length ? scaled : r.timelines).map(peak));
  const st = r.timelines.find((t) => t.engine === 'static');
  const staticNote =
    st && peak(st) > gpuMax * 1.05
      ? ` — static holds up to ${peak(st)} GPUs, off the top of this scale (its line is cut at the top).`
      : '';
  const a1 = axis(endS, gpuMax * 1.05, 'allocated GPUs, all services');
  const alloc = r.timelines
    .map((t) => series(t, t.allocated, a1, endS, ' clip-path="url(#plot-area)"'))
    .join('');
  const unservedMax = Math.max(0.01, ...scaled.flatMap((t) => t.unserved.map((p) => p.v)));
  const a2 = axis(endS, unservedMax * 1.05, 'unserved load (GPUs, 10-min means, all services)');
  const unserved = scaled.map((t) => series(t, t.unserved, a2, endS)).join('');
  const legend = r.timelines
    .map((t) => `<span class="key"><i style="background:${fleetColor(t.engine)}"></i>${esc(t.engine)}</span>`)
    .join(' ');
  const judged = new Set(r.verdicts.map((v) => v.engine));
  const untargeted = r.rows
    .filter((x) => !judged.has(x.engine))
    .map(
      (x) =>
        `<li class="reference" data-engine="${esc(x.engine)}">${esc(x.engine)}: a reference, no target</li>`,
    )
    .join('');
  const s = r.settings;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>gpuops fleet replay: ${esc(r.source)}</title>
<style>
${REPORT_STYLE}</style></head><body>
<h1>gpuops fleet replay</h1>
<p><code>${esc(r.source)}</code> ${esc(r.split)}: ${r.services.length} services (${r.services.map(esc).join(', ')}), ${(endS / 3600).toFixed(2)} h; 1 GPU per pod; every engine through the model of the same delays${
    r.nodes
      ? `, on nodes of ${s.gpusPerNode} GPUs: ${r.nodes.fleet} for gpuops, the HPA's static pools ${r.nodes.hpaPools.join(' + ')}`
      : ', capacity never binding'
  }.
Pod start-up ${s.startupSeconds} s, sample delay ${s.sampleDelaySeconds} s, pass every ${s.passIntervalSeconds} s; utilisation band ${s.min}–${s.max} %, HPA target ${s.hpaTarget} %, headroom factor β ${s.headroomFactor}. Replay took ${r.wallSeconds.toFixed(1)} s.</p>
${warnings(r.verdicts)}
<h2>Targets</h2>
${verdictList(r.verdicts)}
<ul id="references">${untargeted}</ul>
${fleetTable(r.rows)}
${nodeFrontier(r)}
<h2>Allocated GPUs</h2>
<p>${legend}${staticNote}</p>
${chartSvg('allocated', PLOT_CLIP + alloc, a1.frame)}
<h2>Unserved load</h2>
${chartSvg('unserved', unserved, a2.frame)}
<h2>Each service</h2>
${serviceTable(r)}
</body></html>
`;
}
