/**
 * The fleet replay's terminal text (pure): one line per engine with its pod-level figures over
 * every service (and, with a fleet of nodes, its node-level figures), each service's unserved load
 * and pod-time above max, then the verdicts of the fleet's targets (`targets.ts`).
 */
import type { FleetFigures } from './fleet-model.js';
import { formatVerdicts, type TargetVerdict } from './targets.js';

/** The reduction of the short-task pool's node-hours against the HPA on static pools the target asks for (percent). */
export const NODE_HOURS_REDUCTION_TARGET = 40;

/** How far `hours` lies below `baseline` (percent; rounded to 1e-6 so a boundary is judged as printed). */
const reduction = (hours: number, baseline: number) => Math.round(1e8 * (1 - hours / baseline)) / 1e6;

/**
 * The verdicts of a fleet: gpuops ≥ 55 % pod-level utilisation, ≤ 2 % above max, ≤ 0.5 %
 * unserved; the HPA held to the same limits; with node-level figures, gpuops's short-task pool
 * node-hours ≥ 40 % below the HPA's static pools (`1 − gpuops ÷ HPA`) at no more unserved load
 * (gpuops's unserved % ≤ the HPA's) at the fixed β, and over `frontier` (gpuops on the same
 * nodes at each headroom factor) the fewest node-hours of a factor with no more unserved load
 * (`n/a`, missed, when none has; that β is chosen on the trace itself, not before the run).
 */
export function fleetVerdicts(
  rows: readonly FleetFigures[],
  frontier: readonly FleetFigures[] = [],
): TargetVerdict[] {
  const out: TargetVerdict[] = [];
  const check = (engine: string, measure: string, v: number, op: '≥' | '≤', limit: number, d: number) =>
    out.push({
      engine,
      measure,
      figure: Number.isFinite(v) ? `${v.toFixed(d)} %` : 'n/a',
      target: `${op} ${limit} %`,
      ok: op === '≥' ? v >= limit : v <= limit,
    });
  for (const r of rows) {
    if (!r.engine.startsWith('gpuops') && !r.engine.startsWith('hpa')) continue;
    if (r.engine.startsWith('gpuops'))
      check(r.engine, 'pod-level utilisation', r.utilizationPercent, '≥', 55, 1);
    check(r.engine, 'pod-time above max', r.aboveMaxPercent, '≤', 2, 2);
    check(r.engine, 'unserved', r.unservedPercent, '≤', 0.5, 3);
  }
  const g = rows.find((r) => r.engine.startsWith('gpuops'));
  const h = rows.find((r) => r.engine.startsWith('hpa'));
  if (g?.nodes && h?.nodes && h.nodes.poolNodeHours > 0) {
    const cut = reduction(g.nodes.poolNodeHours, h.nodes.poolNodeHours);
    check(
      g.engine,
      `short-task node-hours below the HPA's static pools (${g.nodes.poolNodeHours.toFixed(1)} vs ${h.nodes.poolNodeHours.toFixed(1)})`,
      cut,
      '≥',
      NODE_HOURS_REDUCTION_TARGET,
      1,
    );
    out.push({
      engine: g.engine,
      measure: 'unserved, against the HPA on static pools',
      figure: `${g.unservedPercent.toFixed(3)} %`,
      target: `≤ ${h.unservedPercent.toFixed(3)} %`,
      ok: g.unservedPercent <= h.unservedPercent,
    });
    const best = frontier
      .filter((r) => r.nodes && r.unservedPercent <= h.unservedPercent)
      .sort((a, b) => a.nodes!.poolNodeHours - b.nodes!.poolNodeHours)[0];
    const hours = h.nodes.poolNodeHours;
    if (frontier.length > 0)
      check(
        'gpuops frontier',
        best
          ? `short-task node-hours below the HPA's static pools at no more unserved (${best.engine}: ${best.nodes!.poolNodeHours.toFixed(1)} vs ${hours.toFixed(1)}, unserved ${best.unservedPercent.toFixed(3)} %; β chosen on this trace)`
          : `short-task node-hours below the HPA's static pools at no more unserved (no factor reaches ${h.unservedPercent.toFixed(3)} %)`,
        best ? reduction(best.nodes!.poolNodeHours, hours) : -Infinity,
        '≥',
        NODE_HOURS_REDUCTION_TARGET,
        1,
      );
  }
  return out;
}

const pad = (s: string, n: number) => s.padStart(n);

/** The fleet table, each service's unserved and above max, and the verdicts, for the terminal. */
export function formatFleet(
  rows: readonly FleetFigures[],
  services: number,
  nodes?: { fleet: number; hpaPools: number[]; scoring?: string },
  frontier: readonly FleetFigures[] = [],
): string {
  const head = nodes
    ? `fleet of ${services} services on nodes (model; ${nodes.fleet} nodes for gpuops, the HPA's static pools ${nodes.hpaPools.join(' + ')} nodes${nodes.scoring ? `; kube-scheduler: ${nodes.scoring}` : ''}):\n`
    : `fleet of ${services} services (model; pod-level, all services together):\n`;
  const w = Math.max(16, ...[...rows, ...frontier].map((r) => r.engine.length));
  const line = (r: FleetFigures) => {
    const n = r.nodes;
    const node = n
      ? `  pool node-h ${pad(n.poolNodeHours.toFixed(1), 7)} (GPU-h ${pad(n.poolGpuHours.toFixed(0), 6)}, peak ${n.peakPoolNodes})  moves ${n.nodeMoves}  returned ${n.nodesReturned}`
      : '';
    return `  ${r.engine.padEnd(w)} util ${pad(r.utilizationPercent.toFixed(1), 5)} %  GPU-h ${pad(r.allocatedGpuHours.toFixed(1), 8)}  >max ${pad(r.aboveMaxPercent.toFixed(2), 5)} %  unserved ${r.unservedPercent.toFixed(3)} %  flaps ${r.flaps}${node}\n`;
  };
  const per = rows
    .filter((r) => r.engine.startsWith('gpuops') || r.engine.startsWith('hpa'))
    .map(
      (r) =>
        `  ${r.engine.padEnd(w)} ${r.services.map((x, i) => `#${i} ${x.unservedPercent.toFixed(3)} % / ${x.aboveMaxPercent.toFixed(2)} %`).join('  ')}\n`,
    )
    .join('');
  const h = rows.find((r) => r.engine.startsWith('hpa'))?.nodes;
  const cut = (r: FleetFigures) =>
    h && r.nodes
      ? ` (${(100 * (1 - r.nodes.poolNodeHours / h.poolNodeHours)).toFixed(1)} % below the HPA's)`
      : '';
  const points = frontier
    .map(
      (r) =>
        `  ${r.engine.padEnd(w)} pool node-h ${pad(r.nodes?.poolNodeHours.toFixed(1) ?? 'n/a', 7)}${cut(r)}  unserved ${r.unservedPercent.toFixed(3)} %  >max ${r.aboveMaxPercent.toFixed(2)} %  util ${r.utilizationPercent.toFixed(1)} %\n`,
    )
    .join('');
  return (
    head +
    rows.map(line).join('') +
    `per service (unserved / pod-time above max):\n${per}` +
    (points ? `gpuops on the same nodes at each headroom factor:\n${points}` : '') +
    `fleet targets:\n${formatVerdicts(fleetVerdicts(rows, frontier))}`
  );
}
