/**
 * The fleet replay's terminal text (pure): one line per engine with its pod-level figures over
 * every service, then the verdicts of issue 25's four-service target.
 */
import type { FleetFigures } from './fleet-model.js';
import { formatVerdicts, type TargetVerdict } from './targets.js';

/** The verdicts of a fleet: gpuops ≥ 55 % pod-level utilisation, ≤ 2 % above max, ≤ 0.5 % unserved. */
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
  return out;
}

/** The fleet table and its verdicts, for the terminal. */
export function formatFleet(rows: readonly FleetFigures[], services: number): string {
  const head = `fleet of ${services} services (model; pod-level, all services together):\n`;
  const line = (r: FleetFigures) =>
    `  ${r.engine.padEnd(16)} util ${r.utilizationPercent.toFixed(1).padStart(5)} %  GPU-h ${r.allocatedGpuHours.toFixed(1).padStart(8)}  >max ${r.aboveMaxPercent.toFixed(2).padStart(5)} %  unserved ${r.unservedPercent.toFixed(3)} %  flaps ${r.flaps}\n`;
  return head + rows.map(line).join('') + `fleet targets:\n${formatVerdicts(fleetVerdicts(rows))}`;
}
