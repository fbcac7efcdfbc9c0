/**
 * The fleet replay's terminal text (pure): one line per engine with its pod-level figures over
 * every service (and, with a fleet of nodes, its node-level figures), each service's unserved load
 * and pod-time above max, then the verdicts of issue 25's four-service targets.
 */
import type { FleetFigures } from './fleet-model.js';
import { formatVerdicts, type TargetVerdict } from './targets.js';

/** The reduction of the short-task pool's node-hours against the HPA on static pools the target asks for (percent). */
export const NODE_HOURS_REDUCTION_TARGET = 40;

/**
 * The verdicts of a fleet: gpuops ≥ 55 % pod-level utilisation, ≤ 2 % above max, ≤ 0.5 %
 * unserved; the HPA held to the same limits; with node-level figures, gpuops's short-task pool
 * node-hours ≥ 40 % below the HPA's static pools (`1 − gpuops ÷ HPA`) at no more unserved load
 * (gpuops's unserved % ≤ the HPA's).
 */
export function fleetVerdicts(rows: readonly FleetFigures[]): TargetVerdict[] {
  const out: TargetVerdict[] = [];
  const check = (engine: string, measure: string, v: number, op: '≥' | '≤', limit: number, d: number) =>
    out.push({
      engine,
      measure,
      figure: `${v.toFixed(d)} %`,
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
    const cut = 100 * (1 - g.nodes.poolNodeHours / h.nodes.poolNodeHours);
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
      measure: "unserved, against the HPA on static pools'",
      figure: `${g.unservedPercent.toFixed(3)} %`,
      target: `≤ ${h.unservedPercent.toFixed(3)} %`,
      ok: g.unservedPercent <= h.unservedPercent,
    });
  }
  return out;
}

const pad = (s: string, n: number) => s.padStart(n);

/** The fleet table, each service's unserved and above max, and the verdicts, for the terminal. */
export function formatFleet(
  rows: readonly FleetFigures[],
  services: number,
  nodes?: { fleet: number; hpaPools: number[] },
): string {
  const head = nodes
    ? `fleet of ${services} services on nodes (model; ${nodes.fleet} nodes for gpuops, the HPA's static pools ${nodes.hpaPools.join(' + ')} nodes):\n`
    : `fleet of ${services} services (model; pod-level, all services together):\n`;
  const w = Math.max(16, ...rows.map((r) => r.engine.length));
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
  return (
    head +
    rows.map(line).join('') +
    `per service (unserved / pod-time above max):\n${per}` +
    `fleet targets:\n${formatVerdicts(fleetVerdicts(rows))}`
  );
}
